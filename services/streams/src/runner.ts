import { randomUUID } from 'node:crypto';
import { errorFromStatus, isOk, projectSubject, shardProbe, type BusClient } from '@sml/bus';
import { SmlError, type Logger } from '@sml/core';
import { sml } from '@sml/proto';
import { KafkaSource, kafkaSettings } from './kafka-source';
import { NatsSource, natsSettings } from './nats-source';
import { readRecord, recordFormat, type RecordFormat } from './records';
import type { BatchLimits, SourceBatch, StreamSource } from './source';
import type { StreamStore } from './store';

export interface RunnerLimits {
  batch: BatchLimits;
  maxRecordBytes: number;
  errorLog: number;
}

/** Thrown inside a batch once its stream is stopping: nothing of the batch is committed. */
class Stopped extends Error {
  override readonly name = 'Stopped';
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const STATUS_EVERY_MS = 200;

/** The consumer of one stream's source, for the source type its DSInfo names. */
export function sourceOf(record: sml.v1.IStreamRecord, limits: BatchLimits, log: Logger): StreamSource {
  const ds = record.dsInfo ?? {};
  return ds.type?.toLowerCase() === 'nats'
    ? new NatsSource(natsSettings(ds, record.instance!), limits, log)
    : new KafkaSource(kafkaSettings(ds, record.instance!), limits, log, Object.fromEntries(Object.entries(record.startOffsets ?? {}).map(([p, o]) => [p, Number(o)])));
}

/**
 * Runs one stream in this replica: reads its source's batches, turns each record into a row
 * (a record that cannot be read is rejected into the errorLog), and learns each batch into
 * the project over the bus as the stream's customer, like any learn (validated, logged,
 * bounded), with the source positions it covers. The source commits a batch only after that
 * learn answered; the project's stream marks make a redelivered batch a no-op.
 */
export class StreamRunner {
  private source?: StreamSource;
  private stopped = false;
  private done?: Promise<void>;
  private readonly format: RecordFormat;
  private status: sml.v1.IStreamStatus = {};
  private dirty = false;
  private flushing?: NodeJS.Timeout;

  constructor(
    readonly key: string,
    readonly record: sml.v1.StreamRecord,
    private readonly store: StreamStore,
    private readonly client: BusClient,
    private readonly limits: RunnerLimits,
    private readonly log: Logger,
    /** The project is gone: the stream must stop (its record says why). */
    private readonly onProjectGone: (reason: string) => void,
  ) {
    this.format = recordFormat(record.dsInfo ?? {});
  }

  async start(owner: string): Promise<void> {
    const previous = await this.store.getStatus(this.key);
    // Counters go on from where the previous run left them.
    this.status = { ...(previous ? sml.v1.StreamStatus.toObject(previous) : {}), owner };
    // metrics' `replica` says who runs the stream from now on, records or not.
    await this.store.putStatus(this.key, this.status).catch((err: unknown) => this.log.debug({ err, key: this.key }, 'stream status not written'));
    this.done = this.loop();
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      const source = sourceOf(this.record, this.limits.batch, this.log);
      this.source = source;
      try {
        await source.run((batch) => this.handle(batch), (err) => this.error(`consumer: ${err.message}`));
      } catch (err) {
        if (!this.stopped && !(err instanceof Stopped)) this.error(`consumer: ${(err as Error).message}`);
      }
      await source.stop();
      if (!this.stopped) await sleep(2_000);
    }
    this.flush();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.source?.stop();
    await this.done;
    clearTimeout(this.flushing);
    await this.writeStatus();
  }

  private async handle(batch: SourceBatch): Promise<void> {
    if (this.stopped) throw new Stopped();
    const rows: string[][] = [];
    const offsets: number[] = [];
    for (const r of batch.records) {
      try {
        rows.push(readRecord(r.value, this.format, this.limits.maxRecordBytes));
        offsets.push(r.offset);
      } catch (err) {
        this.reject(`${batch.partition} offset ${r.offset}: ${(err as Error).message}`);
      }
    }
    this.status.recordsRead = Number(this.status.recordsRead ?? 0) + batch.records.length;
    const last = batch.records[batch.records.length - 1].offset;
    if (rows.length > 0) await this.learn(batch.partition, batch.records[0].offset, last, rows, offsets);
    this.status.lag = batch.lag ?? this.status.lag;
    this.status.positions = { ...this.status.positions, [batch.partition]: last };
    this.status.lastBatchTime = Date.now();
    this.changed();
  }

  /** Learns rows (at `offsets`) covering source positions first..last; retries what may succeed later. */
  private async learn(partition: string, first: number, last: number, rows: string[][], offsets: number[]): Promise<void> {
    const { attributeNames, attributeTypes } = this.format;
    for (let attempt = 0; ; attempt++) {
      if (this.stopped) throw new Stopped();
      const req: sml.v1.ILearnRequest = {
        caller: { user: this.record.user, root: false, requestId: randomUUID() },
        pid: this.record.pid,
        // Lenient: a row with a bad cell is skipped and reported, the rest learned.
        frameJson: Buffer.from(JSON.stringify({ attributeNames, attributeTypes, data: rows, errorHandling: 1 })),
        streamPosition: { stream: this.record.instance, partition, firstOffset: first, lastOffset: last },
      };
      let failure: SmlError;
      try {
        // Sent again to the next holder should the projects replica die before answering: the
        // project's stream mark makes a batch learned twice an `alreadyLearned`.
        const subject = projectSubject('learn', this.record.user, this.record.pid);
        const reply = await this.client.request('projects', subject, sml.v1.LearnRequest, req, sml.v1.LearnReply, { failover: { probe: shardProbe(subject)!, resend: true } });
        if (isOk(reply.status)) {
          if (!reply.alreadyLearned) return this.learned(partition, first, last, rows.length, reply.learnReport);
          // Learned before (a redelivery): only what lies after the project's mark is new.
          const mark = Number(reply.streamMark);
          const keep = offsets.map((o, i) => [o, i] as const).filter(([o]) => o > mark);
          this.status.recordsSkipped = Number(this.status.recordsSkipped ?? 0) + rows.length - keep.length;
          if (keep.length === 0) return;
          rows = keep.map(([, i]) => rows[i]);
          offsets = keep.map(([o]) => o);
          first = mark + 1;
          attempt = -1;
          continue;
        }
        failure = errorFromStatus(reply.status!);
      } catch (err) {
        failure = err instanceof SmlError ? err : new SmlError('INTERNAL', 500, (err as Error).message, true);
      }
      if (failure.code === 'PROJECT_NOT_FOUND') {
        const reason = `Project [${this.record.pid}] no longer exists: the stream stopped`;
        this.error(reason);
        this.stopped = true;
        this.onProjectGone(reason);
        throw new Stopped();
      }
      if (failure.status >= 500 || failure.retryable || failure.code === 'PROJECT_FROZEN' || failure.code === 'PROJECT_UNLOADABLE') {
        // The project may take it later: the batch is not committed, so it waits here.
        this.error(`learn of ${partition} offsets ${first}-${last} (attempt ${attempt + 1}): ${failure.message}`);
        await sleep(Math.min(10_000, 250 * 2 ** Math.min(attempt, 6)));
        continue;
      }
      if (failure.code === 'BATCH_TOO_LARGE' && rows.length > 1) {
        // One log entry cannot hold it (max_payload): two halves, each a batch with its own mark.
        const mid = rows.length >> 1;
        await this.learn(partition, first, offsets[mid] - 1, rows.slice(0, mid), offsets.slice(0, mid));
        await this.learn(partition, offsets[mid], last, rows.slice(mid), offsets.slice(mid));
        return;
      }
      // Refused whole (a limit): its records are rejected and the stream goes on.
      this.status.recordsRejected = Number(this.status.recordsRejected ?? 0) + rows.length;
      this.error(`${partition} offsets ${first}-${last}: ${rows.length} records not learned: ${failure.message}`);
      return;
    }
  }

  private learned(partition: string, first: number, last: number, rows: number, report: sml.v1.ILearnReport | null | undefined): void {
    const skipped = Number(report?.rowsSkipped ?? 0);
    this.status.recordsLearned = Number(this.status.recordsLearned ?? 0) + (report ? Number(report.rowsLearned ?? 0) : rows - skipped);
    this.status.batchesLearned = Number(this.status.batchesLearned ?? 0) + 1;
    if (skipped > 0) {
      this.status.recordsRejected = Number(this.status.recordsRejected ?? 0) + skipped;
      for (const e of report?.errors ?? []) this.appendError(`${partition} offsets ${first}-${last}: ${e}`);
    }
  }

  private reject(message: string): void {
    this.status.recordsRejected = Number(this.status.recordsRejected ?? 0) + 1;
    this.appendError(message);
  }

  private error(message: string): void {
    this.log.warn({ stream: this.record.name, pid: this.record.pid, user: this.record.user }, message);
    this.status.lastError = message;
    this.status.lastErrorTime = Date.now();
    this.appendError(message);
  }

  private appendError(message: string): void {
    const log = [...(this.status.errorLog ?? []), `${new Date().toISOString()} ${message.slice(0, 1000)}`];
    this.status.errorLog = log.slice(-this.limits.errorLog);
    this.changed();
  }

  /** Counters reach KV at most every STATUS_EVERY_MS (metrics are read from any replica). */
  private changed(): void {
    this.dirty = true;
    this.flushing ??= setTimeout(() => this.flush(), STATUS_EVERY_MS);
  }

  private flush(): void {
    this.flushing = undefined;
    void this.writeStatus();
  }

  private async writeStatus(): Promise<void> {
    if (!this.dirty) return;
    this.dirty = false;
    await this.store.putStatus(this.key, this.status).catch((err) => this.log.warn({ err, stream: this.record.name }, 'stream status not written'));
  }
}

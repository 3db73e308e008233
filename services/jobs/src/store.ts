import type { KV, NatsConnection } from 'nats';
import { nameToken } from '@sml/core';
import { sml } from '@sml/proto';
import { JOB_IDS_STREAM, followKv } from '@sml/bus';

const Kind = sml.v1.JobEventKind;

/**
 * Job records in KV bucket sml_jobs under `<customer token>.<job id>`, so a customer can
 * only ever address its own jobs. Ids are the sequence numbers of the SML_JOB_IDS stream:
 * integers, increasing, never reused (a stream sequence never goes back, even after purge).
 */
export class JobStore {
  /** Every job's info by KV key, kept current by a KV watch, so listing never scans the bucket. */
  private readonly index = new Map<string, sml.v1.IJobInfo>();
  private watching?: { stop(): void };

  constructor(private readonly nc: NatsConnection, private readonly kv: KV) {}

  /** Loads the index and follows updates (from this replica and any other). */
  async start(): Promise<void> {
    let ready!: () => void;
    const initialized = new Promise<void>((resolve) => { ready = resolve; });
    // After a NATS restart the watch starts again and delivers every job's latest value again.
    this.watching = await followKv(this.nc, this.kv, { key: '>', initializedFn: () => ready() }, (e) => {
      if (e.operation === 'PUT') this.index.set(e.key, sml.v1.JobRecord.decode(e.value).info ?? {});
      else this.index.delete(e.key);
    });
    await initialized;
  }

  stop(): void {
    this.watching?.stop();
  }

  private key(user: string, jobId: number): string {
    return `${nameToken(user)}.${jobId}`;
  }

  async create(user: string, req: sml.v1.IJobCreateRequest): Promise<number> {
    const ack = await this.nc.jetstream().publish('sml.jobids', new TextEncoder().encode(user));
    const jobId = ack.seq;
    const record: sml.v1.IJobRecord = {
      user,
      state: 'queued',
      cancelSubject: req.cancelSubject ?? '',
      info: {
        jobId,
        jobType: req.jobType ?? '',
        owner: user,
        startingDate: Date.now(),
        maximum: Number(req.maximum ?? 0),
        current: 0,
        isOnBoundedExecutor: req.isOnBoundedExecutor ?? false,
        isStarted: false,
        isDone: false,
        details: { ...(req.details ?? {}) },
      },
    };
    await this.put(record);
    return jobId;
  }

  async get(user: string, jobId: number): Promise<sml.v1.JobRecord | undefined> {
    if (!Number.isSafeInteger(jobId) || jobId <= 0) return undefined;
    const entry = await this.kv.get(this.key(user, jobId));
    return entry && entry.operation === 'PUT' ? sml.v1.JobRecord.decode(entry.value) : undefined;
  }

  /** The caller's jobs, or every customer's when `user` is undefined; oldest first. */
  list(user?: string): sml.v1.IJobInfo[] {
    const prefix = user === undefined ? '' : `${nameToken(user)}.`;
    const out: sml.v1.IJobInfo[] = [];
    for (const [key, info] of this.index) if (key.startsWith(prefix)) out.push(info);
    return out.sort((a, b) => Number(a.jobId) - Number(b.jobId));
  }

  /**
   * Folds one event (stream sequence `seq`) into its job's record. Idempotent: an event at or
   * below the record's lastEventSeq was already applied before a crash and is skipped.
   */
  async fold(event: sml.v1.JobEvent, seq: number): Promise<void> {
    const record = await this.get(event.user, Number(event.jobId));
    if (!record || Number(record.lastEventSeq) >= seq) return;
    const info = record.info!;
    const details = (info.details ??= {});
    switch (event.kind) {
      case Kind.QUEUED:
        details.bounded_executor_queue_position = String(event.queuePosition);
        details.bounded_executor_queue_size = String(event.queueSize);
        break;
      case Kind.STARTED:
        delete details.bounded_executor_queue_position;
        info.isStarted = true;
        record.state = 'running';
        break;
      case Kind.PROGRESS:
        info.current = Number(event.current);
        info.maximum = Number(event.maximum);
        break;
      case Kind.FINISHED:
      case Kind.FAILED:
        delete details.bounded_executor_queue_position;
        info.isDone = true;
        if (event.kind === Kind.FINISHED) info.current = Number(info.maximum);
        record.state = event.kind === Kind.FINISHED ? 'finished' : 'failed';
        record.status = event.status;
        record.result = event.result;
        record.finishedDate = Number(event.time);
        break;
      default:
        return;
    }
    record.lastEventSeq = seq;
    await this.put(record);
  }

  private async put(record: sml.v1.IJobRecord): Promise<void> {
    const key = this.key(record.user!, Number(record.info!.jobId));
    await this.kv.put(key, sml.v1.JobRecord.encode(record).finish());
    // The watch will deliver it too; setting it now lets this replica list it at once.
    this.index.set(key, record.info!);
  }
}

export { JOB_IDS_STREAM };

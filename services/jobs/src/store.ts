import type { KV, NatsConnection } from 'nats';
import { nameToken } from '@sml/core';
import { sml } from '@sml/proto';
import { JOB_IDS_STREAM } from '@sml/bus';

const Kind = sml.v1.JobEventKind;

/**
 * Job records in KV bucket sml_jobs under `<customer token>.<job id>`, so a customer can
 * only ever address its own jobs. Ids are the sequence numbers of the SML_JOB_IDS stream:
 * integers, increasing, never reused (a stream sequence never goes back, even after purge).
 */
export class JobStore {
  constructor(private readonly nc: NatsConnection, private readonly kv: KV) {}

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
  async list(user?: string): Promise<sml.v1.JobRecord[]> {
    const keys: string[] = [];
    for await (const k of await this.kv.keys(user === undefined ? '>' : `${nameToken(user)}.*`)) keys.push(k);
    const records = await Promise.all(keys.map(async (k) => {
      const e = await this.kv.get(k);
      return e && e.operation === 'PUT' ? sml.v1.JobRecord.decode(e.value) : undefined;
    }));
    return records.filter((r): r is sml.v1.JobRecord => r !== undefined).sort((a, b) => Number(a.info!.jobId) - Number(b.info!.jobId));
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
    await this.kv.put(this.key(record.user!, Number(record.info!.jobId)), sml.v1.JobRecord.encode(record).finish());
  }
}

export { JOB_IDS_STREAM };

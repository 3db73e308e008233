import type { KV, KvEntry, NatsConnection } from 'nats';
import { nameToken } from '@sml/core';
import { sml } from '@sml/proto';
import { JOB_IDS_STREAM, JS_ERR, followKv, jsErrorCode } from '@sml/bus';

const Kind = sml.v1.JobEventKind;

/** A job whose record reached one of these keeps it: the first terminal state wins. */
const isTerminal = (state: string | null | undefined) => state === 'finished' || state === 'failed';

/** What the index keeps of a record: its info for listing, and its lease for expiry. */
interface Indexed {
  info: sml.v1.IJobInfo;
  /** Queued or running: its lease can expire. */
  live: boolean;
  leaseRenewed: number;
}

/** A record updated with compare-and-set gives up after this many conflicting writers. */
const MAX_CONFLICTS = 10;

/**
 * Job records in KV bucket sml_jobs under `<customer token>.<job id>`, so a customer can
 * only ever address its own jobs. Ids are the sequence numbers of the SML_JOB_IDS stream:
 * integers, increasing, never reused (a stream sequence never goes back, even after purge).
 *
 * A record is written by the folding of its events and by the expiry of its lease, possibly
 * from several replicas: every update of an existing record is a compare-and-set on its KV
 * revision, so neither overwrites the other, and a record in a terminal state is never
 * changed again (the first of finished, failed, cancelled or expired wins).
 */
export class JobStore {
  /** Every job's info and lease by KV key, kept current by a KV watch, so listing never scans the bucket. */
  private readonly index = new Map<string, Indexed>();
  private watching?: { stop(): void };

  constructor(private readonly nc: NatsConnection, private readonly kv: KV) {}

  /** Loads the index and follows updates (from this replica and any other). */
  async start(): Promise<void> {
    let ready!: () => void;
    const initialized = new Promise<void>((resolve) => { ready = resolve; });
    // After a NATS restart the watch starts again and delivers every job's latest value again.
    this.watching = await followKv(this.nc, this.kv, { key: '>', initializedFn: () => ready() }, (e) => {
      if (e.operation === 'PUT') this.indexRecord(e.key, sml.v1.JobRecord.decode(e.value));
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

  private indexRecord(key: string, record: sml.v1.IJobRecord): void {
    this.index.set(key, { info: record.info ?? {}, live: !isTerminal(record.state), leaseRenewed: Number(record.leaseRenewed ?? 0) });
  }

  async create(user: string, req: sml.v1.IJobCreateRequest): Promise<number> {
    const ack = await this.nc.jetstream().publish('sml.jobids', new TextEncoder().encode(user));
    const jobId = ack.seq;
    const now = Date.now();
    const record: sml.v1.IJobRecord = {
      user,
      state: 'queued',
      cancelSubject: req.cancelSubject ?? '',
      runner: req.runner ?? '',
      runnerInstance: req.runnerInstance ?? '',
      leaseRenewed: now,
      info: {
        jobId,
        jobType: req.jobType ?? '',
        owner: user,
        startingDate: now,
        maximum: Number(req.maximum ?? 0),
        current: 0,
        isOnBoundedExecutor: req.isOnBoundedExecutor ?? false,
        isStarted: false,
        isDone: false,
        details: { ...(req.details ?? {}) },
      },
    };
    const key = this.key(user, jobId);
    await this.kv.put(key, sml.v1.JobRecord.encode(record).finish());
    // The watch will deliver it too; setting it now lets this replica list it at once.
    this.indexRecord(key, record);
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
    for (const [key, { info }] of this.index) if (key.startsWith(prefix)) out.push(info);
    return out.sort((a, b) => Number(a.jobId) - Number(b.jobId));
  }

  /**
   * Folds one event (stream sequence `seq`) into its job's record. Idempotent: an event at or
   * below the record's lastEventSeq was already applied before a crash and is skipped. Every
   * event of an unfinished job renews its lease; an event of a finished, failed or expired
   * job changes nothing (a runner that was only stalled may still finish it: too late).
   */
  async fold(event: sml.v1.JobEvent, seq: number): Promise<void> {
    const key = this.key(event.user, Number(event.jobId));
    await this.update(key, (record) => {
      if (Number(record.lastEventSeq) >= seq || isTerminal(record.state)) return false;
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
        case Kind.HEARTBEAT:
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
          return false;
      }
      record.leaseRenewed = Date.now();
      record.lastEventSeq = seq;
      return true;
    });
  }

  /** Keys of the unfinished jobs whose lease was last renewed at or before `cutoff` (ms). */
  silentSince(cutoff: number): string[] {
    const out: string[] = [];
    for (const [key, job] of this.index) if (job.live && job.leaseRenewed <= cutoff) out.push(key);
    return out;
  }

  /**
   * Fails the job under `key` with `failure` if it is still unfinished and its lease was last
   * renewed at or before `cutoff`, as read at the write (an event folded meanwhile wins).
   * Returns the failed record, or undefined when the job had finished or was renewed.
   */
  async expire(key: string, cutoff: number, failure: (record: sml.v1.IJobRecord) => sml.v1.IStatus): Promise<sml.v1.IJobRecord | undefined> {
    let expired: sml.v1.IJobRecord | undefined;
    await this.update(key, (record) => {
      if (isTerminal(record.state) || Number(record.leaseRenewed ?? 0) > cutoff) return false;
      const info = record.info!;
      delete info.details?.bounded_executor_queue_position;
      info.isDone = true;
      record.state = 'failed';
      record.status = failure(record);
      record.finishedDate = Date.now();
      expired = record;
      return true;
    });
    return expired;
  }

  /**
   * Read-modify-write of one record as a compare-and-set on its revision, again from a fresh
   * read when another writer came first. `change` edits the record and says whether to write.
   */
  private async update(key: string, change: (record: sml.v1.JobRecord) => boolean): Promise<void> {
    for (let conflicts = 0; ; conflicts++) {
      const entry: KvEntry | null = await this.kv.get(key);
      if (!entry || entry.operation !== 'PUT') return;
      const record = sml.v1.JobRecord.decode(entry.value);
      if (!change(record)) return;
      try {
        await this.kv.update(key, sml.v1.JobRecord.encode(record).finish(), entry.revision);
        this.indexRecord(key, record);
        return;
      } catch (err) {
        if (jsErrorCode(err) !== JS_ERR.WRONG_LAST_SEQUENCE || conflicts >= MAX_CONFLICTS) throw err;
      }
    }
  }
}

export { JOB_IDS_STREAM };

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
  /** The KV revision it was read from: the index never goes back to an older one. */
  revision: number;
}

/** A record updated with compare-and-set gives up after this many conflicting writers. */
const MAX_CONFLICTS = 10;

/** The latest records this replica wrote or read, kept up to this many bytes in all; a larger record is never kept. */
const RECORD_CACHE_BYTES = 16 * 2 ** 20;
const RECORD_CACHE_MAX_RECORD = 2 ** 20;

/** A record as stored, at its KV revision, and when this replica learnt it. */
interface Cached {
  value: Uint8Array;
  revision: number;
  at: number;
}

export interface JobStoreOptions {
  /** The bucket's TTL (SML_JOB_TTL_MS): a record kept longer than this is read again (it may have expired). */
  ttlMs?: number;
}

/**
 * Gets of unfinished jobs waiting for a change (JobStore.get's `waitMs`) at once, per customer
 * and in all on one replica: beyond either, a get answers at once, as without waiting.
 */
export const MAX_WAITING_GETS_PER_CUSTOMER = 16;
export const MAX_WAITING_GETS = 1024;

/**
 * Job records in KV bucket sml_jobs under `<customer token>.<job id>`, so a customer can
 * only ever address its own jobs. Ids are the sequence numbers of the SML_JOB_IDS stream:
 * integers, unique, never reused (a stream sequence never goes back, even after purge),
 * increasing in the order one replica creates its jobs (each allocated one create ahead:
 * `nextId`).
 *
 * A record is written by the folding of its events and by the expiry of its lease, possibly
 * from several replicas: every update of an existing record is a compare-and-set on its KV
 * revision, so neither overwrites the other, and a record in a terminal state is never
 * changed again (the first of finished, failed, cancelled or expired wins).
 *
 * The latest records are also kept in memory with their revision (`records`, bounded): a
 * fold, an expiry and a get start from there instead of a KV read. Every write is still a
 * compare-and-set on the revision, so a kept record that another replica changed meanwhile
 * costs one failed write and a fresh read, never a lost update; the KV watch brings such
 * changes in too. A get answers from memory what this replica wrote, read or was told
 * by the watch: never older than the last state it answered, and behind another replica's
 * write only by the watch's delay (a direct KV read of a replicated bucket can be too).
 */
export class JobStore {
  /** Every job's info and lease by KV key, kept current by a KV watch, so listing never scans the bucket. */
  private readonly index = new Map<string, Indexed>();
  private watching?: { stop(): void };
  /** The latest records by KV key, oldest write first (see the class comment). */
  private readonly records = new Map<string, Cached>();
  private recordBytes = 0;
  private readonly ttlMs: number;
  /** The next job id, allocated ahead (see `nextId`). */
  private spareId?: Promise<number>;
  /** Gets waiting for a record to change (`get`), by KV key; and how many per customer token. */
  private readonly waiting = new Map<string, Set<() => void>>();
  private readonly waitingPerCustomer = new Map<string, number>();
  private waitingCount = 0;

  constructor(private readonly nc: NatsConnection, private readonly kv: KV, opts: JobStoreOptions = {}) {
    this.ttlMs = opts.ttlMs ?? Infinity;
  }

  /** Loads the index and follows updates (from this replica and any other). */
  async start(): Promise<void> {
    let ready!: () => void;
    const initialized = new Promise<void>((resolve) => { ready = resolve; });
    // After a NATS restart the watch starts again and delivers every job's latest value again.
    this.watching = await followKv(this.nc, this.kv, { key: '>', initializedFn: () => ready() }, (e) => {
      if (e.operation === 'PUT') {
        // This replica's own write comes back indexed already: not decoded again (a finished record carries its result).
        if ((this.index.get(e.key)?.revision ?? 0) >= e.revision) return;
        this.indexRecord(e.key, sml.v1.JobRecord.decode(e.value), e.revision);
        // Another replica's write of a record kept here.
        if (this.records.has(e.key)) this.remember(e.key, e.value, e.revision);
      } else {
        this.index.delete(e.key);
        this.forget(e.key);
        this.changed(e.key);
      }
    }, { onReset: () => this.clearRecords() });
    await initialized;
  }

  stop(): void {
    this.watching?.stop();
    for (const key of [...this.waiting.keys()]) this.changed(key);
  }

  /** A new job id: the sequence of a new message on `sml.jobids` (unique and never reused, whichever replica allocates it). */
  private allocateId(): Promise<number> {
    const id = this.nc.jetstream().publish('sml.jobids', new Uint8Array(0)).then((ack) => ack.seq);
    id.catch(() => undefined); // a spare that fails is the failure of the create that takes it
    return id;
  }

  /**
   * The id of a job being created: the one allocated ahead by the previous create, if any,
   * and the next one is allocated at once, so that a create waits for one JetStream round
   * trip (its record) instead of two. Ids are taken in allocation order, so one replica hands
   * them out increasing; a spare id not used when the replica stops is never used by anyone.
   */
  private async nextId(): Promise<number> {
    const id = this.spareId ?? this.allocateId();
    this.spareId = undefined;
    const jobId = await id;
    this.spareId ??= this.allocateId();
    return jobId;
  }

  /**
   * Keeps `value` as the record under `key` at `revision` (see the class comment), unless a
   * later revision is kept: a read answered after a newer write must not take its place.
   */
  private remember(key: string, value: Uint8Array, revision: number): void {
    const kept = this.records.get(key);
    if (kept && kept.revision >= revision) return;
    this.forget(key);
    if (value.length > RECORD_CACHE_MAX_RECORD) return;
    this.records.set(key, { value, revision, at: Date.now() });
    this.recordBytes += value.length;
    for (const [oldest, { value: v }] of this.records) {
      if (this.recordBytes <= RECORD_CACHE_BYTES) break;
      this.records.delete(oldest);
      this.recordBytes -= v.length;
    }
  }

  private forget(key: string): void {
    const kept = this.records.get(key);
    if (!kept) return;
    this.records.delete(key);
    this.recordBytes -= kept.value.length;
  }

  /** After a reconnection nothing kept is trusted: the bucket may have changed unseen. */
  private clearRecords(): void {
    this.records.clear();
    this.recordBytes = 0;
  }

  /** The record under `key` as kept here, else as read from KV (then kept); undefined when there is none. */
  private async current(key: string, fresh = false): Promise<Cached | undefined> {
    const kept = this.records.get(key);
    // A record is not kept past the bucket's TTL: KV may have expired it.
    if (kept && Date.now() - kept.at >= this.ttlMs) this.forget(key);
    else if (kept && !fresh) return kept;
    const entry: KvEntry | null = await this.kv.get(key);
    if (!entry || entry.operation !== 'PUT') {
      this.forget(key);
      return undefined;
    }
    this.remember(key, entry.value, entry.revision);
    // What is kept now: this read, or a later write that came meanwhile (a record too large to keep: the read).
    const now = this.records.get(key);
    return now && now.revision >= entry.revision ? now : { value: entry.value, revision: entry.revision, at: Date.now() };
  }

  private key(user: string, jobId: number): string {
    return `${nameToken(user)}.${jobId}`;
  }

  private indexRecord(key: string, record: sml.v1.IJobRecord, revision: number): void {
    if ((this.index.get(key)?.revision ?? 0) >= revision) return;
    this.index.set(key, { info: record.info ?? {}, live: !isTerminal(record.state), leaseRenewed: Number(record.leaseRenewed ?? 0), revision });
    // Every new revision passes here: this replica's writes, and every replica's through the watch.
    this.changed(key);
  }

  /** Wakes the gets waiting for the record under `key`. */
  private changed(key: string): void {
    const wake = this.waiting.get(key);
    if (!wake) return;
    this.waiting.delete(key);
    for (const w of wake) w();
  }

  /**
   * Resolves when the record under `key` has a revision after `revision` (indexed), or after
   * `ms`; at once when the wait is not allowed (MAX_WAITING_GETS*) or the record moved already.
   */
  private async changeAfter(key: string, customer: string, revision: number, ms: number): Promise<void> {
    const mine = this.waitingPerCustomer.get(customer) ?? 0;
    if ((this.index.get(key)?.revision ?? 0) > revision || mine >= MAX_WAITING_GETS_PER_CUSTOMER || this.waitingCount >= MAX_WAITING_GETS) return;
    this.waitingPerCustomer.set(customer, mine + 1);
    this.waitingCount++;
    try {
      await new Promise<void>((resolve) => {
        const wakers = this.waiting.get(key) ?? new Set<() => void>();
        this.waiting.set(key, wakers);
        const wake = () => {
          clearTimeout(timer);
          wakers.delete(wake);
          // A wait that timed out leaves no empty set behind (changed() removes the key itself).
          if (wakers.size === 0 && this.waiting.get(key) === wakers) this.waiting.delete(key);
          resolve();
        };
        const timer = setTimeout(wake, ms);
        wakers.add(wake);
      });
    } finally {
      this.waitingCount--;
      const left = (this.waitingPerCustomer.get(customer) ?? 1) - 1;
      if (left > 0) this.waitingPerCustomer.set(customer, left);
      else this.waitingPerCustomer.delete(customer);
    }
  }

  async create(user: string, req: sml.v1.IJobCreateRequest): Promise<number> {
    const jobId = await this.nextId();
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
    const value = sml.v1.JobRecord.encode(record).finish();
    const revision = await this.kv.put(key, value);
    this.remember(key, value, revision);
    // The watch will deliver it too; setting it now lets this replica list it at once.
    this.indexRecord(key, record, revision);
    return jobId;
  }

  /**
   * The record of a job. With `waitMs`, a job still queued or running is read again once its
   * record changes (an event folded here or by another replica, an expiry), or after `waitMs`,
   * whichever comes first: a client polling a short job gets its end as soon as it is
   * recorded, not at its next poll, and a client polling in a loop polls at most once per
   * `waitMs` while nothing happens. Bounded by MAX_WAITING_GETS_PER_CUSTOMER and MAX_WAITING_GETS.
   */
  async get(user: string, jobId: number, waitMs = 0): Promise<sml.v1.JobRecord | undefined> {
    if (!Number.isSafeInteger(jobId) || jobId <= 0) return undefined;
    const key = this.key(user, jobId);
    let kept = await this.current(key);
    if (kept && waitMs > 0) {
      const record = sml.v1.JobRecord.decode(kept.value);
      if (isTerminal(record.state)) return record;
      await this.changeAfter(key, nameToken(user), kept.revision, waitMs);
      kept = await this.current(key);
    }
    return kept ? sml.v1.JobRecord.decode(kept.value) : undefined;
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
          // A job that finished ran, with or without a STARTED event (a short job publishes none).
          if (event.kind === Kind.FINISHED) {
            info.current = Number(info.maximum);
            info.isStarted = true;
          }
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
   * Read-modify-write of one record as a compare-and-set on its revision, starting from the
   * record kept here (if any), again from a fresh read when another writer came first.
   * `change` edits the record and says whether to write.
   */
  private async update(key: string, change: (record: sml.v1.JobRecord) => boolean): Promise<void> {
    let kept = await this.current(key);
    for (let conflicts = 0; ; conflicts++) {
      if (!kept) return;
      const record = sml.v1.JobRecord.decode(kept.value);
      if (!change(record)) return;
      const value = sml.v1.JobRecord.encode(record).finish();
      try {
        const revision = await this.kv.update(key, value, kept.revision);
        this.remember(key, value, revision);
        this.indexRecord(key, record, revision);
        return;
      } catch (err) {
        if (jsErrorCode(err) !== JS_ERR.WRONG_LAST_SEQUENCE || conflicts >= MAX_CONFLICTS) throw err;
        kept = await this.current(key, true);
      }
    }
  }
}

export { JOB_IDS_STREAM };

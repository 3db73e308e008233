import { randomUUID } from 'node:crypto';
import type { KvEntry } from 'nats';
import { HeldLeases, okStatus, projectSubject, unwrap, type BusClient, type Leases, type Presence } from '@sml/bus';
import { checkName, smlError, type Logger } from '@sml/core';
import { sml } from '@sml/proto';
import { dropKafka, kafkaSettings, prepareKafka, startsEarliest } from './kafka-source';
import { dropNats, natsSettings, prepareNats } from './nats-source';
import { recordFormat } from './records';
import { StreamRunner, type RunnerLimits } from './runner';
import { StreamStore } from './store';

export const STREAM_TYPES = ['kafka', 'nats'] as const;
/** A DSInfo is one KV record: at most this many bytes (as data sources). */
const MAX_DSINFO_BYTES = 64 * 1024;

export interface StreamsOptions {
  maxPerCustomer: number;
  leaseMs: number;
  runner: RunnerLimits;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Streams (API.md §9): definitions and their lifecycle, and which of them this replica runs.
 * Every replica watches sml_streams; a running stream is taken by whichever replica gets its
 * lease (lease.ts) and runs there alone until it stops, is deleted, or the replica dies (then
 * another takes it over once the lease expired; a replica NATS does not answer keeps running
 * its streams until two thirds of a lease after its last answered renewal, HeldLeases). Stop
 * and delete answer once the replica running the stream has let it go, so nothing is learned
 * after they answered.
 */
export class Streams {
  private readonly running = new Map<string, StreamRunner>();
  private readonly held: HeldLeases;
  private timer?: NodeJS.Timeout;
  private watching?: { stop(): void };
  private closed = false;
  /** Live streams replicas at the last answered presence round (this one included). */
  private replicas = 1;
  /** A lease round is running: the next one is skipped rather than piled on it (NATS slow to answer). */
  private ticking = false;

  constructor(
    private readonly store: StreamStore,
    leases: Leases,
    private readonly presence: Presence,
    private readonly client: BusClient,
    private readonly log: Logger,
    private readonly opts: StreamsOptions,
  ) {
    // The only live replica keeps its streams however long NATS is slow to answer: nobody
    // else could run them, and what a stream writes is fenced by its marks besides.
    this.held = new HeldLeases(leases, opts.leaseMs, (key) => {
      this.log.warn({ key }, 'stream lease renewals not answered for two thirds of a lease: stopping it here');
      void this.stopHere(key);
    }, () => this.replicas <= 1, (key) => {
      this.log.warn({ key }, 'stream lease renewals not answered for two thirds of a lease; no other live replica can run it: still running it here');
    });
  }

  async create(user: string, pid: string, ds: sml.v1.IDsInfo, fromBeginning: boolean): Promise<sml.v1.IStatus> {
    const type = (ds.type ?? '').toLowerCase();
    if (!(STREAM_TYPES as readonly string[]).includes(type)) throw smlError('STREAM_UNKNOWN_TYPE', { user, type: ds.type ?? '' });
    const name = checkName('stream', ds.name);
    checkName('project', pid);
    const bytes = sml.v1.DsInfo.encode(ds).finish().length;
    if (bytes > MAX_DSINFO_BYTES) throw smlError('STREAM_INVALID', { stream: name, detail: `the DSInfo is ${bytes} bytes, more than ${MAX_DSINFO_BYTES}` });
    recordFormat(ds);
    const instance = randomUUID().replace(/-/g, '');
    const settings = type === 'kafka' ? kafkaSettings(ds, instance) : natsSettings(ds, instance);
    // The project must exist (400 otherwise), as the stream's customer sees it.
    unwrap(await this.client.request('projects', projectSubject('info', user, pid), sml.v1.ProjectRequest, { caller: { user, root: false }, pid }, sml.v1.ProjectInfoReply));
    if (await this.store.get(user, pid, name)) throw smlError('STREAM_EXISTS', { user, pid, stream: name });
    const count = await this.store.count(user);
    if (count >= this.opts.maxPerCustomer) throw smlError('STREAM_LIMIT', { user, count, variable: `SML_MAX_STREAMS_PER_CUSTOMER = ${this.opts.maxPerCustomer}` });
    let startOffsets: Record<string, number> = {};
    if (type === 'kafka') {
      fromBeginning ||= startsEarliest(ds);
      startOffsets = await prepareKafka(settings as ReturnType<typeof kafkaSettings>, fromBeginning, this.log, name);
    } else await prepareNats(settings as ReturnType<typeof natsSettings>, fromBeginning, name);
    const record: sml.v1.IStreamRecord = { user, pid, name, dsInfo: { ...ds, type, name }, instance, running: true, fromBeginning, creationDate: Date.now(), startOffsets };
    try {
      await this.store.create(record);
    } catch (err) {
      await this.dropConsumer(record);
      throw err;
    }
    this.log.info({ user, pid, stream: name, type }, 'stream created');
    void this.take(StreamStore.key(user, pid, name));
    return okStatus('STREAM_CREATED', { stream: name, user });
  }

  async start(user: string, pid: string, stream: string): Promise<sml.v1.IStatus> {
    const { record, revision } = await this.get(user, pid, stream);
    if (!record.running) await this.store.update({ ...record, running: true, lastError: '' }, revision);
    void this.take(StreamStore.key(user, pid, stream));
    return okStatus('STREAM_STARTED', { stream, pid });
  }

  async stop(user: string, pid: string, stream: string): Promise<sml.v1.IStatus> {
    const { record, revision } = await this.get(user, pid, stream);
    if (record.running) await this.store.update({ ...record, running: false }, revision);
    await this.released(StreamStore.key(user, pid, stream));
    return okStatus('STREAM_STOPPED', { stream, pid });
  }

  async delete(user: string, pid: string, stream: string): Promise<sml.v1.IStatus> {
    const { record } = await this.get(user, pid, stream);
    await this.store.delete(user, pid, stream);
    await this.released(StreamStore.key(user, pid, stream));
    await this.dropConsumer(record);
    await this.dropMarks(record);
    this.log.info({ user, pid, stream }, 'stream deleted');
    return okStatus('STREAM_DELETED', { stream, pid });
  }

  /**
   * The deleted stream's marks leave its project. Best effort: the project may be gone, and a
   * mark left behind costs a few bytes of the project's snapshot. A runner of another replica
   * that has not stopped yet may still learn a batch and mark it again.
   */
  private async dropMarks(record: sml.v1.IStreamRecord): Promise<void> {
    const user = record.user ?? '';
    const pid = record.pid ?? '';
    try {
      unwrap(await this.client.request('projects', projectSubject('dropStreamMarks', user, pid), sml.v1.DropStreamMarksRequest,
        { caller: { user, root: false }, pid, stream: record.instance }, sml.v1.Empty));
    } catch (err) {
      this.log.warn({ err, user, pid, stream: record.name }, 'stream marks not dropped');
    }
  }

  list(user: string, pid: string): Promise<string[]> {
    return this.store.list(user, pid);
  }

  /** metrics: one string map (API.md §12); credentials never appear. */
  async metrics(user: string, pid: string, stream: string): Promise<Record<string, string>> {
    const { record } = await this.get(user, pid, stream);
    const s = (await this.store.getStatus(StreamStore.key(user, pid, stream))) ?? sml.v1.StreamStatus.create();
    const info = record.dsInfo?.info ?? {};
    const source: Record<string, string> = record.dsInfo?.type === 'nats' ? { subject: info['nats.subject'] ?? '' } : { topic: info['kafka.topic'] ?? '' };
    return {
      name: record.name, type: record.dsInfo?.type ?? '', ...source,
      state: record.running ? 'running' : 'stopped',
      // The replica (its random instance id) that ran the stream last.
      replica: s.owner ?? '',
      recordsRead: String(s.recordsRead), recordsLearned: String(s.recordsLearned), recordsRejected: String(s.recordsRejected),
      recordsSkipped: String(s.recordsSkipped), batchesLearned: String(s.batchesLearned), lag: String(s.lag),
      lastError: record.lastError || s.lastError, lastErrorTime: s.lastErrorTime ? new Date(Number(s.lastErrorTime)).toISOString() : '',
      lastBatchTime: s.lastBatchTime ? new Date(Number(s.lastBatchTime)).toISOString() : '',
      positions: JSON.stringify(s.positions ?? {}),
      creationDate: String(record.creationDate),
    };
  }

  async errorLog(user: string, pid: string, stream: string): Promise<string[]> {
    await this.get(user, pid, stream);
    return (await this.store.getStatus(StreamStore.key(user, pid, stream)))?.errorLog ?? [];
  }

  private async get(user: string, pid: string, stream: string): Promise<{ record: sml.v1.StreamRecord; revision: number }> {
    const found = await this.store.get(user, checkName('project', pid), checkName('stream', stream));
    if (!found) throw smlError('STREAM_NOT_FOUND', { stream, pid, user });
    return found;
  }

  private async dropConsumer(record: sml.v1.IStreamRecord): Promise<void> {
    const ds = record.dsInfo ?? {};
    if (ds.type === 'nats') await dropNats(natsSettings(ds, record.instance!), this.log);
    else await dropKafka(kafkaSettings(ds, record.instance!), this.log);
  }

  /** Waits until no replica holds the stream's lease (the one running it reacts to the KV change at once). */
  private async released(key: string): Promise<void> {
    await this.let(key);
    const deadline = Date.now() + 2 * this.opts.leaseMs;
    while (Date.now() < deadline) {
      const e = await this.store.leases.get(key);
      if (!e || e.operation !== 'PUT' || Number(sml.v1.StreamLease.decode(e.value).until) < Date.now()) return;
      await sleep(50);
    }
  }

  /** Starts watching the definitions and renewing leases: runs every running stream no live replica holds. */
  async begin(): Promise<void> {
    const w = await this.store.defs.watch({ key: '>' });
    this.watching = w;
    void (async () => {
      for await (const e of w) void this.changed(e).catch((err: unknown) => this.log.warn({ err, key: e.key }, 'stream change not handled'));
    })();
    this.timer = setInterval(() => void this.round(), Math.max(200, Math.floor(this.opts.leaseMs / 3)));
  }

  async end(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.watching?.stop();
    await Promise.all([...this.running.keys()].map((k) => this.let(k)));
    await this.presence.leave();
  }

  private async changed(e: KvEntry): Promise<void> {
    if (e.operation !== 'PUT' || !sml.v1.StreamRecord.decode(e.value).running) await this.let(e.key);
    else await this.take(e.key);
  }

  private async round(): Promise<void> {
    // A renewal waits for NATS up to its timeout, longer than a round: rounds must not overlap.
    // Leases that go unanswered meanwhile are given up by their own timers (HeldLeases).
    if (this.ticking) return;
    this.ticking = true;
    try {
      await this.tick();
    } catch (err) {
      this.log.warn({ err }, 'stream lease round failed');
    } finally {
      this.ticking = false;
    }
  }

  /**
   * Renews this replica's leases (a lost one stops its stream here; so does one NATS did not
   * answer for two thirds of a lease, by its timer), says it is alive, and balances: a replica
   * runs at most its share, ⌈running streams / live replicas⌉. Over it, it gives one stream up
   * per round (a replica under its share takes it at its next round); under it, it takes
   * running streams nobody holds. (A stream created or started here is taken here at once
   * whatever the share, and moved later if need be.)
   */
  private async tick(): Promise<void> {
    const { lost, unanswered } = await this.held.renewAll();
    for (const key of unanswered) this.log.warn({ key }, 'stream lease renewal not answered; still running it here');
    for (const key of lost) {
      this.log.warn({ key }, 'stream lease lost: stopping it here');
      await this.stopHere(key);
    }
    const replicas = await this.presence.beat();
    this.replicas = replicas;
    const candidates: string[] = [];
    for (const key of await this.store.keys()) {
      if (!this.running.has(key) && (await this.store.getByKey(key))?.running) candidates.push(key);
    }
    const share = Math.ceil((this.running.size + candidates.length) / replicas);
    if (this.running.size > share) {
      const [key] = [...this.running.keys()].slice(-1);
      this.log.info({ key, share, replicas }, 'stream given up for another replica to run (balancing)');
      await this.let(key);
      return;
    }
    for (const key of candidates) if (this.running.size < share) await this.take(key);
  }

  private readonly pending = new Set<string>();

  /** Runs the stream here if it is running and its lease can be had. */
  private async take(key: string): Promise<void> {
    if (this.closed || this.running.has(key) || this.pending.has(key)) return;
    this.pending.add(key);
    try {
      const record = await this.store.getByKey(key);
      if (!record?.running) return;
      if (!(await this.held.take(key))) return;
      const runner = new StreamRunner(key, record, this.store, this.client, this.opts.runner, this.log, (reason) => void this.projectGone(key, reason));
      this.running.set(key, runner);
      await runner.start(this.held.owner);
      this.log.info({ user: record.user, pid: record.pid, stream: record.name }, 'stream running here');
    } catch (err) {
      this.log.warn({ err, key }, 'stream not started');
    } finally {
      this.pending.delete(key);
    }
  }

  /** Stops the stream's runner here, its lease lost or expired (not released: it is not this replica's to give). */
  private async stopHere(key: string): Promise<void> {
    const runner = this.running.get(key);
    this.running.delete(key);
    await runner?.stop();
  }

  /** Stops the stream here (if it runs here) and gives its lease up. */
  private async let(key: string): Promise<void> {
    const runner = this.running.get(key);
    if (!runner) return;
    this.running.delete(key);
    await runner.stop();
    await this.held.release(key);
  }

  private async projectGone(key: string, reason: string): Promise<void> {
    const e = await this.store.defs.get(key);
    if (e && e.operation === 'PUT') {
      const record = sml.v1.StreamRecord.decode(e.value);
      await this.store.update({ ...record, running: false, lastError: reason }, e.revision).catch(() => undefined);
    }
    await this.let(key);
  }
}

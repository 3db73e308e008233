import type { Logger } from '@sml/core';
import { smlError } from '@sml/core';
import type { sml } from '@sml/proto';
import { ProjectState, type ProjectLimits } from './project';
import type { DropReason } from './project-states';
import { IDEMPOTENCY_WINDOW_MS, splitMessageId } from '../learning/idempotency';
import type { OnlineRunner } from '../predict/online-pool';
import { ONLINE_BACKLOG } from '../predict/online-updates';
import type { ProjectStorage } from '../ports';
import { ProjectStore } from '../store/store';

/** Tries of one snapshot (ProjectRegistry.save), the n-th retry after n × SNAPSHOT_RETRY_MS. */
const SNAPSHOT_TRIES = 3;
const SNAPSHOT_RETRY_MS = 1000;

export interface RegistryOptions {
  /** Snapshot a dirty project after this many logged batches. */
  snapshotEveryBatches: number;
  /** Snapshot dirty projects at least this often. */
  snapshotEveryMs: number;
  limits: ProjectLimits;
  /** Projects one customer may have (SML_MAX_PROJECTS_PER_CUSTOMER). */
  maxProjectsPerCustomer: number;
  /**
   * Whether this replica may write snapshots (it holds the projects lease, ownership.ts). A
   * snapshot trims the log: one from a replica that lost the lease could hide the new
   * holder's batches. Default: always.
   */
  holdsLease?: (user: string, pid: string) => boolean;
  /** The shard of a project (SML_PROJECT_SHARDS; default: one shard, 0). */
  shardOf?: (user: string, pid: string) => number;
  /**
   * Where projects' online models (forest, micro-clusters) learn their batches (the process's
   * OnlinePool): off the event loop. Default: in the batch's commit, on the caller's thread.
   */
  online?: OnlineRunner;
}

/**
 * The projects this process has in memory. A project is loaded lazily (snapshot + replay of
 * the log after it) and every operation on it runs under its own lock, so batches are logged
 * and applied in one order. Memory-only projects (persist=false) live only here.
 */
export class ProjectRegistry {
  private readonly loaded = new Map<string, ProjectState>();
  private readonly loading = new Map<string, Promise<ProjectState>>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private timer?: NodeJS.Timeout;
  /** Projects whose snapshot afterBatch left for when their online models have learned (at most one each). */
  private readonly savesAfterOnline = new WeakSet<ProjectState>();
  /** Batches quarantined by this process since it started (reported in $SRV.STATS). */
  quarantinedTotal = 0;

  constructor(private readonly store: ProjectStorage, private readonly log: Logger, private readonly opts: RegistryOptions) {}

  start(): void {
    this.timer = setInterval(() => void this.snapshotDirty(), this.opts.snapshotEveryMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.snapshotDirty();
  }

  /** A project's metadata without loading it (a project that cannot be loaded still has one); undefined when unknown. */
  async metaOf(user: string, pid: string): Promise<sml.v1.IProjectMeta | undefined> {
    return this.loaded.get(ProjectStore.key(user, pid))?.meta ?? (await this.store.getMeta(user, pid));
  }

  isLoaded(user: string, pid: string): boolean {
    return this.loaded.has(ProjectStore.key(user, pid));
  }

  /** Creates a project; `leftovers` removes what other stores may still hold under its id (its models). */
  async create(meta: sml.v1.IProjectMeta, leftovers?: () => Promise<void>): Promise<ProjectState> {
    const key = ProjectStore.key(meta.user!, meta.pid!);
    if (this.loaded.get(key)?.memoryOnly || (await this.store.getMeta(meta.user!, meta.pid!))) {
      throw smlError('PROJECT_EXISTS', { user: meta.user, pid: meta.pid });
    }
    const count = (await this.list(meta.user!)).length;
    if (count >= this.opts.maxProjectsPerCustomer) {
      throw smlError('PROJECT_LIMIT', { user: meta.user, count, variable: `SML_MAX_PROJECTS_PER_CUSTOMER = ${this.opts.maxProjectsPerCustomer}` });
    }
    const project = this.online(ProjectState.fresh(meta, this.opts.limits));
    // What an interrupted delete or import left under this id is not the new project's.
    await this.store.removeData(meta.user!, meta.pid!);
    await leftovers?.();
    // kv.create refuses an existing key too, so two racing creates cannot both succeed.
    if (meta.persist) await this.store.createMeta(meta);
    this.drop(key, 'evicted'); // a state of an id whose metadata is gone is not the new project's
    this.loaded.set(key, project);
    return project;
  }

  /**
   * Runs `fn` on the project under its lock, loading it first if needed. `fn` sees a summary
   * whose online models learned every batch committed before (ProjectState.onlineSettled),
   * unless `pendingOnline`: learn and forget, which neither read nor wait for them (a learn's
   * log append never waits behind a forest's update; Learning bounds the backlog).
   */
  async with<T>(user: string, pid: string, fn: (p: ProjectState) => Promise<T> | T, opts: { pendingOnline?: boolean } = {}): Promise<T> {
    return this.locked(user, pid, async () => {
      const p = await this.get(user, pid);
      if (!opts.pendingOnline) await p.onlineSettled();
      return fn(p);
    });
  }

  /** The project with its online models learning on the process's threads (RegistryOptions.online), when it has any. */
  private online(project: ProjectState): ProjectState {
    const runner = this.opts.online;
    if (!runner) return project;
    const { user, pid } = project.meta;
    project.useOnlineThreads(runner, (err) => {
      // The models' state went with the update that failed: what is durable is loaded again on next use.
      this.log.warn({ err, user, pid }, 'online models lost with their update; the project is reloaded on next use');
      if (this.loaded.get(ProjectStore.key(user, pid)) === project) this.evict(user, pid);
    });
    return project;
  }

  /** Runs `fn` under the project's lock, without loading it. */
  private async locked<T>(user: string, pid: string, fn: () => Promise<T>): Promise<T> {
    const key = ProjectStore.key(user, pid);
    const previous = this.locks.get(key) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(fn);
    const tail = run.catch(() => undefined);
    this.locks.set(key, tail);
    void tail.then(() => {
      if (this.locks.get(key) === tail) this.locks.delete(key);
    });
    return run;
  }

  async list(user: string): Promise<string[]> {
    const pids = new Set(await this.store.listPids(user));
    for (const p of this.loaded.values()) if (p.memoryOnly && p.meta.user === user) pids.add(p.meta.pid);
    return [...pids].sort();
  }

  private async get(user: string, pid: string): Promise<ProjectState> {
    const key = ProjectStore.key(user, pid);
    const hit = this.loaded.get(key);
    if (hit) return hit;
    let pending = this.loading.get(key);
    if (!pending) {
      pending = this.load(user, pid).finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }

  private async load(user: string, pid: string): Promise<ProjectState> {
    const meta = await this.store.getMeta(user, pid);
    if (!meta) throw smlError('PROJECT_NOT_FOUND', { pid, user });
    const snapshot = await this.store.loadSnapshot(user, pid);
    let project: ProjectState;
    try {
      project = this.online(ProjectState.restore(meta, snapshot, this.opts.limits));
    } catch (err) {
      throw smlError('PROJECT_UNLOADABLE', { pid, detail: (err as Error).message }, err);
    }
    let replayed = 0;
    let quarantined = 0;
    const tail = await this.store.logTail(user, pid);
    const keysSince = Date.now() - IDEMPOTENCY_WINDOW_MS;
    for await (const { seq, entry, msgId, storedAt } of this.store.replay(user, pid, project.logSeq, tail)) {
      // Each entry names the one before it (or the snapshot it follows): a snapshot or log read
      // that was not the latest shows as a break in the chain. Retryable: it comes from a NATS
      // stream leader still catching up after an election.
      if (entry.prevSeq != null && Number(entry.prevSeq) !== project.logSeq) {
        this.log.warn({ user, pid, snapshotSeq: Number(snapshot?.logSeq ?? 0), seq, prevSeq: Number(entry.prevSeq), after: project.logSeq }, 'project log does not continue the state read before it; not loaded');
        throw smlError('NATS_UNAVAILABLE', { cause: `the log entry ${seq} of project ${pid} follows ${Number(entry.prevSeq)}, not ${project.logSeq} as read` });
      }
      // Replayed batches' online updates queue as learned ones do, as many at most.
      await project.onlineBelow(ONLINE_BACKLOG);
      const record = msgId && storedAt >= keysSince ? splitMessageId(msgId) : undefined;
      if (record) project.replayedKeys.set(record.name, record.fingerprint);
      const failure = project.replay(entry, seq);
      if (failure) {
        // Kept before the next snapshot trims the log past it.
        await this.store.putQuarantined(user, pid, seq, entry, failure.message);
        this.log.warn({ user, pid, seq, reason: failure.message }, 'logged batch could not be replayed: quarantined');
        this.quarantinedTotal++;
        quarantined++;
      }
      replayed++;
    }
    project.logTail = tail;
    project.loaded();
    this.log.info({ user, pid, snapshotSeq: Number(snapshot?.logSeq ?? 0), replayed, quarantined, tail }, 'project loaded');
    this.loaded.set(ProjectStore.key(user, pid), project);
    return project;
  }

  /**
   * Writes a snapshot now when the project is persistent and has unsaved state. When it fails
   * SNAPSHOT_TRIES times the project is dropped from memory: what it held beyond the log (a
   * merge, a data-source learn) is then not durable, and the log may or may not be trimmed.
   */
  async save(project: ProjectState): Promise<void> {
    if (project.memoryOnly || !project.isDirty) return;
    const { user, pid } = project.meta;
    // The snapshot holds the online models as of logSeq (callers hold the lock: nothing queues meanwhile).
    await project.onlineSettled();
    for (let attempt = 1; ; attempt++) {
      if (!this.writable(user, pid)) {
        this.evict(user, pid);
        throw smlError('SERVICE_UNAVAILABLE', { service: 'projects' });
      }
      try {
        await this.store.snapshot(user, pid, project.summaryChunks(), project.logSeq, project.streamMarks.list());
        break;
      } catch (err) {
        // A put that failed may have been stored all the same: when the answer to its metadata
        // is lost (a NATS leader election), nats.js purges the new object's pieces, and the
        // metadata stored after all names pieces that are gone — the project could not load.
        // The same state put again replaces that metadata; only then is it safe to give up.
        if (attempt >= SNAPSHOT_TRIES) {
          this.evict(user, pid);
          throw err;
        }
        this.log.warn({ err, user, pid, attempt }, 'snapshot failed; writing it again');
        await new Promise((resolve) => setTimeout(resolve, SNAPSHOT_RETRY_MS * attempt));
      }
    }
    project.markSaved();
    this.log.debug({ user, pid, logSeq: project.logSeq }, 'snapshot written');
  }

  /**
   * After a logged batch: snapshot when enough batches piled up since the last one. A
   * snapshot holds the online models as of its log position, so while they are still learning
   * the snapshot is written after them, under the lock but not on this batch's answer.
   */
  async afterBatch(project: ProjectState): Promise<void> {
    if (project.batchesSinceSnapshot < this.opts.snapshotEveryBatches) return;
    if (project.onlinePending === 0) {
      await this.save(project);
      return;
    }
    if (this.savesAfterOnline.has(project)) return;
    this.savesAfterOnline.add(project);
    const { user, pid } = project.meta;
    void this.locked(user, pid, async () => {
      this.savesAfterOnline.delete(project);
      // Not if the project was dropped (and maybe reloaded) meanwhile: that state is not this one.
      if (project.life.kind === 'dropped') return;
      await project.onlineSettled();
      await this.save(project);
    }).catch((err: unknown) => this.log.error({ err, pid }, 'snapshot failed'));
  }

  /** Whether this replica may write the project now: it holds its shard's lease (RegistryOptions.holdsLease). */
  writable(user: string, pid: string): boolean {
    return this.opts.holdsLease?.(user, pid) ?? true;
  }

  /**
   * Forgets every loaded project of a shard without saving (its lease was lost or taken):
   * what is durable is loaded again when asked for. Memory-only projects are lost with it.
   */
  dropShard(shard: number): void {
    for (const [key, p] of this.loaded) if ((this.opts.shardOf?.(p.meta.user, p.meta.pid) ?? 0) === shard) this.drop(key, 'shardDropped');
  }

  /** Drops the in-memory state without saving: the next access reloads what is durable. */
  evict(user: string, pid: string): void {
    this.drop(ProjectStore.key(user, pid), 'evicted');
  }

  /** Every way a project leaves memory: its state is told (a batch still holding it then writes no snapshot of it). */
  private drop(key: string, why: DropReason): void {
    this.loaded.get(key)?.dropped(why);
    this.loaded.delete(key);
  }

  async unload(user: string, pid: string): Promise<void> {
    await this.with(user, pid, async (p) => {
      await this.save(p);
      this.drop(ProjectStore.key(user, pid), 'unloaded');
    });
  }

  /** Deletes without loading, so a project that cannot be loaded (PROJECT_UNLOADABLE) can still be deleted. */
  async delete(user: string, pid: string): Promise<void> {
    await this.locked(user, pid, async () => {
      const key = ProjectStore.key(user, pid);
      const p = this.loaded.get(key);
      if (!p && !(await this.store.getMeta(user, pid))) throw smlError('PROJECT_NOT_FOUND', { pid, user });
      if (!p?.memoryOnly) await this.store.delete(user, pid);
      this.drop(key, 'deleted');
    });
  }

  private async snapshotDirty(): Promise<void> {
    for (const p of [...this.loaded.values()]) {
      if (p.memoryOnly || !p.isDirty) continue;
      await this.with(p.meta.user, p.meta.pid, (q) => this.save(q)).catch((err) => this.log.error({ err, pid: p.meta.pid }, 'snapshot failed'));
    }
  }
}

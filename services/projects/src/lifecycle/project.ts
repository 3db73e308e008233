import { randomUUID } from 'node:crypto';
import { Summary, clusterOptionsOf, forestOptionsOf, forestOptionsProblem, frameFromColumns, powerOptionsOf, type LearnInput, type PreparedChange, type StateLimits, type SummaryOptions } from '@sml/stats';
import { checkParameters, dataFrameFromProto, smlError, toSmlError, type ParameterBound } from '@sml/core';
import { sml } from '@sml/proto';
import type { OnlineRunner } from '../predict/online-pool';
import { OnlineUpdates } from '../predict/online-updates';
import type { StoredSnapshot } from '../ports';
import { heldState, transition, type DropReason, type ProjectEvent, type ProjectLife } from './project-states';
import { DROP_MARKS, StreamMarks } from '../learning/stream-marks';

/**
 * Summary options of a project. Histograms are always kept (in the project's histogramType):
 * `histogramEnabled` only gates what reads them, so enabling histograms later covers every
 * row already learned. Conditional histograms (conditional density, gain of continuous
 * inputs) grow with binary attributes × attributes, so they are kept only when the project
 * was created with histograms enabled (recorded at creation in sml_conditional_histograms).
 */
export function summaryOptions(meta: sml.v1.IProjectMeta, limits: ProjectLimits): SummaryOptions {
  const p = meta.params ?? {};
  const clusters = clusterOptionsOf(p);
  // rf_* parameters were stored unchecked before forests were built: a project whose rf_* are
  // not a valid forest keeps none, rather than failing to load.
  const rf = forestOptionsOf(p);
  const forest = rf !== null && forestOptionsProblem(rf) === null ? rf : null;
  // sml_project_power_* stored by a build before power regression (without the
  // sml_project_power_ntot that create now writes) meant nothing: such a project keeps no
  // power columns, as its snapshots have none, rather than failing to load or merge.
  const power = p.sml_project_power_ntot !== undefined ? powerOptionsOf(p) : null;
  // Checked at create; checked again here so that metadata written before a limit was
  // lowered (or by an older build) fails to load with a message instead of sizing state.
  checkParameters(p, limits.bounds);
  const maxAttributes = limits.maxAttributes;
  return {
    categorySeparator: meta.categorySeparator || '$',
    maxAttributes,
    histogram: meta.histogramType === 'exact' ? 'exact' : 'streaming',
    conditionalHistograms: p.sml_conditional_histograms === 'true',
    ...(meta.type === 'partition' && p.partitionSplit ? { partitionSplit: p.partitionSplit } : {}),
    ...(p.km_time_column && p.km_event_column
      ? { km_time_column: p.km_time_column, km_event_column: p.km_event_column, ...(p.km_group_column ? { km_group_column: p.km_group_column } : {}) }
      : {}),
    ...(meta.type === 'sequence' ? { sequenceOrder: Number(p.sml_project_order ?? 1), sequenceLayout: p.sml_sequence_layout === 'rows' ? 'rows' : 'steps' } : {}),
    ...(clusters ? { clusters } : {}),
    ...(forest ? { forest } : {}),
    ...(power ? { power } : {}),
  };
}

/** What bounds a project's state (README "Resource limits"). */
export interface ProjectLimits {
  maxAttributes: number;
  state: StateLimits;
  bounds: Readonly<Record<string, ParameterBound>>;
}

/**
 * What a learn/forget request or log entry carries: the batch's own summary (the gateway
 * summarised it), the columns the gateway read from the REST body, or the body's raw JSON
 * (when the gateway's fast reader declined it, or this project asked for it), or a protobuf
 * DataFrame.
 */
export function batchOf(msg: { batchSummary?: Uint8Array | null; columns?: sml.v1.IFrameColumns | null; frameJson?: Uint8Array | null; frame?: sml.v1.IDataFrame | null }): LearnInput {
  if (msg.batchSummary && msg.batchSummary.length > 0) return { summary: msg.batchSummary };
  if (msg.columns) return { columns: frameFromColumns(msg.columns) };
  return msg.frameJson && msg.frameJson.length > 0 ? { json: msg.frameJson } : { frame: dataFrameFromProto(msg.frame ?? {}) };
}

/** One project in memory: its metadata, its summary and where it stands against the log. */
export class ProjectState {
  /** Log sequence of the last batch applied (0 = none). */
  logSeq = 0;
  /**
   * Sequence of the project's last entry still in the log (0: none), as this state knows it.
   * A snapshot keeps the entry it ends at, so a snapshot leaves it as it was.
   */
  logTail = 0;
  /**
   * Whether an append of this state has been stored since it was loaded (its life, ProjectLife).
   * The first one is fenced: it expects `logTail` (ProjectStore.append). That is what keeps an append whose
   * answer was lost in a NATS leader election — stored after all, after this state read the
   * log's end — from sitting in the log next to its retry: such an entry precedes the new
   * term's entries in the stream's raft log, so it is either stored before the fenced append
   * (which is then refused and the project reloaded) or never. Later appends need no check:
   * this process is the project's only writer while it holds the shard's lease, and stops
   * writing before that lease can pass to another replica (ownership.ts, holds).
   */
  get fenced(): boolean {
    const s = heldState(this.state);
    return (s?.kind === 'clean' || s?.kind === 'dirty') && s.fenced;
  }

  /**
   * Idempotency records (name → fingerprint, Learning) of keyed batches replayed from the log
   * while loading, stored within the idempotency window: such a batch may have been logged by
   * an append whose answer was lost, so its KV record was never written, and its retry must
   * still be recognised. At most the entries replayed at load.
   */
  readonly replayedKeys = new Map<string, string>();
  /** Changes with every change of the summary; with the instance id it makes the etag. */
  private revision = 0;
  private readonly instance = randomUUID();
  /** Where the project stands in each stream it learns from (stream-marks.ts). */
  readonly streamMarks = new StreamMarks();
  /** Where this state stands against what is durable (project-states.ts): every flag below is read from it. */
  private state: ProjectLife;
  /** The online models' updates when they learn on other threads (useOnlineThreads); else they learn in commit. */
  private online?: OnlineUpdates;

  private constructor(readonly meta: sml.v1.ProjectMeta, private held: Summary, first: ProjectEvent, private readonly limits: StateLimits) {
    this.state = transition({ kind: 'absent' }, first);
  }

  get summary(): Summary {
    return this.held;
  }

  /**
   * A fusion project's statistics: the merge of its cells (fusion/merge.ts), replaced whole at
   * each refresh that changed it. Not a change of what is durable: a fusion project logs and
   * snapshots nothing of its own, it fetches its cells again after a restart.
   */
  fused(summary: Summary): void {
    this.revision++;
    this.held = summary;
  }

  /** A project just created: empty, nothing durable but its metadata. */
  static fresh(meta: sml.v1.IProjectMeta, limits: ProjectLimits): ProjectState {
    return new ProjectState(sml.v1.ProjectMeta.fromObject(meta), new Summary(summaryOptions(meta, limits)), { type: 'created', persist: Boolean(meta.persist) }, limits.state);
  }

  /** A project loading: from its snapshot (or none), its log to be replayed (replay), then `loaded`. */
  static restore(meta: sml.v1.IProjectMeta, snapshot: StoredSnapshot | undefined, limits: ProjectLimits): ProjectState {
    if (!snapshot) return new ProjectState(sml.v1.ProjectMeta.fromObject(meta), new Summary(summaryOptions(meta, limits)), { type: 'load', snapshotted: false }, limits.state);
    checkParameters(meta.params, limits.bounds);
    const p = new ProjectState(sml.v1.ProjectMeta.fromObject(meta), Summary.deserialize(snapshot.summary), { type: 'load', snapshotted: true }, limits.state);
    p.logSeq = Number(snapshot.logSeq ?? 0);
    p.streamMarks.load(snapshot.streamMarks);
    return p;
  }

  /** Its state against what is durable (project-states.ts). */
  get life(): ProjectLife {
    return this.state;
  }

  /** The log replayed: the project is in use. */
  loaded(): void {
    this.state = transition(this.state, { type: 'loaded' });
  }

  /** No longer the project's state in this replica (ProjectRegistry): the next use loads what is durable. */
  dropped(why: DropReason): void {
    this.state = transition(this.state, { type: 'dropped', why });
  }

  /** Logged (or replayed) batches and merges not yet in a snapshot. */
  get batchesSinceSnapshot(): number {
    const s = heldState(this.state);
    return s?.kind === 'dirty' ? s.batches : s?.kind === 'loading' ? s.replayed : 0;
  }

  /**
   * Has the summary's online models (forest, micro-clusters) learn each batch on `runner`'s
   * threads after its commit, one batch at a time in order (OnlineUpdates); `onLost` is told if
   * their state is lost. Nothing changes for a project without online models.
   */
  useOnlineThreads(runner: OnlineRunner, onLost: (err: Error) => void): void {
    if (this.summary.hasOnlineModels) this.online = new OnlineUpdates(this.summary, runner, onLost);
  }

  /** Batches committed whose online models have not learned them yet. */
  get onlinePending(): number {
    return this.online?.pending ?? 0;
  }

  /**
   * Resolves once the online models learned every batch committed so far (the summary may be
   * read); 503 (retryable: the project is reloaded) when their state was lost.
   */
  async onlineSettled(): Promise<void> {
    await this.onlineBelow(1);
  }

  /** Resolves once fewer than `n` batches wait for the online models (Learning's ONLINE_BACKLOG). */
  async onlineBelow(n: number): Promise<void> {
    try {
      await this.online?.below(n);
    } catch (err) {
      throw smlError('SERVICE_UNAVAILABLE', { service: 'projects' }, err);
    }
  }

  get memoryOnly(): boolean {
    return !this.meta.persist;
  }

  /** In-memory state newer than the last snapshot (always false for memory-only projects' snapshots). */
  get isDirty(): boolean {
    const s = heldState(this.state);
    return s?.kind === 'dirty' || (s?.kind === 'memoryOnly' && s.changed) || (s?.kind === 'loading' && s.replayed > 0);
  }

  /**
   * The options a batch's summary must be built with for this project to take it instead of
   * the batch's rows (Summary.batchRecipe), or null: the summary needs the rows, or an encoder
   * encodes them first.
   */
  get batchRecipe(): string | null {
    return this.meta.encoder ? null : this.summary.batchRecipe;
  }

  get persisted(): boolean {
    const s = heldState(this.state);
    return s !== undefined && s.kind !== 'memoryOnly' && s.snapshotted;
  }

  /**
   * Validates a learn or forget of the summary (Summary.prepare): a bad frame (FrameError) or
   * a forget of rows never learned (SummaryError) throws a 400 and changes nothing; the
   * returned commit applies it.
   */
  prepare(op: 'learn' | 'forget', batch: LearnInput): PreparedChange {
    try {
      return this.prepareChange(op, batch);
    } catch (err) {
      throw toSmlError(err, { pid: this.meta.pid });
    }
  }

  /** Summary.prepare, the online models' part of its commit queued for their threads (when they learn there). */
  private prepareChange(op: 'learn' | 'forget', batch: LearnInput): PreparedChange {
    const online = this.online;
    const change = this.summary.prepare(op, batch, this.limits, online !== undefined);
    const frame = change.online;
    if (!online || !frame) return change;
    return {
      ...change,
      commit: () => {
        change.commit();
        online.add(frame);
      },
    };
  }

  /**
   * Names the summary's current content for caches (explore): a new ProjectState (a reload)
   * has a new instance id, so an etag never names two different contents.
   */
  get etag(): string {
    return `${this.instance}:${this.revision}`;
  }

  /** Marks a batch as logged at `seq` (0 for memory-only projects). */
  logged(seq: number): void {
    this.revision++;
    if (seq > 0) {
      this.logSeq = seq;
      this.logTail = seq;
    }
    this.state = transition(this.state, { type: 'logged', seq });
    this.meta.lastModificationDate = Date.now();
  }

  /**
   * Re-applies a logged batch while loading. Every logged batch was validated before it was
   * logged, so a failure here means the batch cannot be replayed by this build (a limit was
   * lowered, a bug, damaged bytes): it is returned for quarantine, never silently dropped,
   * and never stops the project from loading. Validation changes nothing, so the summary
   * stays as it was before the batch.
   */
  replay(entry: sml.v1.IProjectLogEntry, seq: number): Error | undefined {
    this.revision++;
    if (entry.op === DROP_MARKS) {
      this.streamMarks.drop(entry.streamPosition?.stream ?? '');
      this.logSeq = seq;
      this.state = transition(this.state, { type: 'replayed', quarantined: false });
      return undefined;
    }
    const op = entry.op === 'forget' ? 'forget' : 'learn';
    let failure: Error | undefined;
    try {
      // With the limits in force now, so a batch logged under higher limits cannot grow the
      // state past today's (it is quarantined instead).
      this.prepareChange(op, batchOf(entry)).commit();
    } catch (err) {
      failure = err instanceof Error ? err : new Error(String(err));
    }
    // Logged, so covered, even when it could not be replayed (it is quarantined, never relearned).
    this.streamMarks.advance(entry.streamPosition);
    this.logSeq = seq;
    this.state = transition(this.state, { type: 'replayed', quarantined: failure !== undefined });
    return failure;
  }

  /**
   * Prepares a data-source learn's staging summary: its forest (rf_*) starts as a copy of the
   * project's, since forests cannot be merged. Returns the etag to hand to mergeStaged.
   */
  seedStaging(staging: Summary): string {
    staging.takeForest(this.summary);
    return this.etag;
  }

  /**
   * Adds a data-source learn's staging summary. The project's forest becomes the staging
   * forest (the project's as the job started, plus the source's rows) when nothing else
   * changed the project meanwhile; otherwise the forest stays as it is and the source's rows
   * are not in it (returned false: the caller says so in the job's log).
   */
  mergeStaged(staging: Summary, ds: string, seededAt: string): boolean {
    const unchanged = this.etag === seededAt;
    this.merge(staging, ds);
    if (staging.forest === undefined) return true;
    if (unchanged) this.summary.takeForest(staging);
    return unchanged;
  }

  merge(other: Summary, otherPid: string): void {
    this.revision++;
    try {
      this.summary.merge(other);
    } catch (err) {
      throw toSmlError(err, { pid: this.meta.pid, other: otherPid });
    }
    this.state = transition(this.state, { type: 'changed' });
    this.meta.lastModificationDate = Date.now();
  }

  /** Removes a staged summary's rows (a forget from a data source): changes nothing when it cannot (400). */
  forgetStaged(staging: Summary): void {
    try {
      this.summary.merge(staging, -1);
    } catch (err) {
      throw toSmlError(err, { pid: this.meta.pid });
    }
    this.revision++;
    this.state = transition(this.state, { type: 'changed' });
    this.meta.lastModificationDate = Date.now();
  }

  summaryBytes(): Uint8Array {
    return this.summary.serialize();
  }

  /** The summary serialized in chunks (Summary.serializeChunks, made as they are read): what a snapshot streams. */
  summaryChunks(): Iterable<Uint8Array> {
    return this.summary.serializeChunks();
  }

  /** After a snapshot as of logSeq (the log was trimmed before it). */
  markSaved(): void {
    this.state = transition(this.state, { type: 'snapshotted' });
  }
}

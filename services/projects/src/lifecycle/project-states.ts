/**
 * The life of one project in one replica's memory (README "Project states"): what a
 * ProjectState is against what is durable, as one transition function. The registry and
 * ProjectState apply events; the flags they answer (isDirty, persisted, fenced, the batches
 * since the last snapshot) are read from the state, never kept beside it.
 */

/** Why a project left this replica's memory (ProjectRegistry): the next use loads what is durable. */
export type DropReason = 'unloaded' | 'evicted' | 'deleted' | 'shardDropped';

/** A state of a project held in memory (every state but `absent` and `dropped`). */
export type HeldState =
  /** Read from its snapshot (`snapshotted`) or from nothing, its log being replayed. */
  | { kind: 'loading'; snapshotted: boolean; replayed: number; quarantined: number }
  /** persist=false: no metadata, log or snapshot; `changed` once it learned anything. */
  | { kind: 'memoryOnly'; changed: boolean }
  /** Nothing newer than its snapshot (or, never snapshotted, than its log). */
  | { kind: 'clean'; snapshotted: boolean; fenced: boolean }
  /** `batches` logged (or replayed) and possibly a merge not yet in a snapshot. */
  | { kind: 'dirty'; snapshotted: boolean; fenced: boolean; batches: number };

export type ProjectLife =
  /** No state yet: the one event taken is `created` or `load`. */
  | { kind: 'absent' }
  | HeldState
  /**
   * No longer the project's state in this replica (`why`); whoever still holds it (a batch
   * waiting for the log) may finish with it, so it keeps tracking as `was`.
   */
  | { kind: 'dropped'; why: DropReason; was: HeldState };

export type ProjectEvent =
  | { type: 'created'; persist: boolean }
  | { type: 'load'; snapshotted: boolean }
  /** A logged batch applied again (or, `quarantined`, kept aside as it could not be). */
  | { type: 'replayed'; quarantined: boolean }
  | { type: 'loaded' }
  /** A batch the log stored at `seq` (0: a memory-only project's, not logged). */
  | { type: 'logged'; seq: number }
  /** The summary changed outside the log (a merge, a data-source learn or forget). */
  | { type: 'changed' }
  | { type: 'snapshotted' }
  | { type: 'dropped'; why: DropReason };

/** An event a state does not take: a bug in its caller, never a state a project can be in. */
export class ProjectStateError extends Error {
  constructor(readonly state: ProjectLife['kind'], readonly event: ProjectEvent['type']) {
    super(`a project ${state} does not take the event ${event}`);
    this.name = 'ProjectStateError';
  }
}

/** A held state with one more batch newer than its snapshot, the append fenced from a stored one on. */
function withBatch(s: Extract<HeldState, { kind: 'clean' | 'dirty' }>, seq: number): HeldState {
  return { kind: 'dirty', snapshotted: s.snapshotted, fenced: s.fenced || seq > 0, batches: (s.kind === 'dirty' ? s.batches : 0) + 1 };
}

function fromAbsent(e: ProjectEvent): ProjectLife {
  if (e.type === 'created') return e.persist ? { kind: 'clean', snapshotted: false, fenced: false } : { kind: 'memoryOnly', changed: false };
  if (e.type === 'load') return { kind: 'loading', snapshotted: e.snapshotted, replayed: 0, quarantined: 0 };
  throw new ProjectStateError('absent', e.type);
}

function fromLoading(s: Extract<HeldState, { kind: 'loading' }>, e: ProjectEvent): HeldState {
  if (e.type === 'replayed') return { ...s, replayed: s.replayed + 1, quarantined: s.quarantined + (e.quarantined ? 1 : 0) };
  // Loaded: the first append is fenced on the log's end as read (ProjectState.fenced).
  if (e.type === 'loaded') return s.replayed > 0 ? { kind: 'dirty', snapshotted: s.snapshotted, fenced: false, batches: s.replayed } : { kind: 'clean', snapshotted: s.snapshotted, fenced: false };
  throw new ProjectStateError('loading', e.type);
}

function fromHeld(s: Exclude<HeldState, { kind: 'loading' }>, e: ProjectEvent): HeldState {
  if (s.kind === 'memoryOnly') {
    if (e.type === 'logged' || e.type === 'replayed' || e.type === 'changed') return { kind: 'memoryOnly', changed: true };
    throw new ProjectStateError('memoryOnly', e.type);
  }
  switch (e.type) {
    case 'logged': return withBatch(s, e.seq);
    case 'replayed': return withBatch(s, 0);
    case 'changed': return { kind: 'dirty', snapshotted: s.snapshotted, fenced: s.fenced, batches: s.kind === 'dirty' ? s.batches : 0 };
    case 'snapshotted': return { kind: 'clean', snapshotted: true, fenced: s.fenced };
    default: throw new ProjectStateError(s.kind, e.type);
  }
}

function step(s: HeldState, e: Exclude<ProjectEvent, { type: 'dropped' }>): HeldState {
  return s.kind === 'loading' ? fromLoading(s, e) : fromHeld(s, e);
}

/** The state a project is in after `event` (ProjectStateError for an event its state does not take). */
export function transition(state: ProjectLife, event: ProjectEvent): ProjectLife {
  if (state.kind === 'absent') return fromAbsent(event);
  if (event.type === 'dropped') return state.kind === 'dropped' ? state : { kind: 'dropped', why: event.why, was: state };
  return state.kind === 'dropped' ? { ...state, was: step(state.was, event) } : step(state, event);
}

/** The held state behind a state (a dropped one's last); undefined while absent. */
export function heldState(state: ProjectLife): HeldState | undefined {
  return state.kind === 'dropped' ? state.was : state.kind === 'absent' ? undefined : state;
}

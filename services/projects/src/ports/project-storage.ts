import type { sml } from '@sml/proto';
import type { SerializedChunks } from '@sml/stats';

/**
 * A snapshot as read back: the summary as the chunks it arrived in, each let go once
 * Summary.deserialize has read it (so a large summary's chunks are freed while it is read).
 */
export interface StoredSnapshot {
  logSeq: number;
  summary: SerializedChunks;
  streamMarks: sml.v1.IStreamMark[];
}

/** One batch read back from the project's log. */
export interface ReplayedEntry {
  seq: number;
  entry: sml.v1.ProjectLogEntry;
  /** The message id of a batch sent with an Idempotency-Key (Learning: `<record name>.<fingerprint>`). */
  msgId?: string;
  /** When the log stored it (ms since the epoch). */
  storedAt: number;
}

/** What an append answers: the entry's sequence, and whether its message id was stored already (nothing appended). */
export interface Appended {
  seq: number;
  duplicate: boolean;
}

/** Projects' metadata: what makes a project exist. */
export interface ProjectMetas {
  /** Stores the metadata of a new project; PROJECT_EXISTS when one is stored under its id (two racing creates cannot both succeed). */
  createMeta(meta: sml.v1.IProjectMeta): Promise<void>;
  putMeta(meta: sml.v1.IProjectMeta): Promise<void>;
  /** A copy of the stored metadata (changing it changes nothing stored), undefined when unknown. */
  getMeta(user: string, pid: string): Promise<sml.v1.ProjectMeta | undefined>;
  listPids(user: string): Promise<string[]>;
}

/**
 * The write-ahead log of learn/forget batches: one sequence over every project (a project's
 * entries ascend, not consecutively), a duplicate window on message ids, an optional fence on
 * the project's last entry.
 */
export interface ProjectLog {
  /** A batch's entry as append stores it; BATCH_TOO_LARGE when the log cannot keep it in one entry. */
  encodeEntry(entry: sml.v1.IProjectLogEntry): Uint8Array;
  /**
   * Appends one entry; resolves once it is durable. With `tail` the entry is stored only if
   * the project's last entry is still `tail` (0: none), else it throws the JetStream error
   * WRONG_LAST_SEQUENCE. A `msgId` stored within the duplicate window answers `duplicate`.
   */
  append(user: string, pid: string, entry: sml.v1.IProjectLogEntry | Uint8Array, tail?: number, msgId?: string): Promise<Appended>;
  /** Sequence of the project's last entry in the log (0: none). */
  logTail(user: string, pid: string): Promise<number>;
  /** The project's entries after `afterSeq` up to `last` (logTail), in order. */
  replay(user: string, pid: string, afterSeq: number, last: number): AsyncIterable<ReplayedEntry>;
  /** Removes the project's entries before `keepFrom` (the entry at `keepFrom` stays: the chain's anchor, ProjectLogEntry.prevSeq). */
  trim(user: string, pid: string, keepFrom: number): Promise<void>;
}

/** The latest snapshot of each project's summary. */
export interface ProjectSnapshots {
  /** Stores a snapshot as of log sequence `logSeq` (it replaces the one before), then trims the log before it (ProjectLog.trim). */
  snapshot(user: string, pid: string, summary: Uint8Array | Iterable<Uint8Array>, logSeq: number, streamMarks?: sml.v1.IStreamMark[]): Promise<void>;
  loadSnapshot(user: string, pid: string): Promise<StoredSnapshot | undefined>;
  /** Removes a snapshot alone (an import that did not get its project id). */
  deleteSnapshot(user: string, pid: string): Promise<void>;
}

/** Logged batches that could not be replayed, kept with why (the log itself is trimmed at the next snapshot). */
export interface QuarantinedBatches {
  putQuarantined(user: string, pid: string, seq: number, entry: sml.v1.IProjectLogEntry, reason: string): Promise<void>;
  /** The project's quarantined batches, oldest first. */
  quarantined(user: string, pid: string): Promise<sml.v1.IQuarantinedBatch[]>;
}

/** All a project's durable state (ProjectStore over JetStream; in memory in @sml/testkit). */
export interface ProjectStorage extends ProjectMetas, ProjectLog, ProjectSnapshots, QuarantinedBatches {
  /** Removes metadata, log, snapshot and quarantined batches (the metadata last: until then the project exists). */
  delete(user: string, pid: string): Promise<void>;
  /** Removes log, snapshot and quarantined batches, not the metadata (what a create does first). */
  removeData(user: string, pid: string): Promise<void>;
}

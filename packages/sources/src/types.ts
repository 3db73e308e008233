/**
 * One interface for every kind of data source (API.md §5): a registered source's `info`
 * (the decrypted DSInfo's map, all strings) becomes a `Source` that reads either CSV bytes
 * (localfile, s3, http) or rows already split into cells (redshift / PostgreSQL). Readers
 * stream: memory stays bounded whatever the size of the source, and progress is what was
 * read over `size()` when the size is known.
 */
import type { ReadLimits } from './pace';

/** The DSInfo `info` map of a source, as registered. */
export type SourceInfo = Readonly<Record<string, string>>;

export interface SourceContext {
  /** The customer reading: localfile paths resolve under `<filesRoot>/<customer token>/`. */
  user: string;
  /** SML_FILES_ROOT. */
  filesRoot: string;
  /** Aborts reading (a cancelled job). */
  signal?: AbortSignal;
  /** Connect / first-byte / silence timeout of remote sources, ms (SML_SOURCE_TIMEOUT_MS). */
  timeoutMs: number;
  /**
   * SML_SOURCES_ALLOW_PRIVATE: remote sources (http, s3, redshift) may connect to loopback,
   * private and link-local addresses. Off, they are refused (SourceError 'denied'; ssrf.ts).
   */
  allowPrivate: boolean;
  /**
   * Bounds on each read of a source made with this context (pace.ts): a whole-read deadline
   * and a least rate. Set for every read that holds a job or answers a request; a source made
   * only to check its info (dss/create) has none.
   */
  limits?: ReadLimits;
}

/** CSV bytes: localfile, s3, http. A `.gz` path is gunzipped by the CSV reader, not here. */
export interface ByteSource {
  readonly kind: 'bytes';
  /** What the messages name: a relative path, `s3://bucket/key`, a URL without credentials. */
  describe(): string;
  /** Total bytes, when the source knows it. */
  size(): Promise<number | undefined>;
  /** The bytes from the start, in chunks, until the end or `signal` aborts. */
  open(): AsyncIterable<Uint8Array>;
}

/** Rows already split into cells: redshift / PostgreSQL (a table or a read-only query). */
export interface RowSource {
  readonly kind: 'rows';
  describe(): string;
  /** Column names, in order. */
  columns(): Promise<string[]>;
  /** Total rows, when known cheaply. */
  size(): Promise<number | undefined>;
  /** Rows in batches of at most `batchRows`, cells as text (null for SQL NULL → missing). */
  open(batchRows: number): AsyncIterable<(string | null)[][]>;
}

export type Source = ByteSource | RowSource;

/**
 * A source that cannot be read, for a reason the customer can act on: answered as a 4xx
 * (or a failed job) naming it. `reason`: invalid info, not found, access denied, unreachable.
 * Messages never contain credentials.
 */
export class SourceError extends Error {
  override readonly name = 'SourceError';
  readonly kind = 'source';
  constructor(readonly reason: 'invalid' | 'not-found' | 'denied' | 'unreachable', message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Makes the source of one type from its info; throws SourceError('invalid') for bad info. */
export type SourceFactory = (info: SourceInfo, ctx: SourceContext) => Source;

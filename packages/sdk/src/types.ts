import type { LookupFunction } from 'node:net';
import type { DataFrame, JobInfo, MLContext, ProjectLogValues } from './operations';

/** Every response body (API.md §1). `values` is absent only on the jobs-list 500 (§10). */
export interface Envelope<V = Record<string, unknown>> {
  statusCode: number;
  statusString: string;
  values?: V;
}

export interface SmlResponse<V = Record<string, unknown>> {
  status: number;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  body: Envelope<V>;
}

export interface SmlClientOptions {
  /** Gateway origin, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** Customer id; every request path is relative to `/{user}`. */
  user: string;
  /** The customer's secret key (base64 of 16 bytes). */
  secret: string;
  /** Defaults to `/symetry/rest` (API.md: SML_BASE_PATH). */
  basePath?: string;
  /** Bound of one call, its retries and their waits included, in ms (default 120 000; 0: none). A call's `timeoutMs` replaces it. */
  timeoutMs?: number;
  /** Retries of an answer 503 or 429: `{}` = 3 retries, 200 ms base, 30 s cap; default `false` (none). A call's `retry` replaces it. */
  retry?: RetryOptions | false;
  /** Send an `Idempotency-Key` with every write (POST, PUT, DELETE) unless the call says otherwise (default false). */
  idempotencyKeys?: boolean;
  /** How one HTTP exchange is made (default: node:http with keep-alive); tests give a fake. */
  transport?: Transport;
  /** The sockets' host-name lookup of the default transport (a server calling another instance passes its address guard). */
  lookup?: LookupFunction;
  /** The longest answer body the default transport reads, in bytes (default: no bound); past it the call rejects with AnswerTooLargeError (a server reading another instance bounds what it may be made to hold). */
  maxAnswerBytes?: number;
}

/** When an answer 503 (service unavailable, queue full …) or 429 is sent again. */
export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  retries?: number;
  /** First backoff when the answer has no `Retry-After`, doubled each retry, with jitter (default 200 ms). */
  baseDelayMs?: number;
  /** Longest wait before a retry, `Retry-After` included (default 30 000 ms). */
  maxDelayMs?: number;
  /** Told before each retry's wait (a log line, a counter). */
  onRetry?: (event: RetryEvent) => void;
}

export interface RetryEvent {
  /** 1 for the first retry. */
  retry: number;
  /** The status that caused it (503 or 429). */
  status: number;
  /** The wait before it: `Retry-After` when the answer had one, else the backoff. */
  delayMs: number;
  method: string;
  path: string;
}

/** One HTTP request as the client sends it, signed. */
export interface HttpExchange {
  method: string;
  url: URL;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: Uint8Array | undefined;
  /** Aborted when the call times out or its own signal aborts. */
  signal: AbortSignal;
}

/** One HTTP answer: status, lower-cased headers (repeated ones joined by ', ') and the body text. */
export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

export type Transport = (exchange: HttpExchange) => Promise<HttpAnswer>;

export interface RequestOptions {
  /** Query parameters (an undefined value is left out), or the query string itself. */
  query?: Readonly<Record<string, string | undefined>> | string;
  /** Sent as `application/json`. */
  json?: unknown;
  /** Sent verbatim as `text/plain` (e.g. an encrypted DSInfo); `json` wins if both are given. */
  raw?: string | Uint8Array;
  /** Extra headers; they may override the content type but not the signing headers. */
  headers?: Record<string, string>;
  /** This call's bound in ms, retries included (0: none); default the client's `timeoutMs`. */
  timeoutMs?: number;
  /** Aborts the call (its attempts and its waits); the call rejects with the signal's reason. */
  signal?: AbortSignal;
  /** This call's retries; default the client's `retry`. */
  retry?: RetryOptions | false;
  /**
   * `Idempotency-Key` of this call: a string is sent as it is, `true` generates one (a UUID),
   * `false` sends none; default: one generated for a write when the client has
   * `idempotencyKeys`. Generated once per call, the same on each of its retries: the gateway
   * applies a learn, forget or learnpredict batch once per key.
   */
  idempotencyKey?: string | boolean;
}

/** What a shorthand call takes besides its own options: its bound, signal, retries and Idempotency-Key. */
export type CallOptions = Pick<RequestOptions, 'timeoutMs' | 'signal' | 'retry' | 'idempotencyKey'>;

export interface WaitOptions {
  /** Default 60 s. */
  timeoutMs?: number;
  /** Pause between polls; default 100 ms. */
  intervalMs?: number;
  /** Called with `values.jobinfo` of each answer while the job still runs (a progress display). */
  onRunning?: (info: JobInfo) => void;
  /** Called with the job's progress at each answer while it runs, and once more at 100 % when it succeeded. */
  onProgress?: (progress: JobProgress) => void;
  /** Aborts the wait (its polls and pauses). */
  signal?: AbortSignal;
}

/** A running job's progress, from its jobinfo's `current` / `maximum` (rows or bytes, by job type). */
export interface JobProgress {
  done: number;
  total: number;
  /** 0–100; undefined while the job does not know its total (maximum 0). */
  percent: number | undefined;
  jobId: string;
  /** The jobinfo it was read from (the last one for the final call). */
  info: JobInfo | undefined;
}

export interface CreateProjectOptions {
  type?: string;
  persist?: boolean;
  enableHistogram?: boolean;
  histogramType?: 'streaming' | 'exact';
  /** Type-specific build parameters, sent as the body (a flat string map). */
  params?: Record<string, string>;
}

/** The REST DataFrame, `values.jobinfo` and MLContext are the OpenAPI document's, generated into operations.ts. */
export type { DataFrame, JobInfo, MLContext };

/** A data source's DSInfo (API.md §2.4, §5); sent encrypted with the customer's secret. */
export interface DsInfo {
  /** localfile, s3, redshift, http */
  type: string;
  name: string;
  /** localfile: `path` relative to the customer's files root; optional csv_entry_separator, csv_quote_character. */
  info: Record<string, string>;
  /** Attribute type codes, one per column. */
  extra?: string[];
}

/** `values.dataframe` of a data source's sample or preview: ≤ 128 rows, cells as text, guessed types. */
export interface DsSample {
  attributeNames: string[];
  attributeTypes: string[];
  data: string[][];
  errorHandling: number;
}

/** `values.dsdirectoryListing` of dsbrowse: names right under `path`. */
export interface DsListing {
  ok: boolean;
  dirs: string[];
  files: string[];
  path: string;
}

/** POST /streams/browse: unset fields are left out. */
export interface StreamListing {
  ok: boolean;
  dirs?: string[];
  files?: string[];
  path?: string;
}

/** One entry of `values.dsLog` (getDsLog): a finished data-source learn or forget job; the generated projectLog answer's own type (keys: docs/glossary.md). */
export type DsLogEntry = ProjectLogValues['dsLog'][number];

/** The columns a data-source learn/forget uses (empty = all) and its error handling (0 strict, 1 lenient). */
export interface DsColumns {
  attributeNames?: string[];
  attributeTypes?: string[];
  errorHandling?: 0 | 1;
}

import type { LookupFunction } from 'node:net';
import type { RestDataFrame } from '@sml/core';

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
  /** The sockets' host-name lookup (a server calling another instance passes its address guard). */
  lookup?: LookupFunction;
}

export interface RequestOptions {
  query?: Record<string, string> | string;
  /** Sent as `application/json`. */
  json?: unknown;
  /** Sent verbatim as `text/plain` (e.g. an encrypted DSInfo); `json` wins if both are given. */
  raw?: string | Uint8Array;
  /** Extra headers; they may override the content type but not the signing headers. */
  headers?: Record<string, string>;
  /** Aborts the request (it then rejects with GatewayUnreachableError). */
  signal?: AbortSignal;
}

export interface WaitOptions {
  /** Default 60 s. */
  timeoutMs?: number;
  /** Pause between polls; default 100 ms. */
  intervalMs?: number;
  /** Called with `values.jobinfo` of each answer while the job still runs (a progress display). */
  onRunning?: (info: JobInfo) => void;
}

/** `values.jobinfo` and the entries of `values.jobinfolist` (API.md §10). */
export interface JobInfo {
  jobId: number;
  jobType: string;
  owner: string;
  startingDate: number;
  maximum: number;
  current: number;
  isOnBoundedExecutor: boolean;
  isStarted: boolean;
  isDone: boolean;
  details: Record<string, string>;
}

export interface CreateProjectOptions {
  type?: string;
  persist?: boolean;
  enableHistogram?: boolean;
  histogramType?: 'streaming' | 'exact';
  /** Type-specific build parameters, sent as the body (a flat string map). */
  params?: Record<string, string>;
}

export type { RestDataFrame };

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

/** One entry of `values.dsLog` (getDsLog): a finished data-source learn or forget job. */
export interface DsLogEntry {
  jobId: number;
  ds: string;
  /** learn | forget */
  op: string;
  /** done | failed | cancelled */
  state: string;
  rowsRead: number;
  rowsLearned: number;
  rowsSkipped: number;
  bytesRead: number;
  /** Epoch milliseconds. */
  started: number;
  finished: number;
  /** Why a failed job failed. */
  error: string;
}

/** The columns a data-source learn/forget uses (empty = all) and its error handling (0 strict, 1 lenient). */
export interface DsColumns {
  attributeNames?: string[];
  attributeTypes?: string[];
  errorHandling?: 0 | 1;
}

/** MLContext (API.md §1): attributes by index (as strings) or by name, and extraParameters. */
export interface MLContext {
  inputAttributes?: string[];
  inputAttributeNames?: string[];
  targets?: string[];
  targetAttributeNames?: string[];
  extraParameters?: Record<string, string>;
}

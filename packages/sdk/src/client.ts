import { randomInt, randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError, contentMd5, encryptDsInfo, formatSymDate, signParts } from '@sml/core';
import { AnswerTooLargeError, GatewayUnreachableError, JobTimeoutError, RequestTimeoutError, UnexpectedResponseError } from './errors';
import { Operations, type CreateProjectQuery, type ModelInfoValues, type ProjectInfoQuery } from './operations';
import type { CallOptions, CreateProjectOptions, DataFrame, DsColumns, DsInfo, DsListing, DsLogEntry, DsSample, Envelope, HttpAnswer, HttpExchange, JobInfo, JobProgress, MLContext, RequestOptions, RetryOptions, SmlClientOptions, SmlResponse, StreamListing, Transport, WaitOptions } from './types';

/** The gateway reads but does not interpret it (API.md §2 lists it among the required headers). */
const SYM_VERSION = '1';

const seg = encodeURIComponent;
const asyncQuery = (on: boolean | undefined): { async?: 'true' } => (on ? { async: 'true' } : {});
/** A boolean query parameter as the routes read it. */
const flag = (on: boolean | undefined): 'true' | 'false' | undefined => (on === undefined ? undefined : on ? 'true' : 'false');

function isEnvelope(value: unknown): value is Envelope<unknown> {
  return typeof value === 'object' && value !== null
    && typeof (value as Envelope).statusCode === 'number' && typeof (value as Envelope).statusString === 'string';
}

/**
 * A signed HTTP client for one customer. Paths given to `request` are relative to
 * `<basePath>/{user}`; every request carries the headers of API.md §2.
 */
export class SmlClient {
  readonly url: string;
  readonly user: string;
  readonly basePath: string;
  readonly #secret: string;
  /** Keep-alive connections; node:http rather than fetch: fetch copies every body through web streams. */
  readonly #agent: http.Agent;
  /** One method per REST route (generated from the gateway's route table): the methods below are shorthands over them. */
  readonly operations = new Operations(this);

  readonly #transport: Transport;
  readonly #timeoutMs: number;
  readonly #retry: RetryOptions | false;
  readonly #idempotencyKeys: boolean;

  constructor(options: SmlClientOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.user = options.user;
    this.basePath = (options.basePath ?? '/symetry/rest').replace(/\/+$/, '');
    this.#secret = options.secret;
    this.#agent = new (this.url.startsWith('https:') ? https.Agent : http.Agent)({ keepAlive: true, ...(options.lookup ? { lookup: options.lookup } : {}) });
    this.#transport = options.transport ?? httpTransport(this.#agent, options.maxAnswerBytes);
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // Off unless asked for: a retried write without an Idempotency-Key can apply twice, and a
    // caller that watches for 503s (a health check, a test) must see them.
    this.#retry = options.retry ?? false;
    this.#idempotencyKeys = options.idempotencyKeys ?? false;
  }

  /** Closes idle keep-alive connections (a process exits without it too: they are unref'd). */
  close(): void {
    this.#agent.destroy();
  }

  /** From SML_URL, SML_USER, SML_SECRET (and optional SML_BASE_PATH). */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): SmlClient {
    const missing = ['SML_URL', 'SML_USER', 'SML_SECRET'].filter((k) => !env[k]);
    if (missing.length > 0) throw new ConfigError(`Missing environment variable(s): ${missing.join(', ')}`);
    return new SmlClient({ url: env.SML_URL!, user: env.SML_USER!, secret: env.SML_SECRET!, basePath: env.SML_BASE_PATH || undefined });
  }

  async request<V = Record<string, unknown>>(method: string, path: string, options: RequestOptions = {}): Promise<SmlResponse<V>> {
    const url = new URL(`${this.url}${this.basePath}/${seg(this.user)}${path}`);
    if (options.query !== undefined) url.search = typeof options.query === 'string' ? options.query : queryString(options.query);
    const body = options.json !== undefined ? Buffer.from(JSON.stringify(options.json), 'utf8')
      : typeof options.raw === 'string' ? Buffer.from(options.raw, 'utf8')
      : options.raw !== undefined ? options.raw
      : undefined;
    // One key per logical call, the same on every retry: that is what makes a retried learn apply once.
    const key = idempotencyKeyOf(method, options.idempotencyKey, this.#idempotencyKeys);
    const retry = options.retry ?? this.#retry;
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    const call = callSignal(options.signal, timeoutMs, () => new RequestTimeoutError(method, url.pathname, timeoutMs));
    try {
      for (let attempt = 0; ; attempt++) {
        const res = await this.#attempt<V>(method, url, body, options, key, call.signal);
        if (!RETRIED_STATUSES.has(res.status) || retry === false || attempt >= (retry.retries ?? DEFAULT_RETRIES)) return res;
        const delayMs = retryDelay(res.headers['retry-after'], attempt, retry);
        // A wait that would outlast the call's bound answers the last response instead of a timeout.
        if (call.deadline !== undefined && Date.now() + delayMs >= call.deadline) return res;
        retry.onRetry?.({ retry: attempt + 1, status: res.status, delayMs, method, path: url.pathname });
        await sleep(delayMs, undefined, { signal: call.signal });
      }
    } catch (err) {
      throw call.signal.aborted ? call.signal.reason : err;
    } finally {
      call.dispose();
    }
  }

  /** One signed exchange: signed anew each time, since the gateway refuses a signature it has seen. */
  async #attempt<V>(method: string, url: URL, body: Uint8Array | undefined, options: RequestOptions, key: string | undefined, signal: AbortSignal): Promise<SmlResponse<V>> {
    const md5 = contentMd5(body);
    // Random sub-millisecond digits keep two requests of the same millisecond from
    // signing identically, which the gateway's replay cache would refuse.
    const now = new Date();
    const symDate = formatSymDate(now, now.getUTCMilliseconds() * 1_000_000 + randomInt(1_000_000));
    // Sign exactly what goes on the wire: URL has already normalised path and query.
    const authorization = signParts({
      method, contentMd5: md5, secret: this.#secret, symDate, customerId: this.user, body, resource: url.pathname, query: url.search.slice(1),
    });
    const headers: Record<string, string> = {
      ...(body && { 'content-type': options.json !== undefined ? 'application/json' : 'text/plain' }),
      ...(key !== undefined && { 'idempotency-key': key }),
      ...lowerCased(options.headers),
      'customer-id': this.user,
      'sym-date': symDate,
      'content-md5': md5,
      'sym-version': SYM_VERSION,
      authorization,
    };
    const res = await this.#transport({ method, url, headers, body, signal });
    const text = res.text;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (cause) {
      throw new UnexpectedResponseError(`${method} ${url.pathname} answered ${res.status} with a non-JSON body`, res.status, text, { cause });
    }
    if (!isEnvelope(parsed)) throw new UnexpectedResponseError(`${method} ${url.pathname} answered ${res.status} without an envelope`, res.status, text);
    return { status: res.status, headers: res.headers, body: parsed as Envelope<V> };
  }

  /**
   * Polls `GET /jobs/{id}` until the job is no longer running (202) and returns that
   * answer: 200 with the result, or the failure's status. Accepts a job id or the 202
   * response that created the job. `onProgress` sees done/total/percent of each running
   * answer, and 100 % once when the job succeeded.
   */
  async waitForJob<V = Record<string, unknown>>(job: SmlResponse<unknown> | string | number, options: WaitOptions = {}): Promise<SmlResponse<V>> {
    const { timeoutMs = 60_000, intervalMs = 100, signal } = options;
    const jobId = typeof job === 'object' ? job.headers['sym-job-id'] : String(job);
    if (!jobId) throw new TypeError('waitForJob needs a job id or a response with a sym-job-id header');
    const deadline = Date.now() + timeoutMs;
    let last: JobInfo | undefined;
    for (;;) {
      const res = await this.operations.getJob<V>(jobId, { signal });
      if (res.status !== 202) {
        if (res.status === 200 && last !== undefined) options.onProgress?.({ ...jobProgress(jobId, last), done: last.maximum, percent: 100 });
        return res;
      }
      const { jobinfo } = (res.body.values ?? {}) as { jobinfo?: JobInfo };
      if (jobinfo) {
        last = jobinfo;
        options.onRunning?.(jobinfo);
        options.onProgress?.(jobProgress(jobId, jobinfo));
      }
      if (Date.now() + intervalMs > deadline) throw new JobTimeoutError(jobId, timeoutMs);
      await sleep(intervalMs, undefined, { signal });
    }
  }

  listJobs(options: { all?: boolean } = {}) {
    return this.operations.listJobs<{ jobinfolist: JobInfo[] }>({ query: options.all ? { all: 'true' } : {} });
  }

  /** 200 with the result when finished, 202 with `values.jobinfo` while running. */
  getJob<V = Record<string, unknown>>(jobId: string | number) {
    return this.operations.getJob<V>(String(jobId));
  }

  cancelJob(jobId: string | number) {
    return this.operations.cancelJob(String(jobId));
  }

  /** Root only; the new customer's secret is returned once, in `values.secretKey`. */
  addUser(user: string) {
    return this.operations.addUser<{ secretKey: string }>({ query: { cid: user } });
  }

  deleteUser(user: string) {
    return this.operations.deleteUser(user);
  }

  createProject(pid: string, options: CreateProjectOptions = {}) {
    const query: CreateProjectQuery = { pid, type: options.type, persist: flag(options.persist), enableHistogram: flag(options.enableHistogram), histogramType: options.histogramType };
    return this.operations.createProject({ query, json: options.params });
  }

  projectInfo(pid: string, options: { async?: boolean; hash?: boolean } = {}) {
    const query: ProjectInfoQuery = { ...asyncQuery(options.async), ...(options.hash && { hash: '1' }) };
    return this.operations.projectInfo<{ smlInfo: Record<string, unknown> }>(pid, { query });
  }

  listProjects() {
    return this.operations.listProjects<{ stringList: { values: string[] } }>();
  }

  deleteProject(pid: string) {
    return this.operations.deleteProject(pid);
  }

  learn(pid: string, frame: DataFrame, options: { async?: boolean } & CallOptions = {}) {
    return this.operations.learnProject(pid, { ...callOptions(options), query: asyncQuery(options.async), json: frame });
  }

  /** The exact inverse of `learn`. */
  forget(pid: string, frame: DataFrame, options: { async?: boolean } & CallOptions = {}) {
    return this.operations.forgetProject(pid, { ...callOptions(options), query: asyncQuery(options.async), json: frame });
  }

  /** Registers a data source (201); the DSInfo travels encrypted with this client's secret (v2, API.md §2.4). */
  createDataSource(ds: DsInfo) {
    return this.operations.createDataSource({ raw: encryptDsInfo(ds, this.#secret) });
  }

  /** ≤ 128 rows of a DSInfo with guessed types, registering nothing (values.dataframe). */
  previewDataSource(ds: DsInfo) {
    return this.operations.previewDataSource<{ dataframe: DsSample }>({ raw: encryptDsInfo(ds, this.#secret) });
  }

  /** The customer's data sources, as `"<name>:<type>"`. */
  listDataSources() {
    return this.operations.listDataSources<{ stringList: { values: string[] } }>();
  }

  /** A registered DSInfo; its credentials (s3secretKey, rspasswd …) are never answered. */
  getDataSource(ds: string) {
    return this.operations.getDataSource<{ dsInfo: DsInfo }>(ds);
  }

  /** Replaces the whole DSInfo registered as `ds.name` (credentials included: send them again), encrypted as for create. */
  updateDataSource(ds: DsInfo) {
    return this.operations.updateDataSource(ds.name, { raw: encryptDsInfo(ds, this.#secret) });
  }

  /** Unregisters a data source; its files are untouched. */
  deleteDataSource(ds: string) {
    return this.operations.deleteDataSource(ds);
  }

  /** The first ≤ 128 rows of a registered data source (values.dataframe). */
  sampleDataSource(ds: string) {
    return this.operations.sampleDataSource<{ dataframe: DsSample }>(ds);
  }

  /** The folders and files under `info.path` of a localfile or s3 DSInfo (dsbrowse), registering nothing. */
  browseDataSource(ds: DsInfo) {
    return this.operations.browseDataSource<{ dsdirectoryListing: DsListing }>({ raw: encryptDsInfo(ds, this.#secret) });
  }

  /** Adds a registered data source to the project's dsList (`addds`), or with `detach` removes it (`detachds`). */
  attachDataSource(pid: string, ds: string, options: { detach?: boolean } = {}) {
    return options.detach ? this.operations.detachdsProject(pid, ds) : this.operations.adddsProject(pid, ds);
  }

  /** The project's most recent data-source learn/forget jobs (values.dsLog) and its quarantined log batches. */
  dataSourceLog(pid: string) {
    return this.operations.projectLog<{ dsLog: DsLogEntry[]; quarantined: Array<Record<string, unknown>> }>(pid);
  }

  /** Learns (or, with `forget`, forgets) a registered data source into a project: a job (202); see `waitForJob`. */
  learnDataSource(pid: string, ds: string, columns: DsColumns = {}, options: { forget?: boolean } = {}) {
    return options.forget ? this.operations.forgetFromDataSource(pid, ds, { json: columns }) : this.operations.learnFromDataSource(pid, ds, { json: columns });
  }

  /** Creates a stream (DSInfo of type kafka or nats, encrypted) learning every record into the project (201); `fromBeginning`: from the first record the source holds. */
  createStream(pid: string, ds: DsInfo, options: { fromBeginning?: boolean } = {}) {
    return this.operations.createStream(pid, { query: { fromBeginning: flag(options.fromBeginning === true) }, raw: encryptDsInfo(ds, this.#secret) });
  }

  /** The names of the project's streams. */
  listStreams(pid: string) {
    return this.operations.listStreams<{ stringList: { values: string[] } }>(pid);
  }

  /** Resumes (`start`) or suspends (`stop`) a stream; stop answers once nothing more is learned. */
  streamAction(pid: string, stream: string, action: 'start' | 'stop') {
    return action === 'start' ? this.operations.startStream(pid, stream) : this.operations.stopStream(pid, stream);
  }

  /** Stops and removes a stream. */
  deleteStream(pid: string, stream: string) {
    return this.operations.deleteStream(pid, stream);
  }

  /** A stream's counters and state as one string map (values.KSVSMap.values[0]). */
  streamMetrics(pid: string, stream: string) {
    return this.operations.streamMetrics<{ KSVSMap: { values: Array<Record<string, string>> } }>(pid, stream);
  }

  /** A stream's most recent errors (rejected records, source failures), oldest first. */
  streamErrorLog(pid: string, stream: string) {
    return this.operations.streamErrorLog<{ stringList: { values: string[] } }>(pid, stream);
  }

  /**
   * The next records of a Kafka poller (values.dataframe): `sid` polls the registered kafka data
   * source of that name, else `ds` (type kafka; kafka-poll answers 400 with the dataframe too).
   * `fromBeginning` counts on a poller's first poll only.
   */
  pollStream(options: { sid?: string; ds?: DsInfo; fromBeginning?: boolean }) {
    const query: Record<string, string> = { ...(options.sid ? { sid: options.sid } : {}), ...(options.fromBeginning ? { fromBeginning: 'true' } : {}) };
    return this.operations.pollStream<{ dataframe: DsSample }>({ query, ...(options.ds ? { raw: encryptDsInfo(options.ds, this.#secret) } : {}) });
  }

  /** Closes the poller `sid`, and deletes the registered kafka data source of that name if any (200 'OK' for an unknown sid). */
  deletePoller(sid: string) {
    return this.operations.deletePoller({ query: { sid } });
  }

  /** Kafka topics (`<topic>:<partitions>`) or NATS streams (`dirs`) / a stream's subjects (`info.path`: `files`). */
  browseStreams(ds: DsInfo) {
    return this.operations.browseStreams<{ dsdirectoryListing: StreamListing }>({ raw: encryptDsInfo(ds, this.#secret) });
  }

  /** Up to 128 records of a Kafka topic or NATS subject as a DataFrame; registers nothing. */
  previewStream(ds: DsInfo) {
    return this.operations.previewStream<{ dataframe: DsSample }>({ raw: encryptDsInfo(ds, this.#secret) });
  }

  /**
   * Batch scoring: predicts every row of data source `inDs` with model `modelId` and writes the
   * rows with their predictions to data source `outDs` (localfile or redshift). A job (202);
   * the finished job's `values.predictReport` counts rows and bytes.
   */
  predictDataSource(pid: string, modelId: string, inDs: string, outDs: string, columns: DsColumns = {}) {
    return this.operations.predictDataSource(pid, modelId, { query: { indsname: inDs, outdsname: outDs }, json: columns });
  }

  /** selectModel scored on the rows of data source `ds` (instead of an inline dataframe): a job (202) whose result is `values.modelInfo`. */
  selectModelOnDataSource(pid: string, ds: string, modelId: string, algo: string, mlcontext: MLContext) {
    return this.operations.selectModelOnDataSource(pid, ds, { query: { modelid: modelId, algo }, json: mlcontext });
  }

  /**
   * autoSelect: every algorithm of `task` (binary_classification / binary_classifier,
   * regression, multiclass_classifier) × feature subsets × the parameter grid, scored on
   * `dataframe`; the best is stored as `modelId`. A job (202) whose result is `values.modelInfo`
   * (`algo` the winner, `extra.leaderboard` JSON).
   */
  autoSelect(pid: string, modelId: string, task: string, mlcontext: MLContext, dataframe: DataFrame) {
    return this.operations.autoSelect(pid, { query: { modelid: modelId, task }, json: { mlcontext, dataframe } });
  }

  /** autoSelect scored on the rows of data source `ds` instead of an inline dataframe. */
  autoSelectOnDataSource(pid: string, ds: string, modelId: string, task: string, mlcontext: MLContext) {
    return this.operations.autoSelectOnDataSource(pid, ds, { query: { modelid: modelId, task }, json: mlcontext });
  }

  /** Builds model `modelId` with `algo` from the project's summary: a job (202) whose result is `values.modelInfo`; see `waitForJob`. */
  buildModel(pid: string, modelId: string, algo: string, mlcontext: MLContext, options: CallOptions = {}) {
    return this.operations.buildModel<ModelInfoValues>(pid, { ...callOptions(options), query: { modelid: modelId, algo }, json: mlcontext });
  }

  /** A model's algorithm, attributes, parameters and assessment (`values.modelInfo`). */
  modelInfo(pid: string, modelId: string) {
    return this.operations.modelInfo(pid, modelId);
  }

  /** Predicts the rows of `frame` with model `modelId`: `values.KSVSMap.values`, one map per row (`predictionRecords` reads them). */
  predict(pid: string, modelId: string, frame: DataFrame, options: CallOptions = {}) {
    return this.operations.predict(pid, modelId, { ...callOptions(options), json: frame });
  }

  /**
   * learnpredict: learns `frame` (as `learn`) and predicts its rows with `modelId` (as
   * predict), one call; `values.KSVSMap.values` one map per row. SymetryML's defaults:
   * predictBeforeLearn true, rebuildModel false.
   */
  learnPredict(pid: string, modelId: string, frame: DataFrame, options: { predictBeforeLearn?: boolean; rebuildModel?: boolean; keepColumns?: string[] } & CallOptions = {}) {
    const query: Record<string, string> = {};
    if (options.predictBeforeLearn !== undefined) query.predictBeforeLearn = String(options.predictBeforeLearn);
    if (options.rebuildModel !== undefined) query.rebuildModel = String(options.rebuildModel);
    if (options.keepColumns?.length) query.keepColumns = options.keepColumns.join(',');
    return this.operations.learnPredict<{ KSVSMap: { values: Array<Record<string, string>> } }>(pid, modelId, { ...callOptions(options), query, json: frame });
  }
}

/** Query parameters as a query string, undefined ones left out. */
function queryString(query: Readonly<Record<string, string | undefined>>): string {
  return new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined)).toString();
}

/** The CallOptions of a shorthand's options (the rest are the shorthand's own). */
function callOptions({ timeoutMs, signal, retry, idempotencyKey }: CallOptions): CallOptions {
  return { timeoutMs, signal, retry, idempotencyKey };
}

function lowerCased(headers: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
}

/**
 * The default Transport: node:http(s) through `agent` (the client's keep-alive agent; none:
 * node's global one). Exported so that a transport of one's own (logging, a proxy, a fault
 * injected in a test) can wrap it.
 */
export function httpTransport(agent?: http.Agent, maxAnswerBytes = Infinity): Transport {
  return (exchange) => send(exchange, agent, maxAnswerBytes);
}

/** One HTTP exchange over node:http(s); an answer body over `maxAnswerBytes` closes the connection unread. */
function send({ method, url, headers, body, signal }: HttpExchange, agent: http.Agent | undefined, maxAnswerBytes: number): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = (url.protocol === 'https:' ? https : http).request(url, { method, headers, agent, signal }, (res) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes <= maxAnswerBytes) chunks.push(chunk);
        else {
          reject(new AnswerTooLargeError(url.origin, maxAnswerBytes));
          req.destroy();
        }
      });
      res.on('error', reject);
      res.on('end', () => {
        const answerHeaders: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) answerHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
        resolve({ status: res.statusCode ?? 0, headers: answerHeaders, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    // An abort is the call's (timeout or caller), not an unreachable gateway.
    req.on('error', (err) => reject(signal.aborted ? (signal.reason as Error) : new GatewayUnreachableError(url.origin, err)));
    req.end(body);
  });
}

/** The statuses a call is sent again for: the gateway's retryable refusals (catalogue `retryable`, with `Retry-After`). */
const RETRIED_STATUSES = new Set([429, 503]);
const DEFAULT_RETRIES = 3;
const DEFAULT_BASE_DELAY_MS = 200;
const DEFAULT_MAX_DELAY_MS = 30_000;
/** Longer than any synchronous route's own bound, so that the gateway answers first. */
const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * The wait before retry `attempt + 1`: the answer's `Retry-After` (seconds or an HTTP date)
 * when it has one, else an exponential backoff with equal jitter (half fixed, half random, so
 * that clients refused together do not come back together); at most `maxDelayMs`.
 */
export function retryDelay(retryAfter: string | undefined, attempt: number, options: RetryOptions, now = Date.now(), random = Math.random): number {
  const max = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const given = retryAfter === undefined ? undefined
    : /^\s*\d+\s*$/.test(retryAfter) ? Number(retryAfter) * 1000
    : Date.parse(retryAfter) - now;
  if (given !== undefined && Number.isFinite(given)) return Math.min(max, Math.max(0, given));
  const backoff = Math.min(max, (options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS) * 2 ** attempt);
  return backoff / 2 + random() * (backoff / 2);
}

/** The Idempotency-Key a call sends, if any: its own, a new one, or (for a write, when the client keys writes) a new one. */
function idempotencyKeyOf(method: string, option: string | boolean | undefined, keyWrites: boolean): string | undefined {
  if (typeof option === 'string') return option;
  const wanted = option ?? (keyWrites && method.toUpperCase() !== 'GET');
  return wanted ? randomUUID() : undefined;
}

/** A call's signal: aborted by the caller's signal or, after `timeoutMs` (0: never), with the timeout's error. */
function callSignal(outer: AbortSignal | undefined, timeoutMs: number, timeoutError: () => Error): { signal: AbortSignal; deadline: number | undefined; dispose(): void } {
  const controller = new AbortController();
  const onAbort = () => controller.abort(outer!.reason);
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener('abort', onAbort, { once: true });
  const timer = timeoutMs > 0 ? setTimeout(() => controller.abort(timeoutError()), timeoutMs) : undefined;
  timer?.unref();
  return {
    signal: controller.signal,
    deadline: timeoutMs > 0 ? Date.now() + timeoutMs : undefined,
    dispose() {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    },
  };
}

/** done/total/percent of a running job's jobinfo. */
function jobProgress(jobId: string, info: JobInfo): JobProgress {
  const total = info.maximum;
  return { jobId, done: info.current, total, percent: total > 0 ? Math.min(100, (100 * info.current) / total) : undefined, info };
}

import { checkName, guessType, nameToken, smlError, SmlError, type Logger } from '@sml/core';
import { sml } from '@sml/proto';
import { Summary } from '@sml/stats';
import { browseLocal, browseS3, csvBatches, csvOptionsOf, SOURCE_TYPES, sourceOf, SourceError, STREAM_SOURCE_TYPES, type ReadLimits, type Source, type SourceContext } from '@sml/sources';
import type { JobContext } from '@sml/jobs-client';
import { SAMPLE_ROWS } from './plan';
import { DsReaders } from './reader';
import { dsFailure } from './rows';
import { DsStaging } from './staging';
import { dsColumnsFromProto, dsInfoFromProto, dsLogEntryFromProto, requestedDsInfo, type DsColumns, type DsInfo, type DsLogEntry, type DsRun } from './types';
import type { ProjectEncoders } from '../learning/encoding';
import type { OnlineRunner } from '../predict/online-pool';
import { OnlineUpdates } from '../predict/online-updates';
import { summaryOptions, type ProjectLimits } from '../lifecycle/project';
import type { ProjectRegistry } from '../lifecycle/registry';
import type { DataSourceRecords, ProjectMetas } from '../ports';

export { SAMPLE_ROWS } from './plan';

/** What a learn / forget job answers (the LearnReport reply). */
interface LearnReport { rowsLearned: number; rowsSkipped: number; errors: string[] }

/** Characters (+ 16 per cell) a sample holds at most: fewer rows when they are long. */
const SAMPLE_COST = 4 << 20;
/** Rows per batch learned from a data source. */
const BATCH_ROWS = 2000;
/** Data-source jobs a project's log keeps (the most recent). */
const DS_LOG_KEEP = 100;
/** Largest DSInfo kept (encoded): paths, credentials and options, never data. */
export const MAX_DSINFO_BYTES = 64 * 1024;

/** Keys of DSInfo `info` that hold credentials: stored, never returned nor logged. */
const SECRET_KEY = /secret|passw|pwd|token|credential|sas|account\.key|apikey/i;

/** The password of a URL's user info (`scheme://user:password@host…`): a secret too. */
const URL_PASSWORD = /^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*):[^/?#@]*@/i;

/** A DsInfo as answered: without its secrets. */
export function redacted(ds: DsInfo): DsInfo {
  const info = Object.entries(ds.info).filter(([k]) => !SECRET_KEY.test(k)).map(([k, v]): [string, string] => [k, String(v).replace(URL_PASSWORD, '$1@')]);
  return { ...ds, info: Object.fromEntries(info) };
}

/**
 * Data sources (API.md §5): the registry (KV `sml_dss`, key `<customer token>.<ds token>`,
 * value the DsInfo protobuf), samples, previews, dsbrowse, and learning or forgetting a
 * source into a project. A learn job reads into a staging Summary (the project's options)
 * and adds it to the project under its lock at the end, then snapshots (like merge): the
 * project is either unchanged (a failure, a cancel) or has every row.
 */
export class DataSources {
  /** Threads that read and parse CSV sources for learn jobs. */
  private readonly readers = new DsReaders();

  constructor(private readonly deps: {
    kv: DataSourceRecords; registry: ProjectRegistry; store: ProjectMetas; limits: ProjectLimits; filesRoot: string; log: Logger;
    /** SML_SOURCE_TIMEOUT_MS: a remote source's silence, and the whole of a sample or preview. */
    timeoutMs: number;
    /** The bounds of a job's read and of a request's (readLimitsOf). */
    readLimits: { job: ReadLimits; request: ReadLimits };
    /** SML_SOURCES_ALLOW_PRIVATE */
    allowPrivate: boolean;
    /** SML_MAX_DATA_SOURCES_PER_CUSTOMER */
    maxPerCustomer: number;
    /** A project with an encoder (encoderAssign) learns its S/L columns encoded, as an inline learn does. */
    encoders?: ProjectEncoders;
    /** Where the staging summary's online models (forest, micro-clusters) learn, as a project's do (RegistryOptions.online). */
    online?: OnlineRunner;
  }) {}

  /** Ends the idle reading threads (service shutdown). */
  async stop(): Promise<void> {
    await this.readers.stop();
  }

  private encoded(ds: DsInfo): Uint8Array {
    const bytes = sml.v1.DsInfo.encode(ds).finish();
    if (bytes.length > MAX_DSINFO_BYTES) throw smlError('DS_TOO_LARGE', { ds: ds.name, bytes: bytes.length, limit: MAX_DSINFO_BYTES });
    return bytes;
  }

  private static key(user: string, ds: string): string {
    return `${nameToken(user)}.${nameToken(ds)}`;
  }

  /** A read's context: `read` says which bounds it is under (none: a source only checked, never read). */
  private ctx(user: string, read?: 'job' | 'request', signal?: AbortSignal): SourceContext {
    return {
      user, filesRoot: this.deps.filesRoot, timeoutMs: this.deps.timeoutMs, allowPrivate: this.deps.allowPrivate,
      ...(signal ? { signal } : {}), ...(read ? { limits: this.deps.readLimits[read] } : {}),
    };
  }

  /** A DSInfo as sent, checked: name, type, info strings, the type's own checks. */
  checked(user: string, req: sml.v1.IDsInfoRequest, name?: string): { ds: DsInfo; source?: Source } {
    const { type, name: requested, info, extra } = requestedDsInfo(req);
    const ds = checkName('data source', name ?? requested);
    const stream = (STREAM_SOURCE_TYPES as readonly string[]).includes(type);
    if (!stream && !(SOURCE_TYPES as readonly string[]).includes(type)) throw smlError('DS_UNKNOWN_TYPE', { type: type.slice(0, 100), expected: [...SOURCE_TYPES, ...STREAM_SOURCE_TYPES].join(', ') });
    const bad = extra.find((t) => !['C', 'B', 'T', 'S', 'L', 'X'].includes(t));
    if (bad !== undefined) throw smlError('DS_INVALID', { ds, detail: `extra holds an unknown attribute type [${bad.slice(0, 20)}]` });
    // kafka / nats: kept for the streams service (POST /streams/poll?sid=), which checks them when it reads them.
    if (stream) return { ds: { type, name: ds, info, extra } };
    try {
      if (type !== 'redshift') csvOptionsOf(info, info.path ?? '');
      return { ds: { type, name: ds, info, extra }, source: sourceOf(type, info, this.ctx(user)) };
    } catch (err) {
      return dsFailure(err, ds);
    }
  }

  async create(user: string, req: sml.v1.IDsInfoRequest): Promise<string> {
    const { ds } = this.checked(user, req);
    const bytes = this.encoded(ds);
    const count = (await this.keys(user)).length;
    if (count >= this.deps.maxPerCustomer) throw smlError('DS_LIMIT', { user, count, variable: 'SML_MAX_DATA_SOURCES_PER_CUSTOMER' });
    try {
      await this.deps.kv.create(DataSources.key(user, ds.name), bytes);
    } catch (err) {
      if (/wrong last sequence|exists/i.test((err as Error).message)) throw smlError('DS_EXISTS', { ds: ds.name });
      throw err;
    }
    return ds.name;
  }

  async update(user: string, name: string, req: sml.v1.IDsInfoRequest): Promise<string> {
    const dsName = checkName('data source', name);
    await this.info(user, dsName);
    const { ds } = this.checked(user, req, dsName);
    await this.deps.kv.put(DataSources.key(user, dsName), this.encoded(ds));
    return dsName;
  }

  /** The registered DSInfo (with its secrets: for reading only). DS_NOT_FOUND when unknown. */
  async info(user: string, name: string): Promise<DsInfo> {
    const ds = checkName('data source', name);
    const entry = await this.deps.kv.get(DataSources.key(user, ds));
    if (!entry || entry.operation !== 'PUT') throw smlError('DS_NOT_FOUND', { ds });
    return dsInfoFromProto(sml.v1.DsInfo.decode(entry.value));
  }

  async delete(user: string, name: string): Promise<void> {
    await this.info(user, name);
    await this.deps.kv.delete(DataSources.key(user, name));
  }

  private async keys(user: string): Promise<string[]> {
    const keys: string[] = [];
    for await (const key of await this.deps.kv.keys(`${nameToken(user)}.*`)) keys.push(key);
    return keys;
  }

  /** Every data source of a deleted customer (purgeCustomer); its files are the operator's. */
  async purge(user: string): Promise<void> {
    for (const key of await this.keys(user)) await this.deps.kv.purge(key).catch((err) => this.deps.log.warn({ err, user }, 'purge: data source not deleted'));
  }

  /** `<name>:<type>` of every data source of the customer, sorted. */
  async list(user: string): Promise<string[]> {
    const keys = await this.keys(user);
    const out: string[] = [];
    for (const key of keys) {
      const entry = await this.deps.kv.get(key);
      if (!entry || entry.operation !== 'PUT') continue;
      const d = sml.v1.DsInfo.decode(entry.value);
      out.push(`${d.name}:${d.type}`);
    }
    return out.sort();
  }

  /** The first ≤ 128 rows of a source, with guessed types (or the DSInfo's `extra`). */
  async sample(user: string, ds: DsInfo): Promise<sml.v1.IDataFrame> {
    try {
      // Under SML_SOURCE_TIMEOUT_MS in all: a silent or trickling source answers 400 naming it
      // before the gateway's request timeout would answer 503 for the service.
      const source = sourceOf(ds.type, ds.info, this.ctx(user, 'request'));
      let header: string[] = [];
      const rows: string[][] = [];
      if (source.kind === 'rows') {
        header = await source.columns();
        for await (const batch of source.open(SAMPLE_ROWS)) {
          rows.push(...batch.map((r) => r.map((c) => c ?? '')));
          if (rows.length >= SAMPLE_ROWS) break;
        }
      } else {
        let cost = 0;
        for await (const batch of csvBatches(source.open(), { ...csvOptionsOf(ds.info, source.describe()), batchRows: SAMPLE_ROWS, maxBatchCost: SAMPLE_COST })) {
          header = batch.header;
          for (const r of batch.rows) {
            cost += r.length * 16 + r.reduce((a, c) => a + c.length, 0);
            if (cost > SAMPLE_COST && rows.length > 0) break;
            rows.push(r);
          }
          if (rows.length >= SAMPLE_ROWS || cost > SAMPLE_COST) break;
        }
      }
      const data = rows.slice(0, SAMPLE_ROWS);
      const extra = ds.extra;
      const types = extra.length === header.length ? [...extra] : header.map((_, i) => guessType(data.map((r) => r[i] ?? '')));
      return { attributeNames: header, attributeTypes: types, data: data.map((entries) => ({ entries })), errorHandling: 0 };
    } catch (err) {
      return dsFailure(err, ds.name);
    }
  }

  async sampleOf(user: string, name: string): Promise<sml.v1.IDataFrame> {
    return this.sample(user, await this.info(user, name));
  }

  async preview(user: string, req: sml.v1.IDsInfoRequest): Promise<sml.v1.IDataFrame> {
    const { ds } = this.checked(user, req);
    return this.sample(user, ds);
  }

  /** dsbrowse: the directories and files under a localfile path or an s3 prefix (the DSInfo's info.path, '' = the root). */
  async browse(user: string, req: sml.v1.IDsInfoRequest): Promise<sml.v1.IDsDirectoryListing> {
    const { type, name, info } = requestedDsInfo(req);
    if (type !== 'localfile' && type !== 's3') throw smlError('DS_NOT_BROWSABLE', { type: type.slice(0, 100) });
    try {
      if (type === 's3') {
        // Every page of the listing, in all, within SML_SOURCE_TIMEOUT_MS (as a sample).
        const ms = this.deps.timeoutMs;
        const bounded = new AbortController();
        const timer = setTimeout(() => bounded.abort(new SourceError('unreachable', `s3://${String(info.s3bucket ?? '').slice(0, 100)}: the listing did not end within ${ms} ms (SML_SOURCE_TIMEOUT_MS)`)), ms);
        try {
          return await browseS3(info, this.ctx(user, undefined, bounded.signal), info.path ?? '');
        } finally {
          clearTimeout(timer);
        }
      }
      return await browseLocal(info.path ?? '', this.ctx(user));
    } catch (err) {
      return dsFailure(err, name || '-');
    }
  }

  /** addds / detachds: the project's dsList. */
  async attach(user: string, pid: string, name: string, attach: boolean): Promise<void> {
    const ds = checkName('data source', name);
    if (attach) await this.info(user, ds);
    await this.deps.registry.with(user, pid, async (p) => {
      const list = p.meta.dsList.filter((d) => d !== ds);
      if (attach) list.push(ds);
      else if (list.length === p.meta.dsList.length) throw smlError('DS_NOT_FOUND', { ds });
      p.meta.dsList = list;
      if (!p.memoryOnly) await this.deps.store.putMeta(p.meta);
    });
  }

  /** Checks done before a learn/forget job is created: the project (400), not frozen, the data source (400). */
  async prepareLearn(user: string, pid: string, name: string | null | undefined): Promise<{ ds: string; info: DsInfo }> {
    await this.deps.registry.with(user, pid, (p) => {
      if (p.meta.frozen) throw smlError('PROJECT_FROZEN', { pid });
    });
    const ds = checkName('data source', name);
    return { ds, info: await this.info(user, ds) };
  }

  /**
   * The job: reads the source in batches into a staging summary, then adds (learn) or
   * subtracts (forget) it under the project's lock and snapshots. Any failure or a cancel
   * leaves the project as it was; the outcome is kept in the project's dsLog either way.
   */
  async learn(user: string, pid: string, ds: string, info: DsInfo, frame: sml.v1.IDataFrame, op: 'learn' | 'forget', job: JobContext): Promise<LearnReport> {
    const run: DsRun = { jobId: job.jobId, ds, op, rowsRead: 0, rowsLearned: 0, rowsSkipped: 0, bytesRead: 0, started: Date.now() };
    try {
      const report = await this.read(user, pid, info, dsColumnsFromProto(frame), job, run);
      await this.record(user, pid, { ...run, state: 'done' });
      return report;
    } catch (err) {
      const cancelled = job.signal.aborted;
      const message = err instanceof Error ? err.message : String(err);
      await this.record(user, pid, { ...run, state: cancelled ? 'cancelled' : 'failed', error: message }).catch((e) => this.deps.log.warn({ err: e, pid }, 'ds log not kept'));
      if (err instanceof SmlError || cancelled) throw err;
      throw smlError('DS_LEARN_FAILED', { ds, detail: message }, err);
    }
  }

  private async read(user: string, pid: string, info: DsInfo, columns: DsColumns, job: JobContext, run: DsRun): Promise<LearnReport> {
    const { ds, op } = run;
    const { staging, seededAt, encoderName } = await this.deps.registry.with(user, pid, (p) => {
      const staged = new Summary(summaryOptions(p.meta, this.deps.limits));
      return { staging: staged, seededAt: p.seedStaging(staged), encoderName: p.meta.encoder };
    });
    // The staging forest learns on the online-model threads too, batch by batch in order (a
    // failed update fails the job: its forest is gone), and is whole before it is merged.
    const online = this.deps.online && staging.hasOnlineModels ? new OnlineUpdates(staging, this.deps.online, () => undefined) : undefined;
    // The encoder's statistics as the job starts, for every batch of it.
    const encoder = encoderName && this.deps.encoders ? await this.deps.encoders.encoder(user, encoderName) : undefined;
    let source: Source;
    try {
      source = sourceOf(info.type, info.info, this.ctx(user, 'job', job.signal));
    } catch (err) {
      return dsFailure(err, ds);
    }
    const where = source.describe();
    const batches = new DsStaging({
      staging, limits: this.deps.limits.state, run, info, columns, where,
      ...(online ? { online } : {}), ...(encoder ? { encoder } : {}),
    });
    // The fast path: a reading thread parses numeric fields from the bytes straight into
    // columns (read-worker.ts); this thread adds them to the staging summary. Encoded
    // columns and summaries that read every cell as text take the general path.
    const fast = source.kind === 'bytes' && !encoder && !staging.needsCells;
    try {
      await this.readInto(batches, fast ? undefined : source, user, info, columns, job);
    } catch (err) {
      if (job.signal.aborted) throw err; // the runner answers a cancelled job
      return dsFailure(err, ds);
    }
    await online?.settled();
    if (job.signal.aborted) throw smlError('JOB_CANCELLED');
    // All read: now, and only now, the project changes (under its lock), and is snapshotted.
    await this.deps.registry.with(user, pid, async (p) => {
      if (p.meta.frozen) throw smlError('PROJECT_FROZEN', { pid });
      if (op === 'forget') p.forgetStaged(staging);
      else if (!p.mergeStaged(staging, `ds:${ds}`, seededAt)) {
        // Forests do not add up (README "Online forests"): the rows of this source are not in it.
        batches.errors.push(`the project changed while the source was read: its forest (rf_*) did not learn these rows`);
        this.deps.log.warn({ pid, ds }, 'forest kept without the data-source rows: the project changed during the job');
      }
      if (!p.memoryOnly) await this.deps.registry.save(p);
    });
    return { rowsLearned: run.rowsLearned, rowsSkipped: run.rowsSkipped, errors: batches.errors };
  }

  /**
   * Reads the whole source into `batches`, reporting progress: a CSV file parsed on a reading
   * thread (`source` undefined: the fast path), a table's rows, or a CSV file's rows as text.
   */
  private async readInto(batches: DsStaging, source: Source | undefined, user: string, info: DsInfo, columns: DsColumns, job: JobContext): Promise<void> {
    const { run } = batches;
    const next = async () => {
      await new Promise((resolve) => setImmediate(resolve));
      await batches.backlog();
    };
    if (source === undefined) {
      const task = {
        type: info.type, info: { ...info.info }, ctx: this.ctx(user, 'job'),
        columns: { attributeNames: columns.attributeNames, attributeTypes: columns.attributeTypes }, extra: info.extra, lenient: columns.lenient, ds: run.ds,
      };
      for await (const batch of this.readers.read(task, job.signal)) {
        if (job.signal.aborted) throw smlError('JOB_CANCELLED');
        batches.parsed(batch);
        await batches.backlog();
        run.bytesRead = batch.bytesRead;
        if (batch.total) job.progress(batch.bytesRead, batch.total);
      }
    } else if (source.kind === 'rows') {
      const [header, total] = [await source.columns(), await source.size()];
      for await (const rows of source.open(BATCH_ROWS)) {
        if (job.signal.aborted) throw smlError('JOB_CANCELLED');
        batches.rows(header, rows, undefined, run.rowsRead);
        if (total) job.progress(run.rowsRead, total);
        await next();
      }
    } else {
      const total = await source.size();
      for await (const batch of csvBatches(source.open(), { ...csvOptionsOf(info.info, source.describe()), batchRows: BATCH_ROWS })) {
        if (job.signal.aborted) throw smlError('JOB_CANCELLED');
        batches.rows(batch.header, batch.rows, batch.lines, 0);
        run.bytesRead = batch.bytesRead;
        if (total) job.progress(batch.bytesRead, total);
        await next();
      }
    }
  }

  /** Keeps a job's outcome in the project's dsLog (the most recent 100). */
  private async record(user: string, pid: string, entry: DsRun & { state: 'done' | 'failed' | 'cancelled'; error?: string }): Promise<void> {
    await this.deps.registry.with(user, pid, async (p) => {
      p.meta.dsLog = [...p.meta.dsLog, sml.v1.DsLogEntry.fromObject({ ...entry, finished: Date.now() })].slice(-DS_LOG_KEEP);
      if (!p.memoryOnly) await this.deps.store.putMeta(p.meta);
    });
  }

  async dsLog(user: string, pid: string): Promise<sml.v1.IDsLogEntry[]> {
    return this.deps.registry.with(user, pid, (p) => p.meta.dsLog);
  }

  async stats(user: string, pid: string): Promise<sml.v1.ILfStats> {
    const log = (await this.dsLog(user, pid)).map(dsLogEntryFromProto);
    const done = log.filter((e) => e.state === 'done');
    const sum = (xs: DsLogEntry[], f: (e: DsLogEntry) => number) => xs.reduce((a, e) => a + f(e), 0);
    return {
      learnJobs: done.filter((e) => e.op === 'learn').length,
      forgetJobs: done.filter((e) => e.op === 'forget').length,
      failedJobs: log.length - done.length,
      rowsLearned: sum(done.filter((e) => e.op === 'learn'), (e) => e.rowsLearned),
      rowsForgotten: sum(done.filter((e) => e.op === 'forget'), (e) => e.rowsLearned),
      rowsSkipped: sum(done, (e) => e.rowsSkipped),
      bytesRead: sum(done, (e) => e.bytesRead),
    };
  }
}

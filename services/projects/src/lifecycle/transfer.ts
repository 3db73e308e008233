import { createHash } from 'node:crypto';
import { checkName, checkParameters, smlError, SmlError, type ParameterBound } from '@sml/core';
import { contracts, okStatus, type BusService } from '@sml/bus';
import { jobResult, type JobRunner } from '@sml/jobs-client';
import { sml } from '@sml/proto';
import { ALGORITHMS, EvtWrapper, ModelInputError, Summary, type Model } from '@sml/stats';
import { projectMetaFromCreate } from './create';
import type { ProjectEncoders } from '../learning/encoding';
import { smlInfo } from './info';
import { summaryOptions, type ProjectLimits } from './project';
import type { ProjectRegistry } from './registry';
import type { ModelStorage, ProjectStorage } from '../ports';
import type { Shards } from '../replicas/shards';

/**
 * Projects and models as portable documents (API.md §12): GET /projects/info (every
 * project), rename, project export/import, model export/import.
 *
 * A document travels as base64 text of a JSON object:
 *
 *   project: {format: "sml-project", version: 1, exportedAt, project: {settings},
 *             summary: base64 of Summary.serialize() (its own versioned binary form),
 *             summarySha256, models: [model entry…], sha256}
 *   model:   {format: "sml-model", version: 1, exportedAt, model: {model entry}, sha256}
 *   model entry: {info: modelInfo, state: the algorithm's state JSON, evt: the EVT
 *                 wrapper's state JSON ("" = none), evtKey, stateSha256}
 *
 * `sha256` is the SHA-256 of JSON.stringify of the document without it: a document changed
 * after export (or damaged on the way) is refused. Everything is checked before anything is
 * stored: the size (SML_MAX_EXPORT_BYTES, before decoding), the format and version (an
 * unknown version is refused naming it: version 1 is the only one there is), the settings
 * (as a create would check them), the summary (its options must be the ones the settings
 * give, and its state within this service's limits, checked while it is read, before the
 * state is allocated), every model (known algorithm, a state its algorithm's own reader takes and predicts a row
 * from, input attributes the project has), the summary's statistics (Summary.checkStatistics).
 *
 * An import is all or nothing: the models and the snapshot are written under the new id
 * first, then the project's metadata, which is what makes a project exist (a KV create:
 * a project of that id created meanwhile wins, and what the import wrote is removed). An
 * imported project is persistent; its encoder and data sources are not carried (they are
 * the exporting customer's), nor its learn/forget log (its state is in the summary).
 */

export const DOCUMENT_VERSION = 1;
type Kind = 'project' | 'model';

interface ModelEntry {
  info: Record<string, unknown>;
  state: string;
  evt: string;
  evtKey: string;
  stateSha256: string;
}

interface ProjectSettings {
  pid: string;
  type: string;
  histogramEnabled: boolean;
  histogramType: string;
  params: Record<string, string>;
  categorySeparator: string;
  creationDate: number;
  lastModificationDate: number;
  frozen: boolean;
}

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const INFO_OBJECT = { longs: Number, defaults: true } as const;

function invalid(kind: Kind, detail: string, cause?: unknown): SmlError {
  return smlError('IMPORT_INVALID', { kind, detail }, cause);
}

/** A document's text as sent: the base64 text, that text as a JSON string, or an export's whole envelope. */
function documentText(body: Uint8Array, kind: Kind): string {
  let text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8').trim();
  if (text.startsWith('"') || text.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw invalid(kind, 'the body is neither base64 text nor a JSON string', err);
    }
    const values = (parsed as { values?: { status?: unknown } } | null)?.values;
    const inner = typeof parsed === 'string' ? parsed : values?.status;
    if (typeof inner !== 'string') throw invalid(kind, 'a JSON body must be the document as a string, or the envelope an export answered (values.status)');
    text = inner.trim();
  }
  return text.replace(/\s+/g, '');
}

function decodeBase64(text: string, kind: Kind, what: string): Buffer {
  if (text.length % 4 !== 0 || !BASE64.test(text)) throw invalid(kind, `${what} is not base64 text`);
  return Buffer.from(text, 'base64');
}

/** The document's JSON object, its size, format, version and digest checked. */
function readDocument(body: Uint8Array, kind: Kind, maxBytes: number): Record<string, unknown> {
  if (body.byteLength > maxBytes) throw smlError('IMPORT_TOO_LARGE', { kind, bytes: body.byteLength, limit: maxBytes });
  const json = decodeBase64(documentText(body, kind), kind, 'the document');
  let doc: unknown;
  try {
    doc = JSON.parse(json.toString('utf8'));
  } catch (err) {
    throw invalid(kind, 'the decoded document is not JSON', err);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw invalid(kind, 'the decoded document is not a JSON object');
  const d = doc as Record<string, unknown>;
  if (d.format !== `sml-${kind}`) throw invalid(kind, `format is [${String(d.format)}], expected [sml-${kind}]`);
  if (d.version !== DOCUMENT_VERSION) throw smlError('IMPORT_VERSION', { kind, version: JSON.stringify(d.version) ?? 'none', supported: DOCUMENT_VERSION });
  const { sha256: digest, ...rest } = d;
  if (typeof digest !== 'string' || digest !== sha256(JSON.stringify(rest))) throw invalid(kind, 'its sha256 does not match its content (changed or damaged after export)');
  return rest;
}

function encodeDocument(doc: Record<string, unknown>, kind: Kind, name: string, maxBytes: number): string {
  const text = Buffer.from(JSON.stringify({ ...doc, sha256: sha256(JSON.stringify(doc)) })).toString('base64');
  if (text.length > maxBytes) throw smlError('EXPORT_TOO_LARGE', { kind, name, bytes: text.length, limit: maxBytes });
  return text;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringMap = (v: unknown): v is Record<string, string> => isRecord(v) && Object.values(v).every((x) => typeof x === 'string');

function modelEntry(record: sml.v1.IModelRecord): ModelEntry {
  const state = record.stateJson ?? '';
  return {
    info: sml.v1.ModelInfo.toObject(sml.v1.ModelInfo.fromObject(record.info ?? {}), INFO_OBJECT),
    state, evt: record.evtJson ?? '', evtKey: record.evtKey ?? '', stateSha256: sha256(state),
  };
}

/** A model entry of a document as a record to store under `modelId` (default: its own id), checked. */
function modelRecordOf(entry: unknown, kind: Kind, bounds: Readonly<Record<string, ParameterBound>>, modelId?: string): { record: sml.v1.IModelRecord; model: Model } {
  if (!isRecord(entry) || !isRecord(entry.info) || typeof entry.state !== 'string' || typeof entry.evt !== 'string' || typeof entry.evtKey !== 'string') {
    throw invalid(kind, 'a model entry needs info, state, evt and evtKey');
  }
  if (entry.stateSha256 !== sha256(entry.state)) throw invalid(kind, 'a model state does not match its stateSha256');
  let info: sml.v1.ModelInfo;
  try {
    info = sml.v1.ModelInfo.fromObject(entry.info);
  } catch (err) {
    throw invalid(kind, `a model's info is not a modelInfo (${(err as Error).message})`, err);
  }
  info.modelId = checkName('model', modelId || info.modelId);
  const algorithm = ALGORITHMS[info.algo];
  if (!algorithm) throw invalid(kind, `model [${info.modelId}] is of an algorithm this build does not have [${info.algo}]`);
  let model: Model;
  try {
    // The reader predict itself restores with (state-read.ts): a state it refuses would fail every predict.
    const state: unknown = JSON.parse(entry.state);
    model = algorithm.restore(state);
    const evt: unknown = entry.evt ? JSON.parse(entry.evt) : undefined;
    if (evt !== undefined) EvtWrapper.restore(evt);
    for (const wrapper of [info.algo === 'evt' ? (state as { wrapper: unknown }).wrapper : undefined, evt]) if (wrapper !== undefined) checkEvtBounds(wrapper, bounds);
  } catch (err) {
    throw invalid(kind, `the state of model [${info.modelId}] cannot be read (${(err as Error).message})`, err);
  }
  try {
    // And one row with every input missing, on this throwaway copy: what the reader does not
    // see fails here, not in every later predict. Its cost is linear in the state's size.
    model.predict({ names: [...model.inputNames], rows: [model.inputNames.map(() => '')] });
  } catch (err) {
    if (!(err instanceof ModelInputError)) throw invalid(kind, `model [${info.modelId}] cannot predict from its state (${(err as Error).message})`, err);
  }
  return { record: { info, stateJson: entry.state, evtJson: entry.evt, evtKey: entry.evt ? entry.evtKey : '' }, model };
}

/**
 * An EVT wrapper's sizes (read by EvtWrapper.restore) within the evt_* bounds of this service
 * (SML_MAX_EVT_WINDOW), as a build or an evtwrapper request is held to: its lists grow to them
 * as it predicts.
 */
function checkEvtBounds(wrapper: unknown, bounds: Readonly<Record<string, ParameterBound>>): void {
  const p = (wrapper as { params: { warmupSize: number; windowSize: number; maxExceedances: number } }).params;
  checkParameters({ evt_warmup_size: String(p.warmupSize), evt_window_size: String(p.windowSize), evt_max_exceedances: String(p.maxExceedances) }, bounds);
}

/**
 * Algorithms whose inputs are not attributes of the summary (sequence variables, survival
 * columns): their inputs are not looked up among the project's attributes.
 */
const NOT_ATTRIBUTE_INPUTS: ReadonlySet<string> = new Set(['mc', 'hmm', 'km']);

/**
 * Refuses a model whose inputs are not attributes of the project it goes into: it would
 * predict every row from the means it was built with (a missing input is imputed), a number
 * that means nothing there. Names only: a state records no attribute types.
 */
function checkInputs(kind: Kind, modelId: string, model: Model, attributes: readonly string[], pid: string): void {
  if (NOT_ATTRIBUTE_INPUTS.has(model.algo)) return;
  const known = new Set(attributes);
  const missing = model.inputNames.filter((n) => !known.has(n));
  if (missing.length > 0) {
    const shown = missing.slice(0, 10).map((n) => `[${n}]`).join(', ') + (missing.length > 10 ? ` and ${missing.length - 10} more` : '');
    throw invalid(kind, `model [${modelId}] reads input attributes project [${pid}] does not have: ${shown}`);
  }
}

function settingsOf(meta: sml.v1.IProjectMeta): ProjectSettings {
  return {
    pid: meta.pid ?? '', type: meta.type ?? 'cpu', histogramEnabled: meta.histogramEnabled === true, histogramType: meta.histogramType || 'streaming',
    params: { ...(meta.params ?? {}) }, categorySeparator: meta.categorySeparator || '$',
    creationDate: Number(meta.creationDate ?? 0), lastModificationDate: Number(meta.lastModificationDate ?? 0), frozen: meta.frozen === true,
  };
}

export interface TransferDeps {
  registry: ProjectRegistry;
  store: ProjectStorage;
  models: ModelStorage;
  /** Only to move an encoder with a renamed project. */
  encoders: Pick<ProjectEncoders, 'assign'>;
  limits: ProjectLimits;
  bounds: Readonly<Record<string, ParameterBound>>;
  maxProjectsPerCustomer: number;
  /** SML_MAX_EXPORT_BYTES: of a document as sent (its base64 text). */
  maxDocumentBytes: number;
  /** The shards of the projects (SML_PROJECT_SHARDS > 1); none: this replica serves every project. */
  shards?: Shards;
}

export class Transfers {
  /** Project ids an import or rename is writing (this process owns every project: one at a time per id). */
  private readonly claimed = new Set<string>();

  constructor(private readonly deps: TransferDeps) {}

  /** smlInfo of every project of `user`, by id; a project that cannot be loaded is listed from its metadata. */
  async infoAll(user: string): Promise<sml.v1.ISmlInfo[]> {
    const { registry, models } = this.deps;
    const out: sml.v1.ISmlInfo[] = [];
    for (const pid of await registry.list(user)) {
      const wasLoaded = registry.isLoaded(user, pid);
      try {
        // A project of a shard served elsewhere is asked of its holder, never loaded here.
        const shards = this.deps.shards;
        if (shards && !shards.serves(user, pid)) {
          out.push(await shards.info({ user, root: false }, pid));
          continue;
        }
        const p = await registry.with(user, pid, (q) => q);
        out.push(smlInfo(p, { hash: false, wasLoaded, models: await models.list(user, pid) }));
      } catch (err) {
        if (err instanceof SmlError && err.code === 'PROJECT_NOT_FOUND') continue; // deleted meanwhile
        const meta = await registry.metaOf(user, pid);
        if (meta) out.push({ pid, type: meta.type, params: meta.params, hash: -1, loaded: false, persisted: meta.persist, categorySeparator: meta.categorySeparator || '$' });
      }
    }
    return out;
  }

  async exportProject(user: string, pid: string): Promise<string> {
    const { registry, models } = this.deps;
    return registry.with(user, pid, async (p) => {
      const summary = p.summaryBytes();
      const doc = {
        format: 'sml-project', version: DOCUMENT_VERSION, exportedAt: Date.now(),
        project: settingsOf(p.meta),
        summary: Buffer.from(summary.buffer, summary.byteOffset, summary.byteLength).toString('base64'), summarySha256: sha256(summary),
        models: (await models.records(user, pid)).map(modelEntry),
      };
      return encodeDocument(doc, 'project', pid, this.deps.maxDocumentBytes);
    });
  }

  async exportModel(user: string, pid: string, modelId: string): Promise<string> {
    const { registry, models } = this.deps;
    await registry.with(user, pid, () => undefined); // 400 for an unknown project first
    const record = (await models.records(user, pid)).find((r) => r.info?.modelId === modelId);
    if (!record) throw smlError('MODEL_NOT_FOUND', { model: modelId, pid });
    const doc = { format: 'sml-model', version: DOCUMENT_VERSION, exportedAt: Date.now(), model: modelEntry(record) };
    return encodeDocument(doc, 'model', modelId, this.deps.maxDocumentBytes);
  }

  /** Imports a project document under `pid` (default: the id it was exported with); returns the id. */
  async importProject(user: string, req: sml.v1.IImportRequest): Promise<string> {
    if (req.persist === false) throw smlError('INVALID_PARAMETER', { name: 'persist', value: 'false', reason: 'an imported project is persisted' });
    const doc = readDocument(req.document ?? new Uint8Array(), 'project', this.deps.maxDocumentBytes);
    const settings = doc.project;
    if (!isRecord(settings) || typeof settings.pid !== 'string' || typeof settings.type !== 'string' || typeof settings.histogramType !== 'string'
      || typeof settings.histogramEnabled !== 'boolean' || typeof settings.frozen !== 'boolean' || !isStringMap(settings.params)
      || typeof settings.creationDate !== 'number' || typeof settings.lastModificationDate !== 'number') {
      throw invalid('project', 'project settings are missing or of the wrong type');
    }
    const s = settings as unknown as ProjectSettings;
    const pid = checkName('project', req.pid || s.pid);
    // The checks and messages of a create; the conditional histograms follow creation, not the current switch.
    let meta: sml.v1.IProjectMeta;
    try {
      meta = projectMetaFromCreate(user, { pid, type: s.type, histogramType: s.histogramType, params: s.params, enableHistogram: s.params.sml_conditional_histograms === 'true' });
    } catch (err) {
      throw invalid('project', `its settings would not create a project (${(err as Error).message})`, err);
    }
    meta = { ...meta, histogramEnabled: s.histogramEnabled, frozen: s.frozen, creationDate: s.creationDate, lastModificationDate: s.lastModificationDate };
    meta.params = { ...meta.params, sml_project_is_freeze: String(s.frozen) };
    const { bytes: summary, attributes } = this.checkedSummary(doc, meta);
    if (!Array.isArray(doc.models)) throw invalid('project', 'models is not a list');
    const records = doc.models.map((m) => {
      const { record, model } = modelRecordOf(m, 'project', this.deps.bounds);
      checkInputs('project', record.info!.modelId!, model, attributes, pid);
      return record;
    });
    const ids = new Set(records.map((r) => r.info!.modelId));
    if (ids.size !== records.length) throw invalid('project', 'two models have the same id');
    await this.adopt(user, meta, summary, records, true);
    return pid;
  }

  /** Imports a model document into an existing project, under `modelId` (default: its own id; an existing model of that id is replaced, as a build replaces it). */
  async importModel(user: string, pid: string, req: sml.v1.IImportRequest): Promise<string> {
    const doc = readDocument(req.document ?? new Uint8Array(), 'model', this.deps.maxDocumentBytes);
    const { record, model } = modelRecordOf(doc.model, 'model', this.deps.bounds, req.modelId || undefined);
    await this.deps.registry.with(user, pid, (p) => {
      checkInputs('model', record.info!.modelId!, model, p.summary.attributeNames, pid);
      return this.deps.models.putRecord(user, pid, record);
    });
    return record.info!.modelId!;
  }

  /** Renames a project: its state, models, data sources and encoder go to `newName` (409 when it exists). */
  async rename(user: string, pid: string, newName: string): Promise<void> {
    const { registry, store, models, encoders } = this.deps;
    if (newName === pid) throw smlError('PROJECT_EXISTS', { user, pid: newName });
    let encoder = '';
    await registry.with(user, pid, async (p) => {
      if (p.memoryOnly) throw smlError('INVALID_PARAMETER', { name: 'pid', value: pid, reason: 'a project created with persist=false cannot be renamed' });
      const meta = sml.v1.ProjectMeta.fromObject({ ...sml.v1.ProjectMeta.toObject(p.meta), pid: newName });
      await this.adopt(user, meta, p.summaryBytes(), await models.records(user, pid), false);
      // The new project exists: the old one goes (a request waiting on its lock then finds no project).
      registry.evict(user, pid);
      await store.delete(user, pid);
      await models.deleteAll(user, pid);
      encoder = meta.encoder;
    });
    if (encoder) {
      await encoders.assign(user, newName, encoder);
      await encoders.assign(user, pid, encoder, true);
    }
  }

  /**
   * The document's summary bytes, read once with this service's limits and the options `meta`
   * gives, its statistics checked (Summary.checkStatistics); and its attribute names.
   */
  private checkedSummary(doc: Record<string, unknown>, meta: sml.v1.IProjectMeta): { bytes: Uint8Array; attributes: readonly string[] } {
    if (typeof doc.summary !== 'string') throw invalid('project', 'summary is missing');
    const bytes = decodeBase64(doc.summary, 'project', 'summary');
    if (doc.summarySha256 !== sha256(bytes)) throw invalid('project', 'the summary does not match its summarySha256');
    let summary: Summary;
    try {
      summary = Summary.deserialize(bytes, { options: summaryOptions(meta, this.deps.limits), ...this.deps.limits.state });
      summary.checkStatistics();
    } catch (err) {
      throw invalid('project', `its summary cannot be imported (${(err as Error).message})`, err);
    }
    return { bytes, attributes: summary.attributeNames };
  }

  /**
   * Makes `meta.pid` exist with this summary and these models: models and snapshot first,
   * then the metadata (the commit point). Refused (409, or the project limit when
   * `counts`) before anything is written; on failure what was written is removed.
   */
  private async adopt(user: string, meta: sml.v1.IProjectMeta, summary: Uint8Array, records: sml.v1.IModelRecord[], counts: boolean): Promise<void> {
    const { registry, store, models } = this.deps;
    const pid = meta.pid!;
    const claim = `${user}\u0000${pid}`;
    if (this.claimed.has(claim) || (await registry.metaOf(user, pid))) throw smlError('PROJECT_EXISTS', { user, pid });
    this.claimed.add(claim);
    try {
      if (counts) {
        const count = (await registry.list(user)).length;
        const max = this.deps.maxProjectsPerCustomer;
        if (count >= max) throw smlError('PROJECT_LIMIT', { user, count, variable: `SML_MAX_PROJECTS_PER_CUSTOMER = ${max}` });
      }
      // No project has this id: models, log entries and snapshot left under it (an import or a
      // delete that died half way) are not its.
      await models.deleteAll(user, pid);
      await store.removeData(user, pid);
      const written: string[] = [];
      try {
        for (const record of records) {
          await models.putRecord(user, pid, record);
          written.push(record.info!.modelId!);
        }
        await store.snapshot(user, pid, summary, 0);
        await store.createMeta({ ...meta, user, pid, persist: true });
      } catch (err) {
        await store.deleteSnapshot(user, pid);
        for (const model of written) await models.delete(user, pid, model).catch(() => undefined);
        throw err;
      }
    } finally {
      this.claimed.delete(claim);
    }
  }
}

const ops = contracts.projects;

/** `beforeRead`: what runs before a project's statistics are read (a fusion project's refresh, fusion/fusion.ts). */
export function registerTransfers(service: BusService, runner: JobRunner, transfers: Transfers, beforeRead: (user: string, pid: string) => Promise<void>): void {
  service.handle(ops.infoAll, async (req, { caller }) => {
    const user = caller.user!;
    if (!req.async) return { smlInfoList: { values: await transfers.infoAll(user) } };
    const jobId = await runner.submit(caller, 'projectInfo', {}, async () =>
      jobResult(sml.v1.ProjectInfoListReply, { status: okStatus(), smlInfoList: { values: await transfers.infoAll(user) } }));
    return { status: okStatus('JOB_CREATED'), jobId };
  });

  service.handle(ops.rename, async (req, { caller }) => {
    const pid = checkName('project', req.pid);
    const newName = checkName('project', req.newName);
    await transfers.rename(caller.user!, pid, newName);
    return { status: okStatus('PROJECT_RENAMED', { pid, newName }) };
  });

  service.handle(ops.export, async (req, { caller }) => {
    await beforeRead(caller.user!, checkName('project', req.pid));
    return { document: await transfers.exportProject(caller.user!, checkName('project', req.pid)) };
  });

  service.handle(ops.modelExport, async (req, { caller }) =>
    ({ document: await transfers.exportModel(caller.user!, checkName('project', req.pid), checkName('model', req.modelId)) }));

  service.handle(ops.import, async (req, { caller }) => {
    const pid = await transfers.importProject(caller.user!, req);
    return { status: okStatus('PROJECT_IMPORTED', { pid }) };
  });

  service.handle(ops.modelImport, async (req, { caller }) => {
    const pid = checkName('project', req.pid);
    const model = await transfers.importModel(caller.user!, pid, req);
    return { status: okStatus('MODEL_IMPORTED', { model, pid }) };
  });
}

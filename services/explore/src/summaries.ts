import { projectSubject, shardProbe, unwrap, type BusClient } from '@sml/bus';
import { sml } from '@sml/proto';
import { type AttributeTable, Summary } from '@sml/stats';

export interface ProjectView {
  summary: Summary;
  /** The summary as serialized by projects (what the density workers are sent). */
  bytes: Uint8Array;
  meta: sml.v1.ProjectMeta;
  /** A sub-summary's attributes' project indexes (ascending); undefined for the whole summary. */
  projectIndexes?: readonly number[];
}

/** A project's attribute table: what names resolve against before a sub-summary is asked for. */
export interface ProjectSchema extends AttributeTable {
  readonly attributeTypes: readonly string[];
  readonly meta: sml.v1.ProjectMeta;
  /** The etag of the summary this table was read from, current as of this call. */
  readonly etag: string;
}

/**
 * Bytes of statistics explore keeps between requests, whole summaries, sub-summaries and
 * attribute tables together (the least recently used go first). One whole summary at 2000
 * attributes is ≈ 200 MB, so a few of those fit next to many sub-summaries.
 */
export const CACHE_BYTES = 512 * 1024 * 1024;

interface Entry<V> {
  etag: string;
  value: V;
  bytes: number;
}

/** What a serialized summary costs held: its bytes (sent to density workers) and the summary read from them. */
const heldBytes = (serialized: Uint8Array) => 2 * serialized.length;

/** Least recently used entries first out, once their bytes pass the budget. */
class ByteLru {
  private readonly entries = new Map<string, Entry<unknown>>();
  private held = 0;

  constructor(private readonly budget: number) {}

  get<V>(key: string): Entry<V> | undefined {
    const e = this.entries.get(key) as Entry<V> | undefined;
    if (e) {
      this.entries.delete(key);
      this.entries.set(key, e);
    }
    return e;
  }

  set<V>(key: string, entry: Entry<V>): void {
    this.delete(key);
    // An entry larger than the whole budget is used once and not kept.
    if (entry.bytes > this.budget) return;
    this.entries.set(key, entry);
    this.held += entry.bytes;
    for (const [k] of this.entries) {
      if (this.held <= this.budget) break;
      this.delete(k);
    }
  }

  private delete(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.held -= e.bytes;
  }
}

/**
 * Reads projects' statistics from the projects service (explore owns no state), cached and
 * revalidated by etag: projects answers `notModified` when the etag it was given still names
 * the summary's content. Three kinds: the whole summary (density, matrices, survival), the
 * attribute table (to resolve names), and sub-summaries of the attributes a request uses
 * (Summary.restrict), keyed by project and attribute set. The etag names the whole summary,
 * so a sub-summary read under the etag the attribute table was just revalidated with is
 * current without asking again.
 */
export class SummaryCache {
  private readonly cache: ByteLru;

  constructor(private readonly client: BusClient, budget = CACHE_BYTES) {
    this.cache = new ByteLru(budget);
  }

  private async request(caller: sml.v1.ICaller, req: sml.v1.ISummaryRequest): Promise<sml.v1.ISummaryReply> {
    const subject = projectSubject('summary', caller.user ?? '', req.pid ?? undefined);
    // A read: sent again to the next holder should the projects replica die before answering.
    return unwrap(await this.client.request('projects', subject, sml.v1.SummaryRequest, { caller, ...req }, sml.v1.SummaryReply, { failover: { probe: shardProbe(subject)!, resend: true } }));
  }

  /** The whole summary. */
  async project(caller: sml.v1.ICaller, pid: string): Promise<ProjectView> {
    const key = `full\u0000${caller.user}\u0000${pid}`;
    const cached = this.cache.get<{ summary: Summary; bytes: Uint8Array }>(key);
    const reply = await this.request(caller, { pid, full: true, ifNoneMatch: cached?.etag ?? '' });
    const meta = sml.v1.ProjectMeta.fromObject(reply.meta ?? {});
    if (reply.notModified && cached) return { ...cached.value, meta };
    const bytes = reply.summary ?? new Uint8Array();
    const fresh = { summary: Summary.deserialize(bytes), bytes };
    this.cache.set(key, { etag: reply.etag ?? '', value: fresh, bytes: heldBytes(bytes) });
    return { ...fresh, meta };
  }

  /** The attribute table (names and types), revalidated on every call. */
  async schema(caller: sml.v1.ICaller, pid: string): Promise<ProjectSchema> {
    const key = `schema\u0000${caller.user}\u0000${pid}`;
    const cached = this.cache.get<{ names: string[]; types: string[]; byName: Map<string, number> }>(key);
    const reply = await this.request(caller, { pid, schema: true, ifNoneMatch: cached?.etag ?? '' });
    const etag = reply.etag ?? '';
    let table = cached?.value;
    if (!reply.notModified || !table) {
      const names = reply.attributeNames ?? [];
      table = { names, types: reply.attributeTypes ?? [], byName: new Map(names.map((n, i) => [n, i])) };
      this.cache.set(key, { etag, value: table, bytes: names.reduce((n, s) => n + 2 * s.length + 64, 0) });
    }
    const { names, types, byName } = table;
    return { attributeNames: names, attributeTypes: types, indexOf: (name) => byName.get(name) ?? -1, meta: sml.v1.ProjectMeta.fromObject(reply.meta ?? {}), etag };
  }

  /**
   * The sub-summary of the attributes `indexes` (project indexes, ascending, at most
   * SML_MAX_SUMMARY_ATTRIBUTES) as of `schema`'s etag or later; without `schema`, current
   * (revalidated by etag).
   */
  async restricted(caller: sml.v1.ICaller, pid: string, indexes: readonly number[], schema?: ProjectSchema): Promise<ProjectView> {
    const key = `sub\u0000${caller.user}\u0000${pid}\u0000${indexes.join(',')}`;
    const cached = this.cache.get<{ summary: Summary; bytes: Uint8Array; projectIndexes: number[] }>(key);
    if (cached && schema && cached.etag === schema.etag) return { ...cached.value, meta: schema.meta };
    const reply = await this.request(caller, { pid, restricted: true, indexes: [...indexes], ifNoneMatch: cached?.etag ?? '' });
    const meta = sml.v1.ProjectMeta.fromObject(reply.meta ?? {});
    if (reply.notModified && cached) return { ...cached.value, meta };
    const bytes = reply.summary ?? new Uint8Array();
    const fresh = { summary: Summary.deserialize(bytes), bytes, projectIndexes: reply.attributeIndexes ?? [] };
    this.cache.set(key, { etag: reply.etag ?? '', value: fresh, bytes: heldBytes(bytes) });
    return { ...fresh, meta };
  }
}

/** Where explore reads statistics from: SummaryCache for one caller and project. */
export interface SummarySource {
  schema(): Promise<ProjectSchema>;
  restricted(indexes: readonly number[], schema: ProjectSchema): Promise<ProjectView>;
  project(): Promise<ProjectView>;
}

/**
 * The statistics of the attributes `needed` (project indexes, ascending): their sub-summary,
 * or the whole summary when they are more than one sub-summary request may name
 * (`maxAttributes`, SML_MAX_SUMMARY_ATTRIBUTES). `toLocal` maps a project index to the view's.
 */
export async function readAttributes(source: SummarySource, schema: ProjectSchema, needed: readonly number[], maxAttributes: number): Promise<{ view: ProjectView; toLocal: (i: number) => number }> {
  if (needed.length > maxAttributes) return { view: await source.project(), toLocal: (i) => i };
  const view = await source.restricted(needed, schema);
  const local = new Map((view.projectIndexes ?? []).map((i, a) => [i, a]));
  return { view, toLocal: (i) => local.get(i)! };
}

export async function fetchInfo(client: BusClient, caller: sml.v1.ICaller, pid: string): Promise<sml.v1.ISmlInfo | null | undefined> {
  return unwrap(await client.request('projects', projectSubject('info', caller.user ?? '', pid), sml.v1.ProjectRequest, { caller, pid }, sml.v1.ProjectInfoReply)).smlInfo;
}

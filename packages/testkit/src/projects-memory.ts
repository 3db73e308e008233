// In-memory adapters of the projects domain's ports (`@sml/projects` README "Ports"): the
// unit tier runs Learning, Lifecycle, Transfers, DataSources and the registry on these, with
// no nats-server. Each passes the same conformance suite as its JetStream class
// (services/projects/test/conformance.ts), so what the domain sees is the same. Values are
// kept encoded (protobuf, as JetStream keeps them): what a caller changes after a put or a
// get never changes what is stored.
//
// They match the ports by shape and do not import them: @sml/projects depends on
// @sml/sources, whose tests use this package, so a dependency on @sml/projects here would be
// a cycle in the build. The projects tests assign each to its port (type-checked by
// tsconfig.test.json), so a port that changes and an adapter that does not fail to compile.
import { nameToken, smlError } from '@sml/core';
import { sml } from '@sml/proto';
import { ALGORITHMS, EvtWrapper, type Model, type Prediction, type SerializedChunks } from '@sml/stats';
/** JetStream's error for a write whose expected last sequence (or revision) is not the stored one. */
const WRONG_LAST_SEQUENCE = 10071;
/** The projects log's duplicate window (IDEMPOTENCY_WINDOW_MS). */
const DUPLICATE_WINDOW_MS = 2 * 60_000;
/** nats-server's default max_payload, and the room ProjectStore leaves under it for headers. */
const MAX_PAYLOAD = 1024 * 1024;
const ENTRY_HEADROOM = 4 * 1024;

/** An error as nats.js throws it for a refused revision-checked write (`@sml/bus` jsErrorCode reads its code). */
function wrongLastSequence(what: string): Error {
  return Object.assign(new Error(`wrong last sequence: ${what}`), { api_error: { err_code: WRONG_LAST_SEQUENCE, code: 400, description: 'wrong last sequence' } });
}

const projectKey = (user: string, pid: string): string => `${nameToken(user)}.${nameToken(pid)}`;

/** Whether a dotted key matches a NATS subject filter (`*` one token, `>` the rest). */
function matches(filter: string, key: string): boolean {
  const f = filter.split('.');
  const k = key.split('.');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '>') return k.length > i;
    if (i >= k.length || (f[i] !== '*' && f[i] !== k[i])) return false;
  }
  return f.length === k.length;
}

/**
 * One turn of the event loop, taken by every call as a storage round trip takes one: the
 * domain under test never sees a write completed synchronously, as it never will in JetStream.
 */
const io = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function* listed(keys: string[]): AsyncIterable<string> {
  await io();
  yield* keys;
}

/** What an append answers (the port's Appended). */
interface Appended { seq: number; duplicate: boolean }

/** One log entry read back (the port's ReplayedEntry). */
interface ReplayedEntry { seq: number; entry: sml.v1.ProjectLogEntry; msgId?: string; storedAt: number }

interface LogRecord { seq: number; key: string; bytes: Uint8Array; msgId?: string; storedAt: number }

/**
 * ProjectStore in memory: metadata, one log over every project (one sequence, as the
 * JetStream stream), snapshots, quarantined batches. `now` is the clock of the duplicate
 * window; `maxPayload` the server's max_payload an entry must fit.
 */
export class MemoryProjectStore {
  private readonly metas = new Map<string, Uint8Array>();
  private log: LogRecord[] = [];
  private lastSeq = 0;
  private readonly snapshots = new Map<string, { logSeq: number; streamMarks: Uint8Array; summary: Uint8Array }>();
  private readonly quarantine = new Map<string, Array<{ record: sml.v1.IQuarantinedBatch; data: Uint8Array }>>();

  constructor(private readonly opts: { now?: () => number; maxPayload?: number } = {}) {}

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  async createMeta(meta: sml.v1.IProjectMeta): Promise<void> {
    await io();
    const key = projectKey(meta.user!, meta.pid!);
    if (this.metas.has(key)) throw smlError('PROJECT_EXISTS', { user: meta.user, pid: meta.pid });
    this.metas.set(key, sml.v1.ProjectMeta.encode(meta).finish());
  }

  async putMeta(meta: sml.v1.IProjectMeta): Promise<void> {
    await io();
    this.metas.set(projectKey(meta.user!, meta.pid!), sml.v1.ProjectMeta.encode(meta).finish());
  }

  async getMeta(user: string, pid: string): Promise<sml.v1.ProjectMeta | undefined> {
    await io();
    const bytes = this.metas.get(projectKey(user, pid));
    return bytes ? sml.v1.ProjectMeta.decode(bytes) : undefined;
  }

  async listPids(user: string): Promise<string[]> {
    await io();
    const prefix = `${nameToken(user)}.`;
    return [...this.metas].filter(([k]) => k.startsWith(prefix)).map(([, v]) => sml.v1.ProjectMeta.decode(v).pid);
  }

  encodeEntry(entry: sml.v1.IProjectLogEntry): Uint8Array {
    const bytes = sml.v1.ProjectLogEntry.encode(entry).finish();
    const limit = (this.opts.maxPayload ?? MAX_PAYLOAD) - ENTRY_HEADROOM;
    if (bytes.length > limit) throw smlError('BATCH_TOO_LARGE', { bytes: bytes.length, limit });
    return bytes;
  }

  async append(user: string, pid: string, entry: sml.v1.IProjectLogEntry | Uint8Array, tail?: number, msgId?: string): Promise<Appended> {
    await io();
    const key = projectKey(user, pid);
    const now = this.now();
    const earlier = msgId ? this.log.find((r) => r.msgId === msgId && now - r.storedAt < DUPLICATE_WINDOW_MS) : undefined;
    if (earlier) return { seq: earlier.seq, duplicate: true };
    if (tail !== undefined && tail !== this.tailOf(key)) throw wrongLastSequence(`${this.tailOf(key)}, expected ${tail}`);
    const bytes = entry instanceof Uint8Array ? entry.slice() : sml.v1.ProjectLogEntry.encode(entry).finish();
    const seq = ++this.lastSeq;
    this.log.push({ seq, key, bytes, ...(msgId ? { msgId } : {}), storedAt: now });
    return { seq, duplicate: false };
  }

  private tailOf(key: string): number {
    for (let i = this.log.length - 1; i >= 0; i--) if (this.log[i].key === key) return this.log[i].seq;
    return 0;
  }

  async logTail(user: string, pid: string): Promise<number> {
    await io();
    return this.tailOf(projectKey(user, pid));
  }

  async *replay(user: string, pid: string, afterSeq: number, last: number): AsyncGenerator<ReplayedEntry> {
    await io();
    const key = projectKey(user, pid);
    for (const r of this.log.filter((e) => e.key === key && e.seq > afterSeq && e.seq <= last)) {
      yield { seq: r.seq, entry: sml.v1.ProjectLogEntry.decode(r.bytes), ...(r.msgId ? { msgId: r.msgId } : {}), storedAt: r.storedAt };
    }
  }

  async trim(user: string, pid: string, keepFrom: number): Promise<void> {
    await io();
    const key = projectKey(user, pid);
    this.log = this.log.filter((r) => r.key !== key || r.seq >= keepFrom);
  }

  async snapshot(user: string, pid: string, summary: Uint8Array | Iterable<Uint8Array>, logSeq: number, streamMarks: sml.v1.IStreamMark[] = []): Promise<void> {
    await io();
    const parts = summary instanceof Uint8Array ? [summary] : [...summary];
    this.snapshots.set(projectKey(user, pid), {
      logSeq,
      streamMarks: sml.v1.ProjectSnapshot.encode({ streamMarks }).finish(),
      summary: Buffer.concat(parts),
    });
    if (logSeq > 0) await this.trim(user, pid, logSeq);
  }

  async loadSnapshot(user: string, pid: string): Promise<{ logSeq: number; summary: SerializedChunks; streamMarks: sml.v1.IStreamMark[] } | undefined> {
    await io();
    const s = this.snapshots.get(projectKey(user, pid));
    if (!s) return undefined;
    const summary: SerializedChunks = { total: s.summary.length, chunks: [s.summary.slice()][Symbol.iterator]() };
    return { logSeq: s.logSeq, summary, streamMarks: sml.v1.ProjectSnapshot.decode(s.streamMarks).streamMarks };
  }

  async deleteSnapshot(user: string, pid: string): Promise<void> {
    await io();
    this.snapshots.delete(projectKey(user, pid));
  }

  async putQuarantined(user: string, pid: string, seq: number, entry: sml.v1.IProjectLogEntry, reason: string): Promise<void> {
    await io();
    const key = projectKey(user, pid);
    const data = sml.v1.ProjectLogEntry.encode(entry).finish();
    const record: sml.v1.IQuarantinedBatch = { seq, op: entry.op ?? 'learn', reason: reason.slice(0, 1000), time: this.now(), bytes: data.length };
    const kept = (this.quarantine.get(key) ?? []).filter((q) => q.record.seq !== seq);
    this.quarantine.set(key, [...kept, { record, data }]);
  }

  async quarantined(user: string, pid: string): Promise<sml.v1.IQuarantinedBatch[]> {
    await io();
    return (this.quarantine.get(projectKey(user, pid)) ?? []).map((q) => ({ ...q.record })).sort((a, b) => Number(a.seq) - Number(b.seq));
  }

  async delete(user: string, pid: string): Promise<void> {
    await io();
    await this.removeData(user, pid);
    this.metas.delete(projectKey(user, pid));
  }

  async removeData(user: string, pid: string): Promise<void> {
    await io();
    const key = projectKey(user, pid);
    this.log = this.log.filter((r) => r.key !== key);
    this.snapshots.delete(key);
    this.quarantine.delete(key);
  }
}

/** Idempotency-Key records in memory, forgotten after the window (as the KV's TTL). */
export class MemoryIdempotencyKeys {
  private readonly records = new Map<string, { fingerprint: string; at: number }>();

  constructor(private readonly opts: { windowMs?: number; now?: () => number } = {}) {}

  async get(name: string): Promise<string | undefined> {
    await io();
    const r = this.records.get(name);
    const now = this.opts.now?.() ?? Date.now();
    return r && now - r.at < (this.opts.windowMs ?? DUPLICATE_WINDOW_MS) ? r.fingerprint : undefined;
  }

  async put(name: string, fingerprint: string): Promise<void> {
    await io();
    this.records.set(name, { fingerprint, at: this.opts.now?.() ?? Date.now() });
  }
}

/** A stored model record and its revision (one sequence over every record, as a KV bucket's). */
interface StoredModel { bytes: Uint8Array; revision: number }

/** ModelStore in memory: records (info, state JSON, EVT wrapper) restored on every read, no cache. */
export class MemoryModelStore {
  private readonly stored = new Map<string, StoredModel>();
  private revision = 0;

  private static key(user: string, pid: string, model: string): string {
    return `${projectKey(user, pid)}.${nameToken(model)}`;
  }

  private write(key: string, record: sml.v1.IModelRecord): void {
    this.stored.set(key, { bytes: sml.v1.ModelRecord.encode({ ...record, bodyObject: '' }).finish(), revision: ++this.revision });
  }

  private entry(user: string, pid: string, model: string): { record: sml.v1.ModelRecord; revision: number } {
    const stored = this.stored.get(MemoryModelStore.key(user, pid, model));
    if (!stored) throw smlError('MODEL_NOT_FOUND', { model, pid });
    return { record: sml.v1.ModelRecord.decode(stored.bytes), revision: stored.revision };
  }

  async put(user: string, pid: string, info: sml.v1.IModelInfo, model: Model): Promise<void> {
    await io();
    this.write(MemoryModelStore.key(user, pid, info.modelId!), { info, stateJson: JSON.stringify(model.state()) });
  }

  async info(user: string, pid: string, model: string): Promise<sml.v1.IModelInfo> {
    await io();
    return this.entry(user, pid, model).record.info!;
  }

  async model(user: string, pid: string, model: string): Promise<Model> {
    await io();
    return (await this.modelAt(user, pid, model)).model;
  }

  async modelAt(user: string, pid: string, model: string): Promise<{ model: Model; key: string; revision: number }> {
    await io();
    const { record, revision } = this.entry(user, pid, model);
    const algorithm = ALGORITHMS[record.info?.algo ?? ''];
    if (!algorithm) throw smlError('ALGORITHM_NOT_AVAILABLE', { algo: record.info?.algo ?? '' });
    return { model: algorithm.restore(JSON.parse(record.stateJson)), key: MemoryModelStore.key(user, pid, model), revision };
  }

  async list(user: string, pid: string): Promise<sml.v1.IModelInfo[]> {
    await io();
    const prefix = `${projectKey(user, pid)}.`;
    return [...this.stored].filter(([k]) => k.startsWith(prefix) && !k.slice(prefix.length).includes('.'))
      .map(([, v]) => sml.v1.ModelRecord.decode(v.bytes).info!)
      .sort((a, b) => Number(a.creationDate) - Number(b.creationDate));
  }

  async saveState(user: string, pid: string, model: string, built: Model): Promise<void> {
    await io();
    const { record } = this.entry(user, pid, model);
    this.write(MemoryModelStore.key(user, pid, model), { ...record, stateJson: JSON.stringify(built.state()) });
  }

  async setEvt(user: string, pid: string, model: string, key: string, wrapper: EvtWrapper | null): Promise<void> {
    await io();
    const { record } = this.entry(user, pid, model);
    this.write(MemoryModelStore.key(user, pid, model), { ...record, evtJson: wrapper ? JSON.stringify(wrapper.state()) : '', evtKey: wrapper ? key : '' });
  }

  async hasEvt(user: string, pid: string, model: string): Promise<boolean> {
    await io();
    return this.entry(user, pid, model).record.evtJson !== '';
  }

  async applyEvt(user: string, pid: string, model: string, predictions: Prediction[]): Promise<void> {
    await io();
    const { record } = this.entry(user, pid, model);
    if (!record.evtJson) return;
    const wrapper = EvtWrapper.restore(JSON.parse(record.evtJson));
    wrapper.annotate(predictions).forEach((annotated, i) => Object.assign(predictions[i], annotated));
    this.write(MemoryModelStore.key(user, pid, model), { ...record, evtJson: JSON.stringify(wrapper.state()) });
  }

  async delete(user: string, pid: string, model: string): Promise<void> {
    await io();
    this.entry(user, pid, model);
    this.stored.delete(MemoryModelStore.key(user, pid, model));
  }

  async deleteAll(user: string, pid: string): Promise<void> {
    await io();
    for (const m of await this.list(user, pid)) await this.delete(user, pid, m.modelId ?? '');
  }

  async records(user: string, pid: string): Promise<sml.v1.ModelRecord[]> {
    await io();
    return (await this.list(user, pid)).map((info) => this.entry(user, pid, info.modelId ?? '').record);
  }

  async putRecord(user: string, pid: string, record: sml.v1.IModelRecord): Promise<void> {
    await io();
    this.write(MemoryModelStore.key(user, pid, record.info!.modelId!), record);
  }

  /** Nothing is stored outside a record here: no orphans. */
  async sweepOrphans(): Promise<string[]> {
    await io();
    return [];
  }
}

/** The lease records every replica's MemoryLeases share (the KV bucket `sml_project_leases`). */
export class MemoryLeaseTable {
  readonly records = new Map<string, { owner: string; until: number; revision: number }>();
  private revision = 0;

  nextRevision(): number {
    return ++this.revision;
  }
}

/** `@sml/bus` Leases over a MemoryLeaseTable: one per replica (`owner`), sharing the table. */
export class MemoryLeases {
  constructor(private readonly table: MemoryLeaseTable, readonly owner: string, private readonly leaseMs: number) {}

  private write(key: string, now: number): number {
    const revision = this.table.nextRevision();
    this.table.records.set(key, { owner: this.owner, until: now + this.leaseMs, revision });
    return revision;
  }

  async acquire(key: string, now = Date.now()): Promise<number | undefined> {
    await io();
    const held = this.table.records.get(key);
    if (held && held.owner !== this.owner && held.until > now) return undefined;
    return this.write(key, now);
  }

  async renewal(key: string, _revision: number, now = Date.now()): Promise<number | 'lost' | 'unknown'> {
    await io();
    const held = this.table.records.get(key);
    // Another revision of this owner's own record (a renewal whose answer was lost) is still its lease.
    if (!held || held.owner !== this.owner) return 'lost';
    return this.write(key, now);
  }

  async holders(keys: string[]): Promise<Map<string, { owner: string; until: number }>> {
    await io();
    const out = new Map<string, { owner: string; until: number }>();
    for (const key of keys) {
      const held = this.table.records.get(key);
      if (held) out.set(key, { owner: held.owner, until: held.until });
    }
    return out;
  }

  async release(key: string, revision: number): Promise<void> {
    await io();
    if (this.table.records.get(key)?.revision === revision) this.table.records.delete(key);
  }
}

/** `@sml/bus` Presence over a shared map (replica → when its key expires: the bucket's TTL). */
export class MemoryPresence {
  constructor(private readonly alive: Map<string, number>, private readonly owner: string, private readonly ttlMs: number, private readonly now: () => number = Date.now) {}

  async beat(): Promise<number> {
    await io();
    const now = this.now();
    this.alive.set(this.owner, now + this.ttlMs);
    for (const [owner, until] of this.alive) if (until <= now) this.alive.delete(owner);
    return Math.max(1, this.alive.size);
  }

  async leave(): Promise<void> {
    await io();
    this.alive.delete(this.owner);
  }
}

/** The data-source registry's records (KV `sml_dss`) in memory. */
export class MemoryDataSourceRecords {
  private readonly entries = new Map<string, { operation: 'PUT' | 'DEL' | 'PURGE'; value: Uint8Array }>();

  async create(key: string, value: Uint8Array): Promise<void> {
    await io();
    if (this.entries.get(key)?.operation === 'PUT') throw wrongLastSequence(`${key} exists`);
    this.entries.set(key, { operation: 'PUT', value: value.slice() });
  }

  async put(key: string, value: Uint8Array): Promise<void> {
    await io();
    this.entries.set(key, { operation: 'PUT', value: value.slice() });
  }

  async get(key: string): Promise<{ operation: 'PUT' | 'DEL' | 'PURGE'; value: Uint8Array } | null> {
    await io();
    const e = this.entries.get(key);
    return e ? { operation: e.operation, value: e.value.slice() } : null;
  }

  async delete(key: string): Promise<void> {
    await io();
    this.entries.set(key, { operation: 'DEL', value: new Uint8Array(0) });
  }

  async purge(key: string): Promise<void> {
    await io();
    this.entries.set(key, { operation: 'PURGE', value: new Uint8Array(0) });
  }

  async keys(filter = '>'): Promise<AsyncIterable<string>> {
    await io();
    return listed([...this.entries].filter(([k, e]) => e.operation === 'PUT' && matches(filter, k)).map(([k]) => k));
  }
}

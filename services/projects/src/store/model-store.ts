import { randomUUID } from 'node:crypto';
import { KvWatchInclude, type KV, type NatsConnection, type ObjectStore } from 'nats';
import { nameToken, smlError } from '@sml/core';
import { followKv, jsErrorCode, JS_ERR, kvBucket, objectStore } from '@sml/bus';
import { sml } from '@sml/proto';
import { ALGORITHMS, EvtWrapper, type Model, type Prediction } from '@sml/stats';
import type { ModelStorage } from '../ports';

/**
 * How long the watch's latest revision of a record is remembered. A read may be answered by a
 * JetStream follower that has not applied the latest put yet (KV direct gets, in a cluster):
 * such a restore is older than what the watch reported, and is not cached. Followers lag by
 * milliseconds; a minute is ample, and bounds the memory to a minute of model updates.
 */
const REPORTED_MS = 60_000;

/** Room under the server's max_payload for a record's headers. */
const RECORD_HEADROOM = 4 * 1024;
/** Chunks of a record body kept as an object. */
const BODY_CHUNK_BYTES = 128 * 1024;

/** Reads of a record before a change to it gives up (409): each failed write means someone wrote it meanwhile. */
const REWRITE_ATTEMPTS = 3;

/**
 * A stored state read back; one its reader refuses (stored before imports were checked) is a
 * 400 naming the model, not an Internal error in every predict.
 */
function readable<T>(model: string, pid: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw smlError('MODEL_STATE_INVALID', { model, pid, detail: (err as Error).message }, err);
  }
}

/**
 * Built models (API.md §7) in KV bucket `sml_models`, key `<customer>.<project>.<model>`:
 * the modelInfo plus the algorithm's state. Models are snapshots: they answer from the
 * statistics they were built from until rebuilt. Restored models are cached, each with the
 * revision of its record: a later revision (the KV watch) drops it.
 */
export class ModelStore implements ModelStorage {
  /** Restored or just built models, with the KV revision of the record they stand for. */
  private readonly cache = new Map<string, { model: Model; revision: number }>();
  /**
   * Key → the latest revision the watch reported, for REPORTED_MS, oldest report first. A
   * restore that read an older record is returned but not cached, else it would stand for the
   * model until its next change: another replica's put may be reported while the restore reads
   * (or before it, when the read is answered by a lagging follower).
   */
  private readonly reported = new Map<string, { revision: number; at: number }>();
  /** Counts the watch's restarts: what it missed meanwhile is unknown, so no restore begun before one is cached. */
  private watchEpoch = 0;

  private constructor(
    private readonly kv: KV,
    /** Bodies of records too large for the KV (ModelRecord.bodyObject): a 1000-input covest's is ≈ 40 MB of JSON. */
    private readonly states: ObjectStore,
    /** The largest record the KV takes: max_payload less room for headers. */
    private readonly recordLimit: number,
  ) {}

  static async open(nc: NatsConnection): Promise<ModelStore> {
    const store = new ModelStore(await kvBucket(nc, 'sml_models'), await objectStore(nc, 'sml_model_states'), (nc.info?.max_payload ?? 1024 * 1024) - RECORD_HEADROOM);
    // A later record (another replica's rebuild, a delete, a stored EVT state) invalidates the
    // cached model here; the echo of this process's own put does not. After a NATS restart
    // the watch starts again and the cache is dropped. Key and revision are all it reads:
    // headers only, not every model's state to every replica (tens of KB a build).
    await followKv(nc, store.kv, { key: '>', include: KvWatchInclude.UpdatesOnly, headers_only: true }, (e) => {
      const hit = store.cache.get(e.key);
      if (hit && e.revision > hit.revision) store.cache.delete(e.key);
      store.report(e.key, e.revision);
    }, { onReset: () => {
      store.cache.clear();
      store.watchEpoch++;
    } });
    return store;
  }

  private report(key: string, revision: number): void {
    const now = Date.now();
    const latest = Math.max(revision, this.reported.get(key)?.revision ?? 0);
    // Deleted and set again: the Map keeps insertion order, so the oldest reports come first.
    this.reported.delete(key);
    this.reported.set(key, { revision: latest, at: now });
    for (const [k, r] of this.reported) {
      if (now - r.at <= REPORTED_MS) break;
      this.reported.delete(k);
    }
  }

  private static key(user: string, pid: string, model: string): string {
    return `${nameToken(user)}.${nameToken(pid)}.${nameToken(model)}`;
  }

  async put(user: string, pid: string, info: sml.v1.IModelInfo, model: Model): Promise<void> {
    const key = ModelStore.key(user, pid, info.modelId!);
    const epoch = this.watchEpoch;
    const revision = await this.replace(key, { info, stateJson: JSON.stringify(model.state()) });
    this.keep(key, model, revision, epoch);
  }

  /**
   * Stores a whole record at `key` (a build, an import), its body as an object when it would
   * not fit the KV; the object of the record it replaces is deleted once it is replaced.
   */
  private async replace(key: string, record: sml.v1.IModelRecord): Promise<number> {
    const before = await this.kv.get(key).catch(() => null);
    const old = before?.operation === 'PUT' ? sml.v1.ModelRecord.decode(before.value).bodyObject : '';
    const { bytes, object } = await this.stored(key, { ...record, bodyObject: '' });
    let revision: number;
    try {
      revision = await this.kv.put(key, bytes);
    } catch (err) {
      if (object) await this.states.delete(object).catch(() => undefined);
      throw err;
    }
    if (old && old !== object) await this.states.delete(old).catch(() => undefined);
    return revision;
  }

  /**
   * The record's bytes for the KV. With a bodyObject (read by entry), only the EVT wrapper can
   * have changed: the object stays. Without one, a record too large for the KV has its info and
   * state written to a new object first (`object`, for the caller to delete if the write fails).
   */
  private async stored(key: string, record: sml.v1.IModelRecord): Promise<{ bytes: Uint8Array; object?: string }> {
    const check = (bytes: Uint8Array) => {
      if (bytes.length > this.recordLimit) throw smlError('MODEL_TOO_LARGE', { model: record.info?.modelId ?? key, bytes: bytes.length, limit: this.recordLimit });
      return bytes;
    };
    const stub = (bodyObject: string) => sml.v1.ModelRecord.encode({
      info: { modelId: record.info?.modelId, algo: record.info?.algo, creationDate: record.info?.creationDate }, evtJson: record.evtJson, evtKey: record.evtKey, bodyObject,
    }).finish();
    if (record.bodyObject) return { bytes: check(stub(record.bodyObject)) };
    const bytes = sml.v1.ModelRecord.encode(record).finish();
    if (bytes.length <= this.recordLimit) return { bytes };
    const object = `${key}.${randomUUID()}`;
    // What stays in the KV (the EVT wrapper) must fit by itself.
    const kept = check(stub(object));
    await this.states.putBlob({ name: object, options: { max_chunk_size: BODY_CHUNK_BYTES } }, sml.v1.ModelRecord.encode({ info: record.info, stateJson: record.stateJson }).finish());
    return { bytes: kept, object };
  }

  /** The record as stored, its body read from its object when it has one (undefined: the object is gone, the record was replaced meanwhile). */
  private async resolve(raw: sml.v1.ModelRecord): Promise<sml.v1.ModelRecord | undefined> {
    if (!raw.bodyObject) return raw;
    const blob = await this.states.getBlob(raw.bodyObject);
    if (!blob) return undefined;
    const body = sml.v1.ModelRecord.decode(blob);
    return sml.v1.ModelRecord.create({ info: body.info, stateJson: body.stateJson, evtJson: raw.evtJson, evtKey: raw.evtKey, bodyObject: raw.bodyObject });
  }

  async info(user: string, pid: string, model: string): Promise<sml.v1.IModelInfo> {
    return (await this.record(user, pid, model)).info!;
  }

  async model(user: string, pid: string, model: string): Promise<Model> {
    return (await this.modelAt(user, pid, model)).model;
  }

  /** The model, its record's key and the revision it was restored from (what a predict thread caches it by). */
  async modelAt(user: string, pid: string, model: string): Promise<{ model: Model; key: string; revision: number }> {
    const key = ModelStore.key(user, pid, model);
    const hit = this.cache.get(key);
    if (hit) return { model: hit.model, key, revision: hit.revision };
    const epoch = this.watchEpoch;
    const { record, revision } = await this.entry(user, pid, model);
    const algo = record.info?.algo ?? '';
    const algorithm = ALGORITHMS[algo];
    if (!algorithm) throw smlError('ALGORITHM_NOT_AVAILABLE', { algo });
    const restored = readable(model, pid, () => algorithm.restore(JSON.parse(record.stateJson)));
    this.keep(key, restored, revision, epoch);
    return { model: restored, key, revision };
  }

  /** Every model of a project, oldest first. */
  async list(user: string, pid: string): Promise<sml.v1.IModelInfo[]> {
    const keys: string[] = [];
    for await (const k of await this.kv.keys(`${nameToken(user)}.${nameToken(pid)}.*`)) keys.push(k);
    const out: sml.v1.IModelInfo[] = [];
    for (const k of keys) {
      const e = await this.kv.get(k);
      if (!e || e.operation !== 'PUT') continue;
      const record = await this.resolve(sml.v1.ModelRecord.decode(e.value));
      if (record) out.push(record.info!);
    }
    return out.sort((a, b) => Number(a.creationDate) - Number(b.creationDate));
  }

  /**
   * Stores a stateful model's state after it changed (evt predictions). When the record changed
   * since it was read (a rebuild, or a read answered by a lagging follower), the model that
   * predicted is not the stored one: nothing is written, the cached model is dropped and the
   * request fails (409), to be sent again.
   */
  async saveState(user: string, pid: string, model: string, built: Model): Promise<void> {
    const key = ModelStore.key(user, pid, model);
    const { record, revision } = await this.entry(user, pid, model);
    const old = record.bodyObject;
    const { bytes, object } = await this.stored(key, { ...record, stateJson: JSON.stringify(built.state()), bodyObject: '' });
    if (await this.rewrite(key, bytes, revision, built)) {
      if (old && old !== object) await this.states.delete(old).catch(() => undefined);
      return;
    }
    if (object) await this.states.delete(object).catch(() => undefined);
    this.cache.delete(key);
    throw smlError('MODEL_CHANGED', { model, pid });
  }

  /** Attaches (or replaces) the EVT wrapper of a model; `key` names the prediction it reads. */
  async setEvt(user: string, pid: string, model: string, key: string, wrapper: EvtWrapper | null): Promise<void> {
    await this.change(user, pid, model, (record) => {
      record.evtJson = wrapper ? JSON.stringify(wrapper.state()) : '';
      record.evtKey = wrapper ? key : '';
      return true;
    });
  }

  /** From the KV record alone: a record with a body object keeps its EVT wrapper there too. */
  async hasEvt(user: string, pid: string, model: string): Promise<boolean> {
    const e = await this.kv.get(ModelStore.key(user, pid, model));
    if (!e || e.operation !== 'PUT') throw smlError('MODEL_NOT_FOUND', { model, pid });
    return sml.v1.ModelRecord.decode(e.value).evtJson !== '';
  }

  /**
   * Runs the model's EVT wrapper (if any) over its predictions, adding evt_is_anomaly,
   * evt_threshold and evt_anomaly_confidence to each, and stores the wrapper's new state:
   * the wrapper is stateful, so the caller must not run two of these at once per model.
   */
  async applyEvt(user: string, pid: string, model: string, predictions: Prediction[]): Promise<void> {
    await this.change(user, pid, model, (record) => {
      if (!record.evtJson) return false;
      // Run again from the fresh state when a write found the record changed: each run sets the same keys.
      const wrapper = readable(model, pid, () => EvtWrapper.restore(JSON.parse(record.evtJson)));
      wrapper.annotate(predictions).forEach((annotated, i) => Object.assign(predictions[i], annotated));
      record.evtJson = JSON.stringify(wrapper.state());
      return true;
    });
  }

  /**
   * Read, change (`apply` answers whether it changed anything) and write a model's record, only
   * if nobody wrote it in between: a read may be older than the record (another replica's
   * write, or a cluster's follower answering behind its leader), and a plain put would then
   * lose the later write. Read again up to REWRITE_ATTEMPTS times, then 409.
   */
  private async change(user: string, pid: string, model: string, apply: (record: sml.v1.ModelRecord) => boolean): Promise<void> {
    const key = ModelStore.key(user, pid, model);
    for (let attempt = 0; attempt < REWRITE_ATTEMPTS; attempt++) {
      const { record, revision } = await this.entry(user, pid, model);
      if (!apply(record)) return;
      const { bytes, object } = await this.stored(key, record);
      if (await this.rewrite(key, bytes, revision)) return;
      if (object) await this.states.delete(object).catch(() => undefined);
    }
    throw smlError('MODEL_CHANGED', { model, pid });
  }

  /**
   * Stores a model's record changed from the one at revision `from` (false, writing nothing,
   * when the stored record is no longer that one): its EVT wrapper, or its state (then `model`
   * is the model with that state). The cached model stays cached under the new revision (the
   * watch's news of this very write must not make the next predict restore it); when the
   * cache held another revision, nothing is cached.
   */
  private async rewrite(key: string, bytes: Uint8Array, from: number, model?: Model): Promise<boolean> {
    const hit = this.cache.get(key);
    const epoch = this.watchEpoch;
    let revision: number;
    try {
      revision = await this.kv.update(key, bytes, from);
    } catch (err) {
      if (jsErrorCode(err) === JS_ERR.WRONG_LAST_SEQUENCE) return false;
      throw err;
    }
    const kept = model ?? (hit?.revision === from ? hit.model : undefined);
    if (kept) this.keep(key, kept, revision, epoch);
    return true;
  }

  /**
   * Caches `model` as the record at `revision`, read or written since the watch's `epoch`,
   * unless the cache holds that revision or a later one, or the watch reported a later one, or
   * restarted since (it may have missed a later one).
   */
  private keep(key: string, model: Model, revision: number, epoch: number): void {
    if (epoch !== this.watchEpoch || revision < (this.reported.get(key)?.revision ?? 0)) return;
    const cached = this.cache.get(key);
    if (!cached || cached.revision < revision) this.cache.set(key, { model, revision });
  }

  async delete(user: string, pid: string, model: string): Promise<void> {
    const record = await this.record(user, pid, model);
    const key = ModelStore.key(user, pid, model);
    await this.kv.delete(key);
    this.cache.delete(key);
    if (record.bodyObject) await this.states.delete(record.bodyObject).catch(() => undefined);
  }

  /** Every stored record of a project (modelInfo, state, EVT wrapper), its state inline, oldest first: what an export carries. */
  async records(user: string, pid: string): Promise<sml.v1.ModelRecord[]> {
    const out: sml.v1.ModelRecord[] = [];
    for (const info of await this.list(user, pid)) {
      const record = await this.record(user, pid, info.modelId ?? '');
      record.bodyObject = '';
      out.push(record);
    }
    return out;
  }

  /**
   * Stores a record as is (import, rename): the model answers from exactly the state it was
   * exported with. Its state is the record's own (stateJson): a bodyObject it names is never
   * taken, an import cannot point at another record's object.
   */
  async putRecord(user: string, pid: string, record: sml.v1.IModelRecord): Promise<void> {
    const key = ModelStore.key(user, pid, record.info!.modelId!);
    await this.replace(key, record);
    this.cache.delete(key);
  }

  /**
   * Deletes the body objects no record names, older than `graceMs`: a process that died
   * between writing a record's object and the record (or the record and deleting the object it
   * replaced) left them, each as large as a wide model's state (tens of MB). The grace covers
   * a write in progress, here or on another replica; two replicas sweeping at once delete an
   * orphan twice, harmlessly. Answers the names deleted.
   */
  async sweepOrphans(graceMs: number, now = Date.now()): Promise<string[]> {
    const deleted: string[] = [];
    for (const o of await this.states.list()) {
      if (o.deleted || now - Date.parse(o.mtime) < graceMs) continue;
      // `<key>.<uuid>` (stored()): the record that may name it.
      const key = o.name.slice(0, o.name.lastIndexOf('.'));
      const e = await this.kv.get(key);
      const named = e?.operation === 'PUT' ? sml.v1.ModelRecord.decode(e.value).bodyObject : '';
      if (named === o.name) continue;
      await this.states.delete(o.name);
      deleted.push(o.name);
    }
    return deleted;
  }

  async deleteAll(user: string, pid: string): Promise<void> {
    for (const m of await this.list(user, pid)) await this.delete(user, pid, m.modelId ?? '');
  }

  private async record(user: string, pid: string, model: string): Promise<sml.v1.ModelRecord> {
    return (await this.entry(user, pid, model)).record;
  }

  /** The record (its body read from its object, if it has one) and its revision. */
  private async entry(user: string, pid: string, model: string): Promise<{ record: sml.v1.ModelRecord; revision: number }> {
    // A body object deleted between the record's read and its own: the record was replaced, read again.
    for (let attempt = 0; attempt < REWRITE_ATTEMPTS; attempt++) {
      const e = await this.kv.get(ModelStore.key(user, pid, model));
      if (!e || e.operation !== 'PUT') throw smlError('MODEL_NOT_FOUND', { model, pid });
      const record = await this.resolve(sml.v1.ModelRecord.decode(e.value));
      if (record) return { record, revision: e.revision };
    }
    throw smlError('MODEL_CHANGED', { model, pid });
  }
}

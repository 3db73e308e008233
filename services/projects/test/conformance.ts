// One conformance suite per storage port (README "Ports"): what the projects domain relies on,
// run against the in-memory adapters (@sml/testkit) in ports.test.ts and against the JetStream
// classes in ports.int.test.ts. Each suite is a function taking a factory; every test uses a
// customer of its own, so a factory may hand out the same store to every test.
import { SmlError } from '@sml/core';
import { JS_ERR, jsErrorCode } from '@sml/bus';
import { sml } from '@sml/proto';
import { ALGORITHMS, EvtWrapper, Summary, type Model } from '@sml/stats';
import type { DataSourceRecords, IdempotencyKeys, ModelStorage, ProjectStorage, ReplicaPresence, ShardLeases } from '../src/ports';

type Factory<T> = () => T | Promise<T>;

let customers = 0;
/** A customer no other test of the run uses. */
const customer = (): string => `c${process.pid}x${++customers}`;

const entry = (x: number): sml.v1.IProjectLogEntry => ({ op: 'learn', frame: { attributeNames: ['x'], attributeTypes: ['C'], data: [{ entries: [String(x)] }] } });
const xOf = (e: sml.v1.IProjectLogEntry): number => Number(e.frame!.data![0].entries![0]);
const meta = (user: string, pid: string): sml.v1.IProjectMeta => ({ user, pid, type: 'model', persist: true, histogramType: 'streaming', categorySeparator: '$', params: { a: '1' } });

async function codeOf(p: Promise<unknown>): Promise<string | number | undefined> {
  try {
    await p;
  } catch (err) {
    return err instanceof SmlError ? err.code : jsErrorCode(err) ?? (err as Error).message;
  }
  return 'resolved';
}

async function replayed(store: ProjectStorage, user: string, pid: string, after = 0): Promise<Array<{ seq: number; x: number; msgId?: string }>> {
  const out: Array<{ seq: number; x: number; msgId?: string }> = [];
  for await (const e of store.replay(user, pid, after, await store.logTail(user, pid))) out.push({ seq: e.seq, x: xOf(e.entry), ...(e.msgId ? { msgId: e.msgId } : {}) });
  return out;
}

/** `opts.maxPayload`: the largest message the store's server takes (nats-server's max_payload). */
export function projectStorageConformance(make: Factory<ProjectStorage>, opts: { maxPayload: number }): void {
  it('metadata: created once, read back as a copy, listed per customer', async () => {
    const store = await make();
    const [u, v] = [customer(), customer()];
    await store.createMeta(meta(u, 'p'));
    await store.createMeta(meta(u, 'q'));
    await store.createMeta(meta(v, 'p'));
    expect(await codeOf(store.createMeta(meta(u, 'p')))).toBe('PROJECT_EXISTS');
    const read = (await store.getMeta(u, 'p'))!;
    expect(read.params).toEqual({ a: '1' });
    read.frozen = true;
    expect((await store.getMeta(u, 'p'))!.frozen).toBe(false);
    await store.putMeta(read);
    expect((await store.getMeta(u, 'p'))!.frozen).toBe(true);
    expect(await store.getMeta(u, 'nothing')).toBeUndefined();
    expect((await store.listPids(u)).sort()).toEqual(['p', 'q']);
  });

  it("the log: appends in order, replays only this project's entries after a sequence, knows its tail", async () => {
    const store = await make();
    const [u, v] = [customer(), customer()];
    expect(await store.logTail(u, 'p')).toBe(0);
    const seqs: number[] = [];
    for (let i = 1; i <= 4; i++) {
      seqs.push((await store.append(u, 'p', entry(i))).seq);
      await store.append(u, 'other', entry(100 + i));
      await store.append(v, 'p', store.encodeEntry(entry(200 + i)));
    }
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(await store.logTail(u, 'p')).toBe(seqs[3]);
    expect((await replayed(store, u, 'p')).map((e) => e.x)).toEqual([1, 2, 3, 4]);
    expect((await replayed(store, u, 'p', seqs[1])).map((e) => e.seq)).toEqual(seqs.slice(2));
    expect(await replayed(store, u, 'nothing')).toEqual([]);
  });

  it('an append fenced on a stale tail is refused (WRONG_LAST_SEQUENCE), nothing stored; on the current tail it is stored', async () => {
    const store = await make();
    const u = customer();
    expect(await codeOf(store.append(u, 'p', entry(1), 5))).toBe(JS_ERR.WRONG_LAST_SEQUENCE);
    const first = await store.append(u, 'p', entry(1), 0);
    await store.append(u, 'p', entry(2), first.seq);
    expect(await codeOf(store.append(u, 'p', entry(3), first.seq))).toBe(JS_ERR.WRONG_LAST_SEQUENCE);
    expect((await replayed(store, u, 'p')).map((e) => e.x)).toEqual([1, 2]);
  });

  it('a message id stored within the duplicate window is answered as a duplicate of its entry, stored once', async () => {
    const store = await make();
    const u = customer();
    const first = await store.append(u, 'p', entry(1), undefined, `${u}.k`);
    const again = await store.append(u, 'p', entry(1), undefined, `${u}.k`);
    expect(first.duplicate).toBe(false);
    expect(again).toEqual({ seq: first.seq, duplicate: true });
    expect(await replayed(store, u, 'p')).toEqual([{ seq: first.seq, x: 1, msgId: `${u}.k` }]);
  });

  it('an entry larger than the log keeps in one message (max_payload less 4 KiB) is refused 413 before it is sent', async () => {
    const store = await make();
    const limit = opts.maxPayload - 4 * 1024;
    const sized = (n: number): sml.v1.IProjectLogEntry => ({ op: 'learn', frameJson: new Uint8Array(n) });
    expect(store.encodeEntry(sized(limit - 16)).length).toBeLessThanOrEqual(limit);
    expect(() => store.encodeEntry(sized(limit))).toThrow(expect.objectContaining({ code: 'BATCH_TOO_LARGE' }));
    expect(store.encodeEntry(entry(1))).toEqual(sml.v1.ProjectLogEntry.encode(entry(1)).finish());
  });

  it('a snapshot reads back its summary, sequence and marks, and trims the log before its sequence (that entry kept)', async () => {
    const store = await make();
    const u = customer();
    const seqs: number[] = [];
    for (let i = 1; i <= 3; i++) seqs.push((await store.append(u, 'p', entry(i))).seq);
    const summary = new Summary();
    summary.learn({ attributeNames: ['x'], attributeTypes: ['C'], data: [['1'], ['2']] });
    expect(await store.loadSnapshot(u, 'p')).toBeUndefined();
    await store.snapshot(u, 'p', summary.serializeChunks(), seqs[1], [{ stream: 's', partition: '0', lastOffset: 7 }]);
    const back = (await store.loadSnapshot(u, 'p'))!;
    expect(back.logSeq).toBe(seqs[1]);
    expect(back.streamMarks.map((m) => [m.stream, Number(m.lastOffset)])).toEqual([['s', 7]]);
    expect(Summary.deserialize(back.summary).serialize()).toEqual(summary.serialize());
    expect((await replayed(store, u, 'p')).map((e) => e.seq)).toEqual(seqs.slice(1));
    await store.trim(u, 'p', seqs[2]);
    expect((await replayed(store, u, 'p')).map((e) => e.x)).toEqual([3]);
    await store.deleteSnapshot(u, 'p');
    expect(await store.loadSnapshot(u, 'p')).toBeUndefined();
  });

  it('quarantined batches are kept with their reason, oldest first', async () => {
    const store = await make();
    const u = customer();
    await store.putQuarantined(u, 'p', 9, entry(9), 'later');
    await store.putQuarantined(u, 'p', 4, { ...entry(4), op: 'forget' }, 'x'.repeat(2000));
    await store.putQuarantined(u, 'q', 5, entry(5), 'other project');
    const q = await store.quarantined(u, 'p');
    expect(q.map((b) => [Number(b.seq), b.op, b.reason!.length])).toEqual([[4, 'forget', 1000], [9, 'learn', 5]]);
    expect(Number(q[1].bytes)).toBe(sml.v1.ProjectLogEntry.encode(entry(9)).finish().length);
  });

  it('removeData leaves the metadata alone; delete removes it too', async () => {
    const store = await make();
    const u = customer();
    await store.createMeta(meta(u, 'p'));
    const { seq } = await store.append(u, 'p', entry(1));
    await store.snapshot(u, 'p', new Summary().serialize(), 0);
    await store.putQuarantined(u, 'p', seq, entry(1), 'why');
    await store.removeData(u, 'p');
    expect(await store.logTail(u, 'p')).toBe(0);
    expect(await store.loadSnapshot(u, 'p')).toBeUndefined();
    expect(await store.quarantined(u, 'p')).toEqual([]);
    expect(await store.getMeta(u, 'p')).toBeDefined();
    await store.delete(u, 'p');
    expect(await store.getMeta(u, 'p')).toBeUndefined();
    expect(await store.listPids(u)).toEqual([]);
  });
}

/** An mlr model of y on x, from rows where y = slope·x + 1. */
export function mlrOf(slope: number): Model {
  const s = new Summary();
  s.learn({ attributeNames: ['x', 'y'], attributeTypes: ['C', 'C'], data: [1, 2, 3, 4].map((x) => [String(x), String(slope * x + 1)]) });
  return ALGORITHMS.mlr.build(s, { algo: 'mlr', inputs: [0], targets: [1], params: {} });
}
const slopeOf = (m: Model): number | undefined => (m.state() as { coef: number[] }).coef[0];

export function modelStorageConformance(make: Factory<ModelStorage>): void {
  it('a stored model is read back restored from its state, listed oldest first; a rebuild replaces it', async () => {
    const store = await make();
    const u = customer();
    await store.put(u, 'p', { modelId: 'b', algo: 'mlr', creationDate: 2000 }, mlrOf(2));
    await store.put(u, 'p', { modelId: 'a', algo: 'mlr', creationDate: 1000 }, mlrOf(3));
    await store.put(u, 'other', { modelId: 'c', algo: 'mlr', creationDate: 1 }, mlrOf(4));
    expect((await store.list(u, 'p')).map((i) => i.modelId)).toEqual(['a', 'b']);
    expect((await store.info(u, 'p', 'b')).algo).toBe('mlr');
    expect(slopeOf(await store.model(u, 'p', 'b'))).toBeCloseTo(2, 9);
    const at = await store.modelAt(u, 'p', 'a');
    await store.put(u, 'p', { modelId: 'a', algo: 'mlr', creationDate: 1000 }, mlrOf(5));
    const later = await store.modelAt(u, 'p', 'a');
    expect(later.revision).toBeGreaterThan(at.revision);
    expect(later.key).toBe(at.key);
    expect(slopeOf(later.model)).toBeCloseTo(5, 9);
  });

  it('an unknown model is MODEL_NOT_FOUND; delete and deleteAll remove only that project\'s', async () => {
    const store = await make();
    const u = customer();
    expect(await codeOf(store.info(u, 'p', 'm'))).toBe('MODEL_NOT_FOUND');
    await store.put(u, 'p', { modelId: 'm', algo: 'mlr', creationDate: 1 }, mlrOf(1));
    await store.put(u, 'p', { modelId: 'n', algo: 'mlr', creationDate: 2 }, mlrOf(1));
    await store.put(u, 'q', { modelId: 'm', algo: 'mlr', creationDate: 3 }, mlrOf(1));
    await store.delete(u, 'p', 'm');
    expect(await codeOf(store.model(u, 'p', 'm'))).toBe('MODEL_NOT_FOUND');
    expect(await codeOf(store.delete(u, 'p', 'm'))).toBe('MODEL_NOT_FOUND');
    await store.deleteAll(u, 'p');
    expect(await store.list(u, 'p')).toEqual([]);
    expect((await store.list(u, 'q')).map((i) => i.modelId)).toEqual(['m']);
  });

  it('an EVT wrapper is attached, annotates predictions (its state stored), and is removed', async () => {
    const store = await make();
    const u = customer();
    await store.put(u, 'p', { modelId: 'm', algo: 'mlr', creationDate: 1 }, mlrOf(3));
    expect(await store.hasEvt(u, 'p', 'm')).toBe(false);
    const plain = (await store.model(u, 'p', 'm')).predict({ names: ['x'], rows: [['1']] });
    await store.applyEvt(u, 'p', 'm', plain);
    expect(Object.keys(plain[0])).not.toContain('evt_threshold');
    await store.setEvt(u, 'p', 'm', 'res', new EvtWrapper({}));
    expect(await store.hasEvt(u, 'p', 'm')).toBe(true);
    const predictions = (await store.model(u, 'p', 'm')).predict({ names: ['x'], rows: [['1'], ['2']] });
    await store.applyEvt(u, 'p', 'm', predictions);
    expect(Object.keys(predictions[0])).toEqual(expect.arrayContaining(['evt_is_anomaly', 'evt_threshold', 'evt_anomaly_confidence']));
    const exported = (await store.records(u, 'p'))[0];
    expect(JSON.parse(exported.evtJson)).not.toEqual(new EvtWrapper({}).state());
    await store.setEvt(u, 'p', 'm', '', null);
    expect(await store.hasEvt(u, 'p', 'm')).toBe(false);
  });

  it('records carry the state inline and put back as is (export / import); a saved state is what is read back', async () => {
    const store = await make();
    const u = customer();
    await store.put(u, 'p', { modelId: 'm', algo: 'mlr', creationDate: 1 }, mlrOf(7));
    const [record] = await store.records(u, 'p');
    expect(record.bodyObject).toBe('');
    await store.putRecord(u, 'q', record);
    expect(slopeOf(await store.model(u, 'q', 'm'))).toBeCloseTo(7, 9);
    await store.saveState(u, 'q', 'm', mlrOf(8));
    expect(slopeOf(await store.model(u, 'q', 'm'))).toBeCloseTo(8, 9);
    expect(slopeOf(await store.model(u, 'p', 'm'))).toBeCloseTo(7, 9);
    expect(await store.sweepOrphans(0)).toEqual([]);
  });
}

export function idempotencyKeysConformance(make: Factory<IdempotencyKeys>): void {
  it('a record is remembered under its name, the latest put kept', async () => {
    const keys = await make();
    const u = customer();
    expect(await keys.get(`${u}.k`)).toBeUndefined();
    await keys.put(`${u}.k`, 'f1');
    await keys.put(`${u}.j`, 'f2');
    expect(await keys.get(`${u}.k`)).toBe('f1');
    await keys.put(`${u}.k`, 'f3');
    expect(await keys.get(`${u}.k`)).toBe('f3');
  });
}

/** `make(owner, leaseMs)`: the leases of one replica; every one made shares one table. */
export function shardLeasesConformance(make: (owner: string, leaseMs: number) => ShardLeases | Promise<ShardLeases>): void {
  it('a lease is taken by one owner at a time, taken over once it expired; the first owner then lost it', async () => {
    const key = `shard.${customer()}`;
    const a = await make('a', 10_000);
    const b = await make('b', 10_000);
    const now = Date.now();
    const ra = await a.acquire(key, now);
    expect(ra).toEqual(expect.any(Number));
    expect(await b.acquire(key, now + 1000)).toBeUndefined();
    expect((await b.holders([key, 'shard.none'])).get(key)).toEqual({ owner: 'a', until: now + 10_000 });
    expect([...(await b.holders([key, 'shard.none'])).keys()]).toEqual([key]);
    const rb = await b.acquire(key, now + 10_001);
    expect(rb).toEqual(expect.any(Number));
    expect(await a.renewal(key, ra!, now + 10_002)).toBe('lost');
    expect(await b.renewal(key, rb!, now + 10_003)).toEqual(expect.any(Number));
  });

  it('a renewal is a new revision; an owner takes back its own lease; a released lease is free at once, and a stale release does nothing', async () => {
    const key = `shard.${customer()}`;
    const a = await make('a', 10_000);
    const b = await make('b', 10_000);
    const r1 = (await a.acquire(key))!;
    const r2 = await a.renewal(key, r1);
    expect(typeof r2 === 'number' && r2 > r1).toBe(true);
    // A renewal at a revision moved by its own lost answer adopts its own record.
    expect(await a.renewal(key, r1)).toEqual(expect.any(Number));
    const r3 = (await a.acquire(key))!;
    await a.release(key, r1);
    expect(await b.acquire(key)).toBeUndefined();
    await a.release(key, r3);
    expect(await b.acquire(key)).toEqual(expect.any(Number));
    expect(await a.renewal(key, r3)).toBe('lost');
  });
}

/** `make(owner)`: one replica's presence; every one made shares one table. */
export function replicaPresenceConformance(make: (owner: string) => ReplicaPresence | Promise<ReplicaPresence>): void {
  it('counts the replicas that beat, this one included, and forgets one that left', async () => {
    const a = await make('a');
    const b = await make('b');
    expect(await a.beat()).toBe(1);
    expect(await b.beat()).toBe(2);
    await b.leave();
    expect(await a.beat()).toBe(1);
    await a.leave();
  });
}

export function dataSourceRecordsConformance(make: Factory<DataSourceRecords>): void {
  const bytes = (s: string) => new TextEncoder().encode(s);
  const text = (e: { value: Uint8Array } | null) => (e ? new TextDecoder().decode(e.value) : null);
  const listed = async (records: DataSourceRecords, filter: string) => {
    const out: string[] = [];
    for await (const k of await records.keys(filter)) out.push(k);
    return out.sort();
  };

  it('create refuses a key that holds a value; put replaces; get answers PUT with the value', async () => {
    const records = await make();
    const u = customer();
    await records.create(`${u}.a`, bytes('one'));
    await expect(records.create(`${u}.a`, bytes('two'))).rejects.toThrow(/wrong last sequence|exists/i);
    expect(text(await records.get(`${u}.a`))).toBe('one');
    await records.put(`${u}.a`, bytes('three'));
    const e = await records.get(`${u}.a`);
    expect(e?.operation).toBe('PUT');
    expect(text(e)).toBe('three');
    expect(await records.get(`${u}.none`)).toBeNull();
  });

  it("keys lists one customer's keys holding a value; a deleted or purged key is not a PUT and may be created again", async () => {
    const records = await make();
    const [u, v] = [customer(), customer()];
    for (const k of ['a', 'b', 'c']) await records.put(`${u}.${k}`, bytes(k));
    await records.put(`${v}.a`, bytes('v'));
    await records.delete(`${u}.b`);
    await records.purge(`${u}.c`);
    expect(await listed(records, `${u}.*`)).toEqual([`${u}.a`]);
    for (const k of ['b', 'c']) expect((await records.get(`${u}.${k}`))?.operation ?? 'none').not.toBe('PUT');
    await records.create(`${u}.b`, bytes('again'));
    expect(text(await records.get(`${u}.b`))).toBe('again');
  });
}

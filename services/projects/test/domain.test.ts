/**
 * The projects domain in memory (README "Ports"): Learning, Lifecycle, Transfers, DataSources,
 * the registry and the shard ownership on the @sml/testkit adapters of their storage ports —
 * no nats-server, no process. What a load, a retry, a lost lease or a data-source job does to
 * a project is tested here; the JetStream adapters pass the same conformance suite
 * (ports.int.test.ts), and the e2e tests run the same paths through the built service.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { nameToken, parameterBounds, SmlError } from '@sml/core';
import type { JobContext } from '@sml/jobs-client';
import { sml } from '@sml/proto';
import { MemoryDataSourceRecords, MemoryIdempotencyKeys, MemoryLeases, MemoryLeaseTable, MemoryModelStore, MemoryPresence, MemoryProjectStore } from '@sml/testkit';
import { DataSources } from '../src/datasources/datasources';
import { Learning } from '../src/learning/learning';
import { Lifecycle } from '../src/lifecycle/lifecycle';
import { ProjectsOwnership } from '../src/replicas/ownership';
import type { IdempotencyKeys, ModelStorage, ProjectStorage } from '../src/ports';
import { ProjectRegistry, type RegistryOptions } from '../src/lifecycle/registry';
import { Transfers } from '../src/lifecycle/transfer';
import { mlrOf } from './conformance';

// The CSV reading threads of a data-source learn load the built worker (as predict-pool.test does).
jest.mock('../src/datasources/reader', () => {
  const actual = jest.requireActual<typeof import('../src/datasources/reader')>('../src/datasources/reader');
  const script = jest.requireActual<typeof import('node:path')>('node:path').join(__dirname, '../dist/datasources/read-worker.js');
  return { ...actual, DsReaders: class extends actual.DsReaders { constructor() { super(script); } } };
});

const log = pino({ level: 'silent' });
const bounds = parameterBounds({
  SML_MAX_SEQUENCE_ORDER: 10, SML_MAX_HISTOGRAM_BINS: 10_000, SML_MAX_SELECTION_CANDIDATES: 10_000,
  SML_MAX_ITERATIONS: 100_000, SML_MAX_CENTROIDS: 10_000, SML_MAX_EVT_WINDOW: 1_000_000,
});
const limits = { maxAttributes: 2000, state: { maxSequenceEntries: 1_000_000, maxPartitions: 1000, maxNameLength: 256 }, bounds };
const U = 'alice';

/** A batch of rows of x and y (numbers), as the gateway sends a DataFrame. */
const rows = (...xy: Array<[number, number]>): sml.v1.ILearnRequest => ({
  frame: { attributeNames: ['x', 'y'], attributeTypes: ['C', 'C'], data: xy.map(([x, y]) => ({ entries: [String(x), String(y)] })) },
});

/** One replica's domain over the given storage (a new one each call: a restarted process). */
function domain(store: ProjectStorage = new MemoryProjectStore(), opts: Partial<RegistryOptions> & { models?: ModelStorage; keys?: IdempotencyKeys } = {}) {
  const models = opts.models ?? new MemoryModelStore();
  const registry = new ProjectRegistry(store, log, { snapshotEveryBatches: 1000, snapshotEveryMs: 60_000, limits, maxProjectsPerCustomer: 100, ...opts });
  const lifecycle = new Lifecycle({ registry, store, models, bounds, maxSummaryAttributes: 100, log });
  const learning = new Learning(registry, store, opts.keys ?? new MemoryIdempotencyKeys(), log);
  const summary = (pid: string) => registry.with(U, pid, (p) => Buffer.from(p.summaryBytes()));
  const create = (pid: string, persist = true) => lifecycle.create(U, { pid, type: 'cpu', persist, histogramType: 'streaming' });
  /**
   * Moments (their sums: min and max are kept as extremes, not sums) and co-moments: what a
   * forget restores exactly. The serialized summary keeps more (histogram bins, extremes).
   */
  const moments = (pid: string) => lifecycle.summary(U, pid, { moments: true, comoments: true }).then((r) => ({
    moments: (r.moments ?? []).map(({ min: _min, max: _max, ...sums }) => JSON.parse(JSON.stringify(sums)) as unknown),
    comoments: JSON.parse(JSON.stringify(r.comoments ?? [])) as unknown,
  }));
  return { store, models, registry, lifecycle, learning, summary, moments, create };
}

/** Equal up to floating-point rounding (relative 1e-12) in every number. */
function expectClose(actual: unknown, expected: unknown, at = '$'): void {
  if (typeof expected === 'number' && typeof actual === 'number') {
    if (Math.abs(actual - expected) > 1e-12 * Math.max(1, Math.abs(expected))) throw new Error(`${at}: ${actual} is not ${expected}`);
    return;
  }
  if (expected !== null && typeof expected === 'object') {
    expect(Object.keys(actual as object).sort()).toEqual(Object.keys(expected).sort());
    for (const [k, v] of Object.entries(expected)) expectClose((actual as Record<string, unknown>)[k], v, `${at}.${k}`);
    return;
  }
  expect(actual).toEqual(expected);
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof SmlError) return err.code;
    throw err;
  }
  return 'resolved';
}

/** The project's log entries after its snapshot, as a load replays them. */
async function logged(store: ProjectStorage, pid: string): Promise<number[]> {
  const seqs: number[] = [];
  const from = (await store.loadSnapshot(U, pid))?.logSeq ?? 0;
  for await (const e of store.replay(U, pid, from, await store.logTail(U, pid))) seqs.push(e.seq);
  return seqs;
}

describe('learn and forget', () => {
  it('forget is the exact inverse of learn: learn A, learn B, forget B leaves the summary of A alone, also after a reload', async () => {
    const d = domain();
    await d.create('p');
    await d.create('only-a');
    const a = rows([1, 2], [3, 5], [0.1, 7]);
    const b = rows([10, -2], [0.3, 0.7]);
    await d.learning.batch(U, 'p', a, 'learn');
    await d.learning.batch(U, 'p', b, 'learn');
    await d.learning.batch(U, 'p', b, 'forget');
    await d.learning.batch(U, 'only-a', a, 'learn');
    expectClose(await d.moments('p'), await d.moments('only-a'));
    expect(await logged(d.store, 'p')).toHaveLength(3);
    // Another process loads it from the log alone.
    expectClose(await domain(d.store).moments('p'), await d.moments('only-a'));
  });

  it('a forget of rows never learned is refused (400) and changes nothing, in memory or in the log', async () => {
    const d = domain();
    await d.create('p');
    await d.learning.batch(U, 'p', rows([1, 2]), 'learn');
    const before = await d.summary('p');
    expect(await codeOf(d.learning.batch(U, 'p', rows([1, 2], [5, 6]), 'forget'))).not.toBe('resolved');
    expect(await d.summary('p')).toEqual(before);
    expect(await logged(d.store, 'p')).toHaveLength(1);
  });

  it('a memory-only project learns without a log; a frozen project refuses learn', async () => {
    const d = domain();
    await d.create('m', false);
    await d.learning.batch(U, 'm', rows([1, 2]), 'learn');
    expect(await d.store.logTail(U, 'm')).toBe(0);
    expect(await d.store.getMeta(U, 'm')).toBeUndefined();
    await d.create('f');
    await d.lifecycle.freeze(U, 'f', true);
    expect(await codeOf(d.learning.batch(U, 'f', rows([1, 2]), 'learn'))).toBe('PROJECT_FROZEN');
    // Frozen is metadata: a reload keeps it.
    expect(await codeOf(domain(d.store).learning.batch(U, 'f', rows([1, 2]), 'learn'))).toBe('PROJECT_FROZEN');
  });
});

describe('Idempotency-Key', () => {
  it('a retry with the same key and batch is answered as the first and learns nothing; the key with another batch is IDEMPOTENCY_KEY_REUSED', async () => {
    const d = domain();
    await d.create('p');
    await d.create('once');
    const batch = { ...rows([1, 2], [3, 4]), idempotencyKey: 'k1' };
    const first = await d.learning.batch(U, 'p', batch, 'learn');
    expect(await d.learning.batch(U, 'p', batch, 'learn')).toEqual(first);
    await d.learning.batch(U, 'once', rows([1, 2], [3, 4]), 'learn');
    expect(await d.summary('p')).toEqual(await d.summary('once'));
    expect(await codeOf(d.learning.batch(U, 'p', { ...rows([9, 9]), idempotencyKey: 'k1' }, 'learn'))).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await logged(d.store, 'p')).toHaveLength(1);
  });

  it('a process that lost the key records still knows the key from the log: a retry learns nothing, another batch under it is refused', async () => {
    const d = domain();
    await d.create('p');
    await d.create('once');
    const batch = { ...rows([5, 6]), idempotencyKey: 'k2' };
    await d.learning.batch(U, 'p', batch, 'learn');
    // A restarted replica whose Idempotency-Key records are gone (never written, or expired).
    const other = domain(d.store, { keys: new MemoryIdempotencyKeys() });
    await other.learning.batch(U, 'p', batch, 'learn');
    expect(await codeOf(other.learning.batch(U, 'p', { ...rows([7, 8]), idempotencyKey: 'k2' }, 'learn'))).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await logged(d.store, 'p')).toHaveLength(1);
    await other.learning.batch(U, 'once', rows([5, 6]), 'learn');
    expect(await other.summary('p')).toEqual(await other.summary('once'));
  });
});

describe('quarantine', () => {
  it('a logged batch that cannot be replayed is quarantined with its reason, not lost; the project loads without it', async () => {
    const d = domain();
    await d.create('p');
    await d.create('good');
    await d.learning.batch(U, 'p', rows([1, 2]), 'learn');
    // Logged by an older build: a forget of rows this summary never had cannot be replayed.
    const bad = await d.store.append(U, 'p', { op: 'forget', frame: rows([7, 7], [8, 8]).frame });
    const reloaded = domain(d.store);
    await reloaded.learning.batch(U, 'p', rows([3, 4]), 'learn');
    await reloaded.learning.batch(U, 'good', rows([1, 2]), 'learn');
    await reloaded.learning.batch(U, 'good', rows([3, 4]), 'learn');
    expect(await reloaded.summary('p')).toEqual(await reloaded.summary('good'));
    const q = await reloaded.lifecycle.quarantined(U, 'p');
    expect(q.map((b) => [Number(b.seq), b.op])).toEqual([[bad.seq, 'forget']]);
    expect(q[0].reason).toBeTruthy();
    expect(Number(q[0].bytes)).toBeGreaterThan(0);
    expect(reloaded.lifecycle.quarantinedTotal).toBe(1);
    // Kept after the snapshot trims the log past it.
    await reloaded.lifecycle.save(U, 'p');
    expect((await domain(d.store).lifecycle.quarantined(U, 'p')).map((b) => Number(b.seq))).toEqual([bad.seq]);
  });
});

describe('snapshot and replay', () => {
  it('the state after a reload (snapshot + the log after it) is the state before, wherever the snapshot falls', async () => {
    const d = domain(new MemoryProjectStore(), { snapshotEveryBatches: 2 });
    await d.create('p');
    for (let i = 0; i < 5; i++) await d.learning.batch(U, 'p', rows([i, i * i], [i / 3, 1 - i]), 'learn');
    const before = await d.summary('p');
    const snapshot = await d.store.loadSnapshot(U, 'p');
    expect(snapshot?.logSeq).toBeGreaterThan(0);
    // Trimmed before the snapshot's entry: only the fifth batch (and the kept anchor) remain to replay.
    expect(await logged(d.store, 'p')).toHaveLength(1);
    expect(await domain(d.store).summary('p')).toEqual(before);
    // Saved and unloaded: loads from the snapshot alone.
    await d.lifecycle.unload(U, 'p');
    expect(d.registry.isLoaded(U, 'p')).toBe(false);
    expect(await logged(d.store, 'p')).toHaveLength(0);
    expect(await d.summary('p')).toEqual(before);
  });

  it('a merge is made durable by a snapshot (it is not in the log)', async () => {
    const d = domain();
    await d.create('p');
    await d.create('q');
    await d.learning.batch(U, 'p', rows([1, 2]), 'learn');
    await d.learning.batch(U, 'q', rows([3, 4]), 'learn');
    await d.lifecycle.merge(U, 'p', 'q');
    const merged = await d.summary('p');
    expect(await domain(d.store).summary('p')).toEqual(merged);
  });

  it('a snapshot that keeps failing drops the project from memory: the next use loads what is durable', async () => {
    const store = new MemoryProjectStore();
    const d = domain(store);
    await d.create('p');
    await d.learning.batch(U, 'p', rows([1, 2]), 'learn');
    const snapshot = jest.spyOn(store, 'snapshot').mockRejectedValue(new Error('object store down'));
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick'] });
    try {
      const saving = d.lifecycle.save(U, 'p');
      const failed = expect(saving).rejects.toThrow('object store down');
      await jest.advanceTimersByTimeAsync(10_000);
      await failed;
    } finally {
      jest.useRealTimers();
    }
    expect(snapshot).toHaveBeenCalledTimes(3);
    expect(d.registry.isLoaded(U, 'p')).toBe(false);
    snapshot.mockRestore();
    await d.create('same');
    await d.learning.batch(U, 'same', rows([1, 2]), 'learn');
    expect(await d.summary('p')).toEqual(await d.summary('same'));
  });
});

describe('fencing', () => {
  const LEASE_MS = 300;
  const table = new MemoryLeaseTable();
  const alive = new Map<string, number>();
  const store = new MemoryProjectStore();
  const replica = (name: string) => {
    const endpoints = { suspend: async () => undefined, resume: async () => undefined };
    const d = domain(store, { holdsLease: () => ownership.holds(0), shardOf: () => 0 });
    const ownership: ProjectsOwnership = new ProjectsOwnership({
      leases: new MemoryLeases(table, name, LEASE_MS), presence: new MemoryPresence(alive, name, LEASE_MS), services: [endpoints], registry: d.registry, log, leaseMs: LEASE_MS,
    });
    return { ...d, ownership };
  };

  it('a replica whose lease ran out writes nothing (503); the replica that takes the shard over has every batch', async () => {
    const a = replica('a');
    const b = replica('b');
    await a.ownership.tick();
    expect(a.ownership.shards).toEqual([0]);
    await a.create('p');
    await a.learning.batch(U, 'p', rows([1, 2]), 'learn');
    // b cannot take a lease a holds.
    await b.ownership.tick();
    expect(b.ownership.shards).toEqual([]);
    // a's renewals stop (a stalled process): past two thirds of the lease it no longer writes.
    await new Promise((r) => setTimeout(r, LEASE_MS + 50));
    const tail = await store.logTail(U, 'p');
    expect(await codeOf(a.learning.batch(U, 'p', rows([3, 4]), 'learn'))).toBe('SERVICE_UNAVAILABLE');
    expect(await codeOf(a.lifecycle.save(U, 'p'))).toBe('SERVICE_UNAVAILABLE');
    expect(await store.logTail(U, 'p')).toBe(tail);
    // The lease expired: b takes the shard and loads the project from what a made durable.
    await b.ownership.tick();
    expect(b.ownership.shards).toEqual([0]);
    await b.learning.batch(U, 'p', rows([5, 6]), 'learn');
    await b.create('same');
    await b.learning.batch(U, 'same', rows([1, 2], [5, 6]), 'learn');
    expect(await b.summary('p')).toEqual(await b.summary('same'));
    // a learns it lost the lease: the shard and its projects are dropped.
    await a.ownership.tick();
    expect(a.ownership.shards).toEqual([]);
    expect(a.registry.isLoaded(U, 'p')).toBe(false);
    await a.ownership.stop();
    await b.ownership.stop();
  });
});

describe('transfer', () => {
  const transfers = (d: ReturnType<typeof domain>) => new Transfers({
    registry: d.registry, store: d.store, models: d.models, encoders: { assign: async () => undefined }, limits, bounds, maxProjectsPerCustomer: 100, maxDocumentBytes: 64 << 20,
  });

  it('export then import gives the same summary, settings and models under the new id', async () => {
    const d = domain();
    await d.create('p');
    await d.learning.batch(U, 'p', rows([1, 2], [2, 4.5], [3, 6]), 'learn');
    await d.lifecycle.enableHistograms(U, 'p', true);
    await d.models.put(U, 'p', { modelId: 'm', algo: 'mlr', creationDate: 1 }, mlrOf(2));
    const t = transfers(d);
    const document = await t.exportProject(U, 'p');
    expect(await t.importProject(U, { document: Buffer.from(document), pid: 'copy' })).toBe('copy');
    expect(await d.summary('copy')).toEqual(await d.summary('p'));
    expect((await d.store.getMeta(U, 'copy'))!.histogramEnabled).toBe(true);
    expect(await d.models.records(U, 'copy')).toEqual(await d.models.records(U, 'p'));
    // Durable: another process loads the import from its snapshot.
    expect(await domain(d.store).summary('copy')).toEqual(await d.summary('p'));
    expect(await codeOf(t.importProject(U, { document: Buffer.from(document), pid: 'copy' }))).toBe('PROJECT_EXISTS');
  });
});

describe('data-source learn', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'sml-ds-'));
    mkdirSync(join(root, nameToken(U)));
    writeFileSync(join(root, nameToken(U), 'xy.csv'), 'x,y\n1,2\n3,5\n0.5,7\n');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const readLimits = { deadlineMs: 60_000, deadlineVariable: 'SML_SOURCE_READ_DEADLINE_MS', minBytesPerS: 0, windowMs: 10_000 };
  const job = (): JobContext => ({ jobId: 1, signal: new AbortController().signal, log, progress: () => undefined });

  it('a local file source learned into a project equals the same rows learned inline; a forget of it restores the project', async () => {
    const d = domain();
    const dataSources = new DataSources({
      kv: new MemoryDataSourceRecords(), registry: d.registry, store: d.store, limits, filesRoot: root, log,
      timeoutMs: 5000, readLimits: { job: readLimits, request: readLimits }, allowPrivate: false, maxPerCustomer: 10,
    });
    try {
      await dataSources.create(U, { dsInfo: { name: 'xy', type: 'localfile', info: { path: 'xy.csv' } } });
      expect(await dataSources.list(U)).toEqual(['xy:localfile']);
      await d.create('p');
      await d.create('inline');
      const { ds, info } = await dataSources.prepareLearn(U, 'p', 'xy');
      const report = await dataSources.learn(U, 'p', ds, info, {}, 'learn', job());
      expect(Number(report.rowsLearned)).toBe(3);
      await d.learning.batch(U, 'inline', rows([1, 2], [3, 5], [0.5, 7]), 'learn');
      expectClose(await d.moments('p'), await d.moments('inline'));
      // Made durable by a snapshot before the job answers.
      expect(await logged(d.store, 'p')).toEqual([]);
      expectClose(await domain(d.store).moments('p'), await d.moments('inline'));
      await dataSources.learn(U, 'p', ds, info, {}, 'forget', job());
      const forgotten = await d.lifecycle.summary(U, 'p', { moments: true });
      expect(forgotten.moments!.map((m) => Number(m.count))).toEqual([0, 0]);
      expect((await dataSources.dsLog(U, 'p')).map((e) => [e.op, e.state])).toEqual([['learn', 'done'], ['forget', 'done']]);
    } finally {
      await dataSources.stop();
    }
  });
});

import { connect, type KvEntry, type NatsConnection } from 'nats';
import { shardOf } from '@sml/bus';
import { sml } from '@sml/proto';
import type { SmlClient } from '@sml/sdk';
import { startSystem, type RunningSystem } from '@sml/testkit';
import { shardLeaseKey } from '../src/replicas/ownership';
import { customer, expectClose, learnUntilAcknowledged, SummaryReader } from './helpers';

// @sml-run-alone: lease hand-overs under load while replicas are SIGKILLed (scripts/jest-alone.js).
// Issue 16: three projects replicas. With one shard (SML_PROJECT_SHARDS=1), one serves under
// its lease and two stand by; with four, the shards are shared out. 100 projects learn
// concurrently while a serving replica is SIGKILLed twice. Each batch is retried with its
// Idempotency-Key until the gateway answers 200. Afterwards every project holds each
// acknowledged batch exactly once, and no shard's lease — watched from outside for the whole
// test — ever had two holders at a time.
const PROJECTS = 100;
const ROWS = 5;
const LEASE_MS = 1500;

/** A write of a lease: a PUT (taken or renewed) or a DEL (given up). */
interface Holding { key: string; owner: string; until: number; revision: number; released: boolean }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each([1, 4])('three projects replicas, %i shard(s), a serving one SIGKILLed twice', (SHARDS) => {
  let sys: RunningSystem;
  let reader: SummaryReader;
  let sdk: SmlClient;
  let nc: NatsConnection;
  const holdings: Holding[] = [];
  let watching: Promise<void>;

  beforeAll(async () => {
    sys = await startSystem({
      services: ['users', 'jobs', 'projects', 'projects#2', 'projects#3'],
      env: { SML_PROJECT_SHARDS: String(SHARDS), SML_PROJECT_LEASE_MS: String(LEASE_MS), SML_REQUEST_TIMEOUT_MS: '3000', SML_SNAPSHOT_EVERY_BATCHES: '5', SML_SNAPSHOT_EVERY_MS: '500' },
    });
    // Every write of the lease, as the projects replicas make them.
    nc = await connect({ servers: sys.nats.url, ...sys.nats.connectOptions('projects') });
    const kv = await nc.jetstream().views.kv('sml_project_leases');
    const watch = await kv.watch({ key: 'shard.*' });
    watching = (async () => {
      for await (const e of watch as AsyncIterable<KvEntry>) {
        if (e.operation !== 'PUT') {
          holdings.push({ key: e.key, owner: '', until: 0, revision: e.revision, released: true });
          continue;
        }
        const lease = sml.v1.StreamLease.decode(e.value);
        holdings.push({ key: e.key, owner: lease.owner, until: Number(lease.until), revision: e.revision, released: false });
      }
    })();
    reader = await SummaryReader.open(sys.nats, SHARDS);
    sdk = await customer(sys, 'replicas');
    // While the replicas share the shards out, a shard being handed over answers 503 (retryable).
    for (let p = 0; p < PROJECTS; p++) {
      for (const deadline = Date.now() + 20_000; ; await sleep(100)) {
        const r = await sdk.createProject(`p${p}`);
        if (r.status === 201) break;
        if (r.status !== 503 || Date.now() > deadline) throw new Error(`cannot create p${p}: ${r.status} ${JSON.stringify(r.body)}`);
      }
    }
  }, 60_000);
  afterAll(async () => {
    sdk?.close();
    await reader?.close();
    await nc?.close();
    await watching?.catch(() => undefined);
    await sys?.stop();
  });

  /** A project's summary; a shard being handed over answers 503 meanwhile (retryable). */
  const full = async (pid: string) => {
    for (const deadline = Date.now() + 15_000; ; await sleep(100)) {
      try {
        return await reader.full('replicas', pid);
      } catch (err) {
        if ((err as { status?: number }).status !== 503 || Date.now() > deadline) throw err;
      }
    }
  };

  /** The replica (process name) that last wrote shard 0's lease: it serves shard 0. */
  const holder = () => holdings.filter((h) => h.key === shardLeaseKey(0) && !h.released).at(-1)?.owner;

  it('every acknowledged batch is in its project exactly once; the lease never had two holders', async () => {
    const batch = (p: number, k: number) => ({
      attributeNames: ['x', 'y'],
      attributeTypes: ['C', 'C'],
      data: Array.from({ length: ROWS }, (_, r) => [String(k + 1), String(p * 1000 + r)]),
    });
    const acked: number[][] = Array.from({ length: PROJECTS }, () => []);
    const answers = new Map<string, number>();
    let total = 0;
    let loading = true;
    const load = async (p: number) => {
      for (let k = 0; loading; k++) {
        await learnUntilAcknowledged(sdk, `p${p}`, batch(p, k), { withinMs: 30_000, pauseMs: 50, answers, what: `batch ${k} of p${p}` });
        acked[p].push(k);
        total++;
      }
    };
    const progress = async (n: number, what: string) => {
      const target = total + n;
      for (const deadline = Date.now() + 30_000; total < target; await sleep(50)) {
        if (Date.now() > deadline) throw new Error(`${what}: ${n - target + total} of ${n} batches acknowledged in 30 s; answers ${JSON.stringify([...answers])}`);
      }
    };

    const loads = Array.from({ length: PROJECTS }, (_, p) => load(p));
    const killed: string[] = [];
    try {
      await progress(200, 'before the first kill');
      for (let i = 0; i < 2; i++) {
        const victim = holder()!;
        expect(victim).toMatch(/^projects/);
        await sys.kill(victim, 'SIGKILL');
        killed.push(victim);
        // Another replica takes shard 0's lease over once it expired, and serves it.
        for (const deadline = Date.now() + 6 * LEASE_MS; holder() === victim; await sleep(50)) {
          if (Date.now() > deadline) throw new Error(`shard 0 not taken over from ${victim} within ${6 * LEASE_MS} ms`);
        }
        await progress(200, `after SIGKILL of ${victim}`);
      }
      for (const k of killed) await sys.start(k);
      await progress(100, 'after the killed replicas came back');
    } finally {
      loading = false;
      await Promise.allSettled(loads);
    }
    await Promise.all(loads);

    for (let p = 0; p < PROJECTS; p++) {
      const s = await full(`p${p}`);
      const n = acked[p].length;
      // Batches 0 … n-1, each once: ROWS·n rows, and x sums to ROWS·n(n+1)/2.
      expect({ project: p, rows: s.rowCount }).toEqual({ project: p, rows: ROWS * n });
      expectClose(s.moments('x').sum, (ROWS * n * (n + 1)) / 2);
    }

    // Each lease: a holder renews (same owner, later `until`); a new holder takes it only
    // after the previous one's last `until` had passed (or it was given up: deleted).
    const owners = holdings.filter((h) => h.key === shardLeaseKey(0) && !h.released).map((h) => h.owner).filter((o, i, all) => i === 0 || all[i - 1] !== o);
    expect(owners.length).toBeGreaterThanOrEqual(3);
    for (let shard = 0; shard < SHARDS; shard++) {
      const of = holdings.filter((h) => h.key === shardLeaseKey(shard));
      for (let i = 1; i < of.length; i++) {
        const [before, now] = [of[i - 1], of[i]];
        expect(now.revision).toBeGreaterThan(before.revision);
        if (!before.released && !now.released && now.owner !== before.owner) {
          expect({ shard, taken: now.until - LEASE_MS, previousUntil: before.until, ok: now.until - LEASE_MS >= before.until }).toMatchObject({ ok: true });
        }
      }
    }
    if (SHARDS > 1) {
      // Shared out: after a few rounds every live replica serves at least one shard.
      for (const deadline = Date.now() + 10_000; ; await sleep(200)) {
        const now = Date.now();
        const current = new Map<string, Holding>();
        for (const h of holdings) current.set(h.key, h);
        const serving = new Set([...current.values()].filter((h) => !h.released && h.until > now).map((h) => h.owner));
        if (serving.size === 3) break;
        if (Date.now() > deadline) throw new Error(`shards not shared out: ${JSON.stringify([...current.values()])}`);
      }
      // Across shards: the list and infoAll see every project; a merge reads a project served elsewhere.
      const list = await sdk.request('GET', '/projects');
      expect((list.body.values as { stringList: { values: string[] } }).stringList.values).toHaveLength(PROJECTS);
      const infos = await sdk.request('GET', '/projects/info', { query: { async: 'false' } });
      expect((infos.body.values as { smlInfoList: { values: unknown[] } }).smlInfoList.values).toHaveLength(PROJECTS);
      const [a, b] = [0, 1, 2, 3, 4, 5, 6, 7].map((p) => `p${p}`).filter((p, _, all) => shardOf('replicas', p, SHARDS) !== shardOf('replicas', all[0], SHARDS) || p === all[0]);
      expect(b).toBeDefined();
      const [ra, rb] = [await full(a), await full(b)];
      expect((await sdk.request('GET', `/projects/${a}/merge`, { query: { otherProjectName: b } })).status).toBe(200);
      expect((await full(a)).rowCount).toBe(ra.rowCount + rb.rowCount);
      // b learns more at its holder; a second merge sees it (a copy of b loaded by a's holder would not).
      expect((await sdk.request('POST', `/projects/${b}/learn`, { json: batch(1, 0) })).status).toBe(200);
      expect((await sdk.request('GET', `/projects/${a}/merge`, { query: { otherProjectName: b } })).status).toBe(200);
      expect((await full(a)).rowCount).toBe(ra.rowCount + rb.rowCount + rb.rowCount + ROWS);
      // What only one replica's memory would hold cannot be created.
      const memoryOnly = await sdk.request('POST', '/projects', { query: { pid: 'volatile', persist: 'false' } });
      expect({ status: memoryOnly.status, message: memoryOnly.body.statusString }).toEqual({ status: 400, message: expect.stringContaining('SML_PROJECT_SHARDS') });
    }
    expect(sys.unexpectedExits()).toEqual([]);
    console.log(`projects replicas: holders ${owners.join(' → ')}; ${total} batches acknowledged; retried answers ${JSON.stringify([...answers])}`);
  }, 150_000);
});

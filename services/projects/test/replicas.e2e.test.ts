import { randomUUID } from 'node:crypto';
import { connect, type KvEntry, type NatsConnection } from 'nats';
import { sml } from '@sml/proto';
import type { SmlClient } from '@sml/sdk';
import { startSystem, type RunningSystem } from '@sml/testkit';
import { PROJECTS_LEASE_KEY } from '../src/ownership';
import { customer, expectClose, SummaryReader } from './helpers';

// Issue 16: three projects replicas, one serving under the projects lease, two standing by.
// 100 projects learn concurrently while the serving replica is SIGKILLed twice (the second
// time, the standby that took over). Each batch is retried with its Idempotency-Key until the
// gateway answers 200. Afterwards every project holds each acknowledged batch exactly once,
// and the lease — watched from outside for the whole test — never had two holders at a time.
const PROJECTS = 100;
const ROWS = 5;
const LEASE_MS = 1500;

interface Holding { owner: string; until: number; revision: number }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('three projects replicas, the serving one SIGKILLed twice', () => {
  let sys: RunningSystem;
  let reader: SummaryReader;
  let sdk: SmlClient;
  let nc: NatsConnection;
  const holdings: Holding[] = [];
  let watching: Promise<void>;

  beforeAll(async () => {
    sys = await startSystem({
      services: ['users', 'jobs', 'projects', 'projects#2', 'projects#3'],
      env: { SML_PROJECT_LEASE_MS: String(LEASE_MS), SML_REQUEST_TIMEOUT_MS: '3000', SML_SNAPSHOT_EVERY_BATCHES: '5', SML_SNAPSHOT_EVERY_MS: '500' },
    });
    // Every write of the lease, as the projects replicas make them.
    nc = await connect({ servers: sys.nats.url, ...sys.nats.connectOptions('projects') });
    const kv = await nc.jetstream().views.kv('sml_project_leases');
    const watch = await kv.watch({ key: PROJECTS_LEASE_KEY });
    watching = (async () => {
      for await (const e of watch as AsyncIterable<KvEntry>) {
        if (e.operation !== 'PUT') continue;
        const lease = sml.v1.StreamLease.decode(e.value);
        holdings.push({ owner: lease.owner, until: Number(lease.until), revision: e.revision });
      }
    })();
    reader = await SummaryReader.open(sys.nats);
    sdk = await customer(sys, 'replicas');
    for (let p = 0; p < PROJECTS; p++) expect((await sdk.createProject(`p${p}`)).status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    sdk?.close();
    await reader?.close();
    await nc?.close();
    await watching?.catch(() => undefined);
    await sys?.stop();
  });

  /** The replica (process name) holding the lease now. */
  const holder = () => holdings[holdings.length - 1]?.owner;

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
        const key = randomUUID();
        for (const deadline = Date.now() + 30_000; ;) {
          const r = await sdk.request('POST', `/projects/p${p}/learn`, { json: batch(p, k), headers: { 'Idempotency-Key': key } }).catch(() => undefined);
          if (r?.status === 200) break;
          const what = r === undefined ? 'no answer' : `${r.status} ${String(r.body.statusString).slice(0, 60)}`;
          answers.set(what, (answers.get(what) ?? 0) + 1);
          if (r !== undefined && r.status !== 503) throw new Error(`batch ${k} of p${p}: ${what}`);
          if (Date.now() > deadline) throw new Error(`batch ${k} of p${p} not acknowledged in 30 s: ${[...answers.keys()].join('; ')}`);
          await sleep(50);
        }
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
        const victim = holder();
        expect(victim).toMatch(/^projects/);
        await sys.kill(victim, 'SIGKILL');
        killed.push(victim);
        // A standby takes the lease over once it expired, and serves.
        await progress(200, `after SIGKILL of ${victim}`);
        expect(holder()).not.toBe(victim);
      }
      for (const k of killed) await sys.start(k);
      await progress(100, 'after the killed replicas came back');
    } finally {
      loading = false;
      await Promise.allSettled(loads);
    }
    await Promise.all(loads);

    for (let p = 0; p < PROJECTS; p++) {
      const s = await reader.full('replicas', `p${p}`);
      const n = acked[p].length;
      // Batches 0 … n-1, each once: ROWS·n rows, and x sums to ROWS·n(n+1)/2.
      expect({ project: p, rows: s.rowCount }).toEqual({ project: p, rows: ROWS * n });
      expectClose(s.moments('x').sum, (ROWS * n * (n + 1)) / 2);
    }

    // The lease: a holder renews (same owner, later `until`); a new holder takes it only after
    // the previous one's last `until` had passed.
    const owners = holdings.map((h) => h.owner).filter((o, i, all) => i === 0 || all[i - 1] !== o);
    expect(owners.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < holdings.length; i++) {
      const [before, now] = [holdings[i - 1], holdings[i]];
      expect(now.revision).toBeGreaterThan(before.revision);
      if (now.owner !== before.owner) expect({ taken: now.until - LEASE_MS, previousUntil: before.until, ok: now.until - LEASE_MS >= before.until }).toMatchObject({ ok: true });
    }
    expect(sys.unexpectedExits()).toEqual([]);
    console.log(`projects replicas: holders ${owners.join(' → ')}; ${total} batches acknowledged; retried answers ${JSON.stringify([...answers])}`);
  }, 150_000);
});

import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from 'nats';
import { sml } from '@sml/proto';
import type { SmlClient } from '@sml/sdk';
import { startSystem, type RunningSystem } from '@sml/testkit';
import { shardLeaseKey } from '../src/replicas/ownership';
import { customer, SummaryReader } from './helpers';

// @sml-run-alone: times how long requests wait for a SIGKILLed replica (scripts/jest-alone.js).
// Issue 29, item 13: requests in flight to a SIGKILLed projects replica waited the whole
// request timeout (30 s). Two replicas, one shard; learns run continuously — keyed by the
// client, and unkeyed (the gateway keys them itself) — while the holder is SIGKILLed. The
// gateway notices the holder is gone (its shard's `alive` probe finds nobody, or another
// holding) and sends each learn it was waiting for to the next holder: no request waits
// anywhere near the 30 s timeout, and every acknowledged batch is in its project exactly once.
const PROJECTS = 12;
const ROWS = 4;
const LEASE_MS = 1500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the projects replica holding the shard SIGKILLed while learns are in flight', () => {
  let sys: RunningSystem;
  let sdk: SmlClient;
  let reader: SummaryReader;
  let nc: NatsConnection;

  beforeAll(async () => {
    sys = await startSystem({
      services: ['users', 'jobs', 'projects', 'projects#2'],
      // The default request timeout (30 s): what in-flight requests waited before.
      env: { SML_PROJECT_SHARDS: '1', SML_PROJECT_LEASE_MS: String(LEASE_MS), SML_SNAPSHOT_EVERY_BATCHES: '5', SML_SNAPSHOT_EVERY_MS: '500' },
    });
    nc = await connect({ servers: sys.nats.url, ...sys.nats.connectOptions('projects') });
    reader = await SummaryReader.open(sys.nats);
    sdk = await customer(sys, 'failover');
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
    await sys?.stop();
  });

  const holder = async () => {
    const kv = await nc.jetstream().views.kv('sml_project_leases');
    const e = await kv.get(shardLeaseKey(0));
    return e?.operation === 'PUT' ? sml.v1.StreamLease.decode(e.value).owner : undefined;
  };

  it('every in-flight learn is answered within seconds, and each acknowledged batch is kept exactly once', async () => {
    const batch = (p: number, k: number) => ({ attributeNames: ['x'], attributeTypes: ['C'], data: Array.from({ length: ROWS }, () => [String(k + 1)]) });
    /** Per project: the batch numbers acknowledged (200), and those answered 503 (not acknowledged). */
    const acked: number[][] = Array.from({ length: PROJECTS }, () => []);
    const refused: number[][] = Array.from({ length: PROJECTS }, () => []);
    const answers = new Map<string, number>();
    let slowest = 0;
    let killedAt = 0;
    let slowestAfterKill = 0;
    let running = true;
    const load = async (p: number) => {
      // Even projects: the client keys each batch and retries it until acknowledged. Odd ones:
      // no key, one try per batch (a 503 is counted as not acknowledged).
      const keyed = p % 2 === 0;
      for (let k = 0; running; k++) {
        const key = randomUUID();
        for (;;) {
          const t0 = Date.now();
          const r = await sdk.request('POST', `/projects/p${p}/learn`, { json: batch(p, k), headers: keyed ? { 'Idempotency-Key': key } : {} });
          const ms = Date.now() - t0;
          slowest = Math.max(slowest, ms);
          if (killedAt && t0 <= killedAt) slowestAfterKill = Math.max(slowestAfterKill, ms);
          if (r.status === 200) {
            acked[p].push(k);
            break;
          }
          const what = `${r.status} ${String(r.body.statusString).slice(0, 60)}`;
          answers.set(what, (answers.get(what) ?? 0) + 1);
          if (r.status !== 503) throw new Error(`batch ${k} of p${p}: ${what}`);
          if (!keyed) {
            refused[p].push(k);
            break;
          }
          await sleep(50);
        }
      }
    };
    const loads = Array.from({ length: PROJECTS }, (_, p) => load(p));
    try {
      await sleep(2000);
      const victim = (await holder())!;
      expect(victim).toMatch(/^projects/);
      killedAt = Date.now();
      await sys.kill(victim, 'SIGKILL');
      // Served again by the other replica.
      for (const deadline = Date.now() + 10_000; (await holder()) === victim; await sleep(50)) {
        if (Date.now() > deadline) throw new Error(`shard 0 not taken over from ${victim}`);
      }
      await sleep(3000);
    } finally {
      running = false;
      await Promise.allSettled(loads);
    }
    await Promise.all(loads);

    // The requests sent before the kill, the ones in flight at it included: none waited for the timeout.
    expect(slowestAfterKill).toBeGreaterThan(0);
    expect({ slowest: slowest < 10_000 }).toEqual({ slowest: true });
    for (let p = 0; p < PROJECTS; p++) {
      const s = await reader.full('failover', `p${p}`);
      const sum = (ks: number[]) => ks.reduce((a, k) => a + ROWS * (k + 1), 0);
      if (p % 2 === 0) {
        // Keyed: batches 0 … n-1, each exactly once.
        expect({ p, rows: s.rowCount, sum: s.moments('x').sum }).toEqual({ p, rows: ROWS * acked[p].length, sum: sum(acked[p]) });
      } else {
        // Unkeyed: every acknowledged batch once (the gateway's resend of a batch the dead
        // replica had logged is applied once); a 503 one at most once.
        expect(s.rowCount).toBeGreaterThanOrEqual(ROWS * acked[p].length);
        expect(s.rowCount).toBeLessThanOrEqual(ROWS * (acked[p].length + refused[p].length));
      }
    }
    expect(sys.unexpectedExits()).toEqual([]);
    console.log(`failover: slowest ${slowest} ms (sent before the kill: ${slowestAfterKill} ms); batches ${acked.map((a) => a.length).join('/')}; 503s ${JSON.stringify([...answers])}`);
  }, 120_000);
});

import { connect } from 'nats';
import { SmlClient, type SmlResponse } from '@sml/sdk';
import { startSystem, type RunningSystem } from '@sml/testkit';

// End to end (issue 9, item 8): nats-server is SIGKILLed while the gateway, jobs and
// projects run, and started again. Its memory-storage JetStream state (the replay KV bucket
// `sml_replay`) is gone after the restart; every JetStream resource a service uses must be
// recreated, the API must answer 503 (retryable) during the outage, never 500, and /readyz
// must say what is missing.
describe('nats-server restart while services run', () => {
  let sys: RunningSystem;
  let alice: SmlClient;

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const readyz = async () => {
    const r = await fetch(`${sys.url}/readyz`);
    return { status: r.status, body: (await r.json()) as { ready: boolean; missing: string[]; nats: string; resources: string[] } };
  };
  /** Retries `call` until it answers `status`; records every other status seen meanwhile. */
  const until = async (status: number, call: () => Promise<{ status: number }>, seen: number[], timeoutMs = 20_000) => {
    const t0 = Date.now();
    for (;;) {
      const r = await call().catch(() => ({ status: 0 }));
      if (r.status === status) return;
      seen.push(r.status);
      if (Date.now() - t0 > timeoutMs) throw new Error(`no ${status} within ${timeoutMs} ms; answers seen: ${[...new Set(seen)].join(', ')}\n${sys.logs('users').slice(-3000)}`);
      await sleep(100);
    }
  };

  beforeAll(async () => {
    sys = await startSystem({ services: ['users', 'jobs', 'projects'], env: { SML_REQUEST_TIMEOUT_MS: '3000' } });
    const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
    const r = await root.addUser('alice');
    expect(r.status).toBe(201);
    alice = new SmlClient({ url: sys.url, user: 'alice', secret: String((r.body.values as { secretKey: string }).secretKey) });
  });
  afterAll(async () => {
    alice?.close();
    await sys?.stop();
  });

  it('a hard restart: 503 (retryable, naming NATS) during the outage, 200 again after it; /readyz follows', async () => {
    expect((await alice.createProject('p')).status).toBe(201);
    expect((await alice.listJobs()).status).toBe(200);

    const during: SmlResponse[] = [];
    let readyDuring: Awaited<ReturnType<typeof readyz>> | undefined;
    let outageMs = 0;
    await sys.nats.restart({
      hard: true,
      whileDown: async () => {
        await sleep(300); // the services see the connection drop
        const t0 = Date.now();
        during.push(await alice.listJobs(), await alice.projectInfo('p'), await alice.request('GET', '/projects'));
        outageMs = Date.now() - t0;
        readyDuring = await readyz();
      },
    });
    expect(outageMs).toBeLessThan(3000); // fail fast, not after a timeout
    for (const r of during) {
      expect(r.status).toBe(503);
      expect(r.body.statusString).toMatch(/NATS/);
      expect(r.headers['retry-after']).toBeDefined();
    }
    expect(readyDuring).toMatchObject({ status: 503, body: { ready: false, nats: 'disconnected' } });

    // After the restart: signed requests answer 200 again (through the gateway's replay
    // bucket, jobs and projects), and keep doing so.
    const seen: number[] = [];
    await until(200, () => alice.listJobs(), seen);
    await until(200, () => alice.projectInfo('p'), seen);
    for (const s of seen) expect([0, 503]).toContain(s); // never a 500 on the way back
    for (let i = 0; i < 5; i++) {
      expect((await alice.listJobs()).status).toBe(200);
      expect((await alice.projectInfo('p')).status).toBe(200);
    }
    expect((await alice.createProject('q')).status).toBe(201);
    // A job runs to its end: its events go through SML_JOB_EVENTS and the jobs' durable consumer.
    const job = await alice.projectInfo('p', { async: true });
    expect(job.status).toBe(202);
    expect((await alice.waitForJob(job, { timeoutMs: 10_000 })).status).toBe(200);
    await until(200, async () => readyz(), []);
    expect((await readyz()).body).toMatchObject({ ready: true, missing: [], nats: 'connected', resources: [] });

    const nc = await connect({ servers: sys.nats.url, ...sys.nats.connectOptions('gateway') });
    try {
      const jsm = await nc.jetstreamManager();
      expect((await jsm.streams.info('KV_sml_replay')).config.storage).toBe('memory');
    } finally {
      await nc.close();
    }
  });

  it('after the restart the gateway still follows sml_users: a customer removed by another replica is refused', async () => {
    // (the first test restarted nats-server: the KV watches of that time are gone with it)
    const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
    const r = await root.addUser('bob');
    expect(r.status).toBe(201);
    const bob = new SmlClient({ url: sys.url, user: 'bob', secret: String((r.body.values as { secretKey: string }).secretKey) });
    expect((await bob.listJobs()).status).toBe(200); // bob's record is now in the gateway's cache
    // Another gateway replica's change reaches this one only through its watch of sml_users.
    const nc = await connect({ servers: sys.nats.url, ...sys.nats.connectOptions('gateway') });
    try {
      const kv = await nc.jetstream().views.kv('sml_users');
      await kv.delete('bob');
    } finally {
      await nc.close();
    }
    const refused: number[] = [];
    await until(401, () => bob.listJobs(), refused, 5000);
    bob.close();
    root.close();
  });

  it('/readyz names a JetStream resource that disappeared; the gateway recreates it', async () => {
    const nc = await connect({ servers: sys.nats.url, ...sys.nats.connectOptions('gateway') });
    try {
      const jsm = await nc.jetstreamManager();
      await jsm.streams.delete('KV_sml_replay');
      const r = await readyz();
      expect(r.status).toBe(503);
      expect(r.body.resources).toEqual(['kv sml_replay']);
      await until(200, async () => readyz(), []);
      expect((await alice.listJobs()).status).toBe(200);
      expect((await jsm.streams.info('KV_sml_replay')).config.name).toBe('KV_sml_replay');
    } finally {
      await nc.close();
    }
  });
});

import type { SmlClient } from '@sml/sdk';
import { startNatsCluster, startSystem, type NatsCluster, type NatsClusterNode, type RunningSystem } from '@sml/testkit';
import { customer, expectClose, learnUntilAcknowledged, SummaryReader } from './helpers';

// Issue 16: the system on a 3-server NATS cluster with every stream, KV bucket and object
// store at R3 (SML_JETSTREAM_REPLICAS=3), the services given the cluster's server list.
// Several projects learn batches while one server — the leader of the write-ahead log
// SML_PROJECT_LOG — is SIGKILLed, and later started again. Each batch is retried with its Idempotency-Key until the gateway answers 200,
// so every batch is acknowledged once: afterwards (and after the projects service reloads
// every project from JetStream) each project holds each batch exactly once.
const PROJECTS = 4;
const ROWS = 20;
/**
 * How long one batch may take to be acknowledged (retried meanwhile), and the system to serve
 * again after the kill. Once 90 s: the projects lease's KV renewals timed out during the
 * elections on two shared cores and the only replica suspended its shard (503) until it took
 * it again (issue 29, item 14). The only replica now keeps its shard (nobody else could take
 * it), so what is left is the election itself and the requests waiting on it.
 */
const RECOVERY_MS = 30_000;
/** Service restored (20 more batches acknowledged) after the kill: the target is 10 s; twice that for a loaded machine. */
const RESTORED_MS = 20_000;

interface Jsz { meta_cluster?: { leader?: string }; account_details?: { stream_detail?: { name: string; config?: { num_replicas: number }; cluster?: { leader?: string } }[] }[] }
interface Connz { connections: { name?: string }[] }

const monitor = async <T>(node: NatsClusterNode, path: string): Promise<T> => (await (await fetch(`http://127.0.0.1:${node.monitorPort}${path}`)).json()) as T;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a 3-server NATS cluster at R3 losing a server while projects learn', () => {
  let cluster: NatsCluster;
  let sys: RunningSystem;
  let reader: SummaryReader;
  let sdk: SmlClient;

  beforeAll(async () => {
    cluster = await startNatsCluster({ auth: true });
    sys = await startSystem({
      services: ['users', 'jobs', 'projects'],
      nats: cluster,
      env: { SML_JETSTREAM_REPLICAS: '3', SML_REQUEST_TIMEOUT_MS: '3000', SML_SNAPSHOT_EVERY_BATCHES: '10', SML_SNAPSHOT_EVERY_MS: '1000', SML_LOG_LEVEL: 'info' },
    });
    reader = await SummaryReader.open(cluster);
    sdk = await customer(sys, 'cluster');
    // The projects service answers discovery (so the gateway is ready) before it has created
    // its R3 resources: its first requests may answer 503 'Service [projects] is unavailable'.
    for (let p = 0; p < PROJECTS; p++) {
      for (const deadline = Date.now() + 30_000; ; await sleep(200)) {
        const r = await sdk.createProject(`p${p}`);
        if (r.status === 201) break;
        if (r.status !== 503 || Date.now() > deadline) throw new Error(`cannot create p${p}: ${r.status} ${JSON.stringify(r.body)}\n${sys.logs('projects')}`);
      }
    }
  }, 60_000);
  afterAll(async () => {
    sdk?.close();
    await reader?.close();
    await sys?.stop();
    await cluster?.stop();
  });

  /** Streams of the account (every bus identity is in one), from a running server's monitoring endpoint. */
  const streams = async () => {
    const node = cluster.nodes.find((n) => n.running())!;
    const jsz = await monitor<Jsz>(node, '/jsz?accounts=true&streams=true&config=true');
    return jsz.account_details?.flatMap((a) => a.stream_detail ?? []) ?? [];
  };
  /** The running servers that a service process (`sml-<name>`) is connected to. */
  const serversOf = async (service: string) => {
    const on: string[] = [];
    for (const n of cluster.nodes.filter((x) => x.running())) {
      if ((await monitor<Connz>(n, '/connz?limit=1024')).connections.some((c) => c.name === `sml-${service}`)) on.push(n.name);
    }
    return on;
  };

  it('every stream, KV bucket and object store the services created has 3 replicas', async () => {
    const all = await streams();
    const names = all.map((s) => s.name);
    for (const s of ['SML_PROJECT_LOG', 'KV_sml_projects', 'KV_sml_idempotency', 'OBJ_sml_project_snapshots', 'KV_sml_users', 'KV_sml_replay', 'KV_sml_jobs', 'SML_JOB_EVENTS', 'SML_JOB_IDS']) expect(names).toContain(s);
    for (const s of all) expect({ name: s.name, replicas: s.config?.num_replicas }).toEqual({ name: s.name, replicas: 3 });
  });

  it('SIGKILL of a server (then restarted) loses no acknowledged batch and doubles none; the services keep serving', async () => {
    // Batch k of a project: ROWS rows with x = k + 1 — a lost or doubled batch changes the count and the sum.
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
        await learnUntilAcknowledged(sdk, `p${p}`, batch(p, k), {
          withinMs: RECOVERY_MS, pauseMs: 100, answers, what: `batch ${k} of p${p}`,
          context: () => `${sys.logs('projects')}\n${cluster.log().split('\n').filter((l) => /Violation|---/.test(l)).join('\n')}`,
        });
        acked[p].push(k);
        total++;
      }
    };
    /** Resolves once `n` more batches were acknowledged (the system learns), or fails after RECOVERY_MS. */
    const progress = async (n: number, what: string) => {
      const target = total + n;
      for (const deadline = Date.now() + RECOVERY_MS; total < target; await sleep(50)) {
        if (Date.now() > deadline) throw new Error(`${what}: only ${total - target + n} of ${n} batches acknowledged in ${RECOVERY_MS / 1000} s; answers ${JSON.stringify([...answers])}\n${sys.logs('projects').slice(-3000)}\n${sys.logs('users').slice(-2000)}`);
      }
    };

    const loads = Array.from({ length: PROJECTS }, (_, p) => load(p));
    let restoredMs = Infinity;
    const t0 = Date.now();
    const steps: string[] = [];
    const step = (what: string) => steps.push(`${((Date.now() - t0) / 1000).toFixed(1)} s: ${what} (${total} acknowledged)`);
    const chaos = (async () => {
      await progress(20, 'before the kill');
      // The leader of the write-ahead log SML_PROJECT_LOG: appends it acknowledged must survive
      // the election of another; the service processes connected to it must reconnect elsewhere.
      const leader = (await streams()).find((x) => x.name === 'SML_PROJECT_LOG')!.cluster!.leader!;
      const victim = cluster.nodes.find((n) => n.name === leader)!;
      const onVictim: string[] = [];
      for (const svc of ['users', 'jobs', 'projects']) if ((await serversOf(svc)).includes(victim.name)) onVictim.push(svc);
      step(`SIGKILL ${victim.name} (SML_PROJECT_LOG leader; connected: ${onVictim.join(', ') || 'none'})`);
      const killedAt = Date.now();
      await victim.kill();
      await progress(20, `after SIGKILL of ${victim.name}`);
      restoredMs = Date.now() - killedAt;
      step(`restored ${restoredMs} ms after the kill`);
      // Every service process is connected to a surviving server.
      for (const svc of ['users', 'jobs', 'projects']) expect({ svc, on: await serversOf(svc) }).toEqual({ svc, on: [expect.not.stringMatching(victim.name)] });
      step(`start ${victim.name}`);
      await victim.start();
      step(`${victim.name} healthy`);
      await progress(10, `after ${victim.name} came back`);
      step('load stops');
    })();
    try {
      await chaos;
    } catch (err) {
      throw new Error(`${(err as Error).message}\nsteps: ${steps.join('; ')}`);
    } finally {
      loading = false;
      await Promise.allSettled(loads);
    }
    await Promise.all(loads); // a load that failed fails the test with its reason
    expect({ restoredMs, within: restoredMs <= RESTORED_MS }).toEqual({ restoredMs, within: true });
    // The only projects replica never gave its shard up during the election.
    expect(sys.logs('projects')).not.toContain('projects shard no longer served here');

    const check = async (when: string) => {
      for (let p = 0; p < PROJECTS; p++) {
        const s = await reader.full('cluster', `p${p}`);
        const n = acked[p].length;
        // Batches 0 … n-1, each once: ROWS·n rows, and x sums to ROWS·n(n+1)/2.
        expect({ when, project: p, rows: s.rowCount }).toEqual({ when, project: p, rows: ROWS * n });
        expect(s.moments('x').count).toBe(ROWS * n);
        expectClose(s.moments('x').sum, (ROWS * n * (n + 1)) / 2);
      }
    };
    await check('in memory').catch((err: Error) => {
      // Which loads made the projects as they are (info lines: snapshot sequence, batches replayed).
      throw new Error(`${err.message}\n${sys.logs('projects').split('\n').filter((l) => l.includes('project loaded')).join('\n')}`);
    });
    // What JetStream holds: the projects service reloads every project from its R3 snapshot + log.
    await sys.kill('projects');
    await sys.start('projects');
    await check('reloaded from JetStream');
    // Still serving: a new project, its learn, and the jobs service.
    expect((await sdk.createProject('after')).status).toBe(201);
    expect((await sdk.request('POST', '/projects/after/learn', { json: batch(0, 0) })).status).toBe(200);
    expect((await sdk.listJobs()).status).toBe(200);
    expect(sys.unexpectedExits()).toEqual([]);
    step('checked');
    console.log(`nats cluster test: ${steps.join('; ')}; ${total} batches acknowledged (${acked.map((a) => a.length).join('/')} per project); retried answers ${JSON.stringify([...answers])}`);
  }, 4 * RECOVERY_MS);
});

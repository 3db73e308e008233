import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { busAuthorizationConf, ensureBusCredentials } from '@sml/bus';
import { connectOptionsOf, natsProcess, type NatsServer } from './nats';
import { freePort } from './ports';

/** One server of a {@link NatsCluster}. */
export interface NatsClusterNode {
  /** Its `server_name` (`n0`, `n1` …): what JetStream names as a stream's leader or replica. */
  name: string;
  url: string;
  port: number;
  /** The monitoring port (`/healthz`, `/connz`, `/jsz`) on 127.0.0.1. */
  monitorPort: number;
  /** Kills the server (SIGKILL by default, like a lost machine); its store stays. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same ports and store, and waits until it is healthy in the cluster. */
  start(): Promise<void>;
  running(): boolean;
  log(): string;
}

/**
 * A NATS cluster that is also usable wherever one {@link NatsServer} is (`startSystem({ nats })`):
 * `url` is the servers' comma-separated list (the NATS_URL format; nats.js `connect()` wants
 * `servers`, the array), `restart` restarts every server, `stop` kills them all and removes
 * the stores.
 */
export interface NatsCluster extends NatsServer {
  servers: string[];
  nodes: NatsClusterNode[];
  /** Waits until every running server answers `/healthz` 200 (JetStream meta leader known, streams current). */
  healthy(timeoutMs?: number): Promise<void>;
}

/** Distinct free loopback ports. */
async function freePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

async function healthz(monitorPort: number): Promise<{ status: number; text: string }> {
  try {
    const r = await fetch(`http://127.0.0.1:${monitorPort}/healthz`);
    return { status: r.status, text: await r.text() };
  } catch (err) {
    return { status: 0, text: String(err) };
  }
}

/**
 * Starts `size` (default 3) `nats-server -js` processes clustered over loopback routes, each
 * with its own free client, route and monitoring port and its own store in one temp dir, and
 * waits until JetStream has a meta leader: streams of up to `size` replicas can be created.
 * With `auth`, every server has the bus users of packages/bus/src/permissions.ts (one set of
 * credentials for the cluster); routes are not authenticated (loopback only).
 */
export async function startNatsCluster(opts: { size?: number; auth?: boolean; maxPayload?: string } = {}): Promise<NatsCluster> {
  const size = opts.size ?? 3;
  const dir = mkdtempSync(join(tmpdir(), 'sml-nats-cluster-'));
  const credentials = opts.auth ? ensureBusCredentials(join(dir, 'auth')) : undefined;
  const ports = await freePorts(3 * size);
  const specs = Array.from({ length: size }, (_, i) => ({ name: `n${i}`, port: ports[3 * i], routePort: ports[3 * i + 1], monitorPort: ports[3 * i + 2] }));
  const processes: ReturnType<typeof natsProcess>[] = [];
  const nodes: NatsClusterNode[] = specs.map((spec) => {
    const nodeDir = join(dir, spec.name);
    mkdirSync(nodeDir);
    const conf = join(nodeDir, 'nats.conf');
    writeFileSync(conf, [
      `server_name: ${spec.name}`,
      `listen: 127.0.0.1:${spec.port}`,
      `http: 127.0.0.1:${spec.monitorPort}`,
      `max_payload: ${opts.maxPayload ?? '8MB'}`,
      `jetstream { store_dir: "${join(nodeDir, 'js')}" }`,
      'cluster {',
      '  name: sml-test',
      `  listen: 127.0.0.1:${spec.routePort}`,
      `  routes: [${specs.filter((o) => o !== spec).map((o) => `nats://127.0.0.1:${o.routePort}`).join(', ')}]`,
      '}',
      // bcrypt cost 4: the same mechanism as production, cheap to verify at every connect.
      credentials ? busAuthorizationConf(credentials, { cost: 4 }) : '',
      '',
    ].join('\n'));
    const server = natsProcess(conf, spec.port);
    processes.push(server);
    const node: NatsClusterNode = {
      name: spec.name,
      url: `nats://127.0.0.1:${spec.port}`,
      port: spec.port,
      monitorPort: spec.monitorPort,
      kill: (signal = 'SIGKILL') => server.kill(signal),
      async start() {
        await server.launch();
        await waitHealthy([node], 30_000);
      },
      running: server.running,
      log: server.log,
    };
    return node;
  });
  const launchAll = () => Promise.all(processes.map((p) => p.launch()));
  const killAll = (signal: NodeJS.Signals) => Promise.all(nodes.map((n) => n.kill(signal)));
  const waitHealthy = async (which: NatsClusterNode[], timeoutMs: number) => {
    const t0 = Date.now();
    for (;;) {
      const answers = await Promise.all(which.filter((n) => n.running()).map(async (n) => ({ n, ...(await healthz(n.monitorPort)) })));
      const sick = answers.filter((a) => a.status !== 200);
      if (sick.length === 0) return;
      if (Date.now() - t0 > timeoutMs) {
        throw new Error(`NATS cluster not healthy within ${timeoutMs} ms: ${sick.map((a) => `${a.n.name}: ${a.status} ${a.text}`).join('; ')}\n${sick.map((a) => `--- ${a.n.name}\n${a.n.log().slice(-3000)}`).join('\n')}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  try {
    await launchAll();
    await waitHealthy(nodes, 30_000);
  } catch (err) {
    await killAll('SIGKILL');
    cleanup();
    throw err;
  }
  const servers = nodes.map((n) => n.url);
  return {
    url: servers.join(','),
    servers,
    port: nodes[0].port,
    storeDir: dir,
    nodes,
    credentials,
    connectOptions: (identity) => connectOptionsOf(credentials, identity),
    log: () => nodes.map((n) => `--- ${n.name}\n${n.log()}`).join('\n'),
    healthy: (timeoutMs = 30_000) => waitHealthy(nodes, timeoutMs),
    async restart({ hard = false, whileDown } = {}) {
      await killAll(hard ? 'SIGKILL' : 'SIGTERM');
      try {
        await whileDown?.();
      } finally {
        await launchAll();
        await waitHealthy(nodes, 30_000);
      }
    },
    async stop() {
      await killAll('SIGTERM');
      cleanup();
    },
  };
}

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { SERVICE_IDENTITY } from '@sml/bus';
import { MALLOC_ENV } from '@sml/core';
import { startNatsServer, type NatsServer } from './nats';
import { freePort } from './ports';

/** The repository root: the nearest ancestor holding turbo.json. */
export function repoRoot(from = __dirname): string {
  let dir = from;
  while (!existsSync(join(dir, 'turbo.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no turbo.json above ${from}`);
    dir = up;
  }
  return dir;
}

/** Process name → entry point. `users` is the gateway process (it owns the customer registry). */
const ENTRY: Record<string, string> = {
  users: 'services/gateway/dist/main.js',
  jobs: 'services/jobs/dist/main.js',
  projects: 'services/projects/dist/main.js',
  explore: 'services/explore/dist/main.js',
  encoders: 'services/encoders/dist/main.js',
  streams: 'services/streams/dist/main.js',
};

export interface SystemOptions {
  /** Which service processes to run; `users` = the gateway, `<service>#<n>` another replica. Default: users, jobs. */
  services?: string[];
  env?: Record<string, string>;
  /** A server started by the caller; by default a throw-away one with bus authentication on. */
  nats?: NatsServer;
  /** Extra node flags for every service process (e.g. `--cpu-prof`, which NODE_OPTIONS refuses). */
  nodeArgs?: string[];
}

export interface RunningSystem {
  url: string;
  basePath: string;
  rootUser: string;
  rootSecret: string;
  nats: NatsServer;
  dataDir: string;
  /** Stops one service process (SIGKILL by default, like a crash). */
  kill(service: string, signal?: NodeJS.Signals): Promise<void>;
  /** Starts a service process again and waits until the system is ready. */
  start(service: string): Promise<void>;
  logs(service: string): string;
  /** Process ids of the running service processes, by service. */
  pids(): Record<string, number>;
  /** Exits nobody asked for (not through kill/stop): `service: code or signal`, in order. */
  unexpectedExits(): string[];
  stop(): Promise<void>;
}

/** What a test needs to reach a system, its own (`startSystem`) or a shared one (`sharedSystem`). */
export type SystemAccess = Pick<RunningSystem, 'url' | 'basePath' | 'rootUser' | 'rootSecret' | 'nats' | 'dataDir'>;

/** The service of a process name: `streams#2` (a second replica) is a `streams` process. */
function replicaKind(service: string): string {
  return service.split('#')[0];
}

/**
 * Starts a throw-away nats-server plus the built services as separate processes, exactly
 * as production runs them, and waits until the gateway's /readyz answers 200.
 */
/** How long a stopped service process may take to exit before it is killed. */
const STOP_GRACE_MS = 15_000;

export async function startSystem(opts: SystemOptions = {}): Promise<RunningSystem> {
  const root = repoRoot();
  const services = opts.services ?? ['users', 'jobs'];
  const nats = opts.nats ?? (await startNatsServer({ auth: true }));
  const dataDir = mkdtempSync(join(tmpdir(), 'sml-data-'));
  const port = await freePort();
  const rootSecret = randomBytes(16).toString('base64');
  const env: Record<string, string> = {
    // glibc malloc settings as `npm run up` gives them (packages/core/src/malloc.ts).
    ...MALLOC_ENV,
    ...(process.env as Record<string, string>),
    NATS_URL: nats.url,
    SML_DATA_DIR: dataDir,
    SML_FILES_ROOT: join(dataDir, 'files'),
    // The test servers (s3rver, PostgreSQL, http) listen on 127.0.0.1.
    SML_SOURCES_ALLOW_PRIVATE: 'true',
    SML_PORT: String(port),
    SML_HOST: '127.0.0.1',
    SML_ROOT_USER: 'root',
    SML_ROOT_SECRET: rootSecret,
    SML_REQUIRED_SERVICES: [...new Set(services.map(replicaKind))].join(','),
    SML_LOG_LEVEL: process.env.SML_LOG_LEVEL ?? 'warn',
    ...opts.env,
  };
  const procs = new Map<string, ChildProcess>();
  const output = new Map<string, string>();
  const stopping = new Set<ChildProcess>();
  const unexpected: string[] = [];

  const start = (service: string) => {
    // `<kind>#<n>`: another replica of the service <kind> (its own process, same identity).
    const kind = replicaKind(service);
    const entry = join(root, ENTRY[kind] ?? `services/${kind}/dist/main.js`);
    if (!existsSync(entry)) throw new Error(`${entry} is missing: run the build first`);
    // Each process connects as its own bus identity, as `npm run up` starts them.
    const creds = nats.credentials?.[SERVICE_IDENTITY[kind] ?? kind as keyof typeof nats.credentials];
    // A restarted process keeps its replica name, as a Kubernetes pod does (SML_REPLICA_ID).
    const childEnv = { ...env, SML_REPLICA_ID: service, ...(creds ? { SML_NATS_USER: creds.user, SML_NATS_PASSWORD: creds.password } : {}) };
    const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), entry], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    // The IPC channel is only a lifeline (runService stops a service whose parent is gone); it must not keep this process alive.
    child.channel?.unref();
    // The last 20 kB of each service's output (SML_TESTKIT_LOG_BYTES to keep more while chasing a failure).
    const keep = (d: Buffer) => output.set(service, ((output.get(service) ?? '') + d.toString()).slice(-Number(process.env.SML_TESTKIT_LOG_BYTES ?? 20_000)));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    child.once('exit', (code, signal) => {
      if (!stopping.has(child)) unexpected.push(`${service}: ${signal ?? code}`);
    });
    procs.set(service, child);
  };
  const kill = async (service: string, signal: NodeJS.Signals = 'SIGKILL') => {
    const child = procs.get(service);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    stopping.add(child);
    child.kill(signal);
    // A process whose event loop is held (a test that made it work for minutes) never runs its
    // SIGTERM handler: killed after a grace period, rather than left running after the test.
    const stuck = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(stuck);
  };

  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await Promise.all([...procs.keys()].map((s) => kill(s, 'SIGTERM')));
    if (!opts.nats) await nats.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    for (const s of services) start(s);
    await waitReady(url, services, () => [...output.entries()].map(([s, o]) => `--- ${s}\n${o}`).join('\n'));
  } catch (err) {
    await stop();
    throw err;
  }
  const logs = () => [...output.entries()].map(([s, o]) => `--- ${s}\n${o}`).join('\n');
  return {
    url, basePath: env.SML_BASE_PATH ?? '/symetry/rest', rootUser: 'root', rootSecret, nats, dataDir,
    kill,
    // A restarted service is back once /readyz sees every service answer again.
    start: async (service) => {
      start(service);
      await waitReady(url, services, logs);
    },
    logs: (s) => output.get(s) ?? '',
    pids: () => Object.fromEntries([...procs].filter(([, c]) => c.exitCode === null && c.signalCode === null && c.pid !== undefined).map(([s, c]) => [s, c.pid!])),
    unexpectedExits: () => [...unexpected],
    stop,
  };
}

async function waitReady(url: string, services: string[], logs: () => string, timeoutMs = 30_000): Promise<void> {
  const t0 = Date.now();
  let last = '';
  while (Date.now() - t0 < timeoutMs) {
    try {
      const r = await fetch(`${url}/readyz`);
      last = await r.text();
      if (r.status === 200) return;
    } catch (err) {
      last = String(err);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`system (${services.join(', ')}) not ready after ${timeoutMs} ms: ${last}\n${logs()}`);
}

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import net from 'node:net';
import { busAuthorizationConf, ensureBusCredentials, inboxPrefix, type BusCredentials, type BusIdentity } from '@sml/bus';
import { freePort } from './ports';

export interface NatsServer {
  url: string;
  port: number;
  storeDir: string;
  /**
   * Kills the server (SIGKILL when `hard`) and starts it again on the same port and store;
   * `whileDown` runs between the two (an outage of that length).
   */
  restart(opts?: { hard?: boolean; whileDown?: () => Promise<void> }): Promise<void>;
  stop(): Promise<void>;
  /** Every bus identity's credentials when started with `auth` (README "Bus security"), else undefined. */
  credentials?: Record<BusIdentity, BusCredentials>;
  /**
   * nats.js `connect()` options to act as `identity` (user, password, its inbox prefix):
   * `connect({ servers: nats.url, ...nats.connectOptions('explore') })`. `{}` without auth.
   */
  connectOptions(identity: BusIdentity): { user?: string; pass?: string; inboxPrefix?: string };
  /** The server's recent log (permission violations, auth failures …). */
  log(): string;
}

/** Debian installs nats-server in /usr/sbin, which is not on every PATH. */
export function natsServerBinary(): string {
  for (const p of [process.env.SML_NATS_SERVER, '/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server']) {
    if (p && existsSync(p)) return p;
  }
  return 'nats-server';
}

async function waitForPort(port: number, proc: ChildProcess, timeoutMs: number): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`nats-server exited with code ${proc.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => { s.end(); resolve(true); });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() - t0 > timeoutMs) throw new Error(`nats-server did not listen on ${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * One nats-server process on a config file, started again on the same ports and store
 * (what `restart` and a cluster node's `start` do); its stderr is kept for `log()`.
 */
export function natsProcess(conf: string, port: number): {
  launch: () => Promise<void>;
  kill: (signal: NodeJS.Signals) => Promise<void>;
  running: () => boolean;
  log: () => string;
} {
  let proc: ChildProcess | undefined;
  let stderr = '';
  const running = () => proc !== undefined && proc.exitCode === null && proc.signalCode === null;
  return {
    async launch() {
      const p = spawn(natsServerBinary(), ['-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
      proc = p;
      p.stderr.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-20_000); });
      try {
        await waitForPort(port, p, 10_000);
      } catch (err) {
        p.kill('SIGKILL');
        throw new Error(`${(err as Error).message}\n${stderr}`);
      }
    },
    async kill(signal) {
      if (!running()) return;
      const p = proc as ChildProcess;
      const exited = new Promise((r) => p.once('exit', r));
      p.kill(signal);
      await exited;
    },
    running,
    log: () => stderr,
  };
}

/**
 * Starts a throw-away `nats-server -js` on a free loopback port with its store in a temp dir
 * (like nats.js `nst/`). `stop()` kills it and removes the directory. With `auth`, the server
 * has one user per bus identity with the permissions of packages/bus/src/permissions.ts (as
 * `npm run up` configures it) and refuses connections without credentials; without it (pure
 * bus unit tests), anyone may connect and do anything.
 */
export async function startNatsServer(opts: { dir?: string; port?: number; maxPayload?: string; auth?: boolean } = {}): Promise<NatsServer> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'sml-nats-'));
  const port = opts.port ?? (await freePort());
  const conf = join(dir, 'nats.conf');
  const credentials = opts.auth ? ensureBusCredentials(join(dir, 'auth')) : undefined;
  writeFileSync(conf, [
    `listen: 127.0.0.1:${port}`,
    `max_payload: ${opts.maxPayload ?? '8MB'}`,
    `jetstream { store_dir: "${join(dir, 'js')}" }`,
    // bcrypt cost 4: the same mechanism as production, cheap to verify at every connect.
    credentials ? busAuthorizationConf(credentials, { cost: 4 }) : '',
    '',
  ].join('\n'));
  const server = natsProcess(conf, port);
  await server.launch();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir: dir,
    credentials,
    connectOptions: (identity) => connectOptionsOf(credentials, identity),
    log: server.log,
    async restart({ hard = false, whileDown } = {}) {
      await server.kill(hard ? 'SIGKILL' : 'SIGTERM');
      try {
        await whileDown?.();
      } finally {
        await server.launch();
      }
    },
    async stop() {
      await server.kill('SIGTERM');
      if (!opts.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function connectOptionsOf(credentials: Record<BusIdentity, BusCredentials> | undefined, identity: BusIdentity): { user?: string; pass?: string; inboxPrefix?: string } {
  const c = credentials?.[identity];
  return c ? { user: c.user, pass: c.password, inboxPrefix: inboxPrefix(c.user) } : {};
}

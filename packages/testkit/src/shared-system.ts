import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, openSync, closeSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BusCredentials, BusIdentity } from '@sml/bus';
import { SmlClient } from '@sml/sdk';
import { firstStdoutLine } from './child-output';
import { connectOptionsOf, type NatsServer } from './nats';
import { repoRoot, type SystemAccess, type SystemOptions } from './system';

/**
 * The systems that system-tier files share (CONTRIBUTING.md "Test tiers"). A profile is a set
 * of services plus the settings (limits, timeouts, snapshot cadence) its files need; every file
 * of a profile must pass with every setting of it. Limits are settable per system, not per
 * customer: a customer-level limit would be a product change.
 */
export const PROFILES = {
  /** The product's defaults, every service but streams (its files bring their own Kafka). */
  default: { services: ['users', 'jobs', 'projects', 'explore', 'encoders'] },
  /**
   * Small limits the data-source, encoder, import and predict files test; per-customer caps
   * (data sources, encoders) hold for each new customer anyway.
   */
  limits: {
    services: ['users', 'jobs', 'projects', 'explore', 'encoders'],
    env: {
      SML_MAX_EVT_WINDOW: '1000',
      SML_MAX_DATA_SOURCES_PER_CUSTOMER: '20', SML_MAX_ENCODER_VALUES: '20', SML_MAX_ENCODERS_PER_CUSTOMER: '3',
      SML_MAX_PREDICT_STEPS: '600', SML_PREDICT_THREAD_STEPS: '0',
    },
  },
  /** Small request bodies and bodies in flight, few WebSocket messages and connections (gateway files). */
  'small-bodies': {
    services: ['users', 'jobs', 'projects'],
    env: { SML_BODY_LIMIT: '200000', SML_MAX_BODY_BYTES_IN_FLIGHT: '300000', SML_WS_MAX_IN_FLIGHT: '2', SML_WS_MAX_CONNECTIONS_PER_CUSTOMER: '3' },
  },
} satisfies Record<string, SystemOptions>;

export type Profile = keyof typeof PROFILES;

/** A system shared by the files of one jest worker: reach it, never stop or restart it. */
export interface SharedSystem extends SystemAccess {
  profile: Profile;
}

/** What a shared system's host prints once the system is ready (its state file holds the same). */
export interface SharedSystemState {
  profile: Profile;
  pid: number;
  url: string;
  basePath: string;
  rootUser: string;
  rootSecret: string;
  dataDir: string;
  nats: { url: string; port: number; storeDir: string; credentials?: Record<BusIdentity, BusCredentials> };
}

/** Set by the system tier's globalSetup (scripts/jest-system-setup.js): where hosts record their systems. */
export const SHARED_SYSTEMS_DIR_ENV = 'SML_SHARED_SYSTEMS_DIR';

/** The state file of one worker's system of one profile. */
export function sharedStateFile(dir: string, worker: string, profile: string): string {
  return join(dir, `${worker}-${profile}.json`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether the gateway's /readyz answers 200 (every required service answering) within 5 s. */
async function ready(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5000) })).status === 200;
  } catch {
    return false;
  }
}

function fromState(s: SharedSystemState): SharedSystem {
  const refuse = (what: string) => () =>
    Promise.reject(new Error(`a shared system's nats-server cannot ${what}: give the file a system of its own (startSystem)`));
  const nats: NatsServer = {
    ...s.nats,
    connectOptions: (identity) => connectOptionsOf(s.nats.credentials, identity),
    log: () => '',
    restart: refuse('be restarted'),
    stop: refuse('be stopped'),
  };
  return { profile: s.profile, url: s.url, basePath: s.basePath, rootUser: s.rootUser, rootSecret: s.rootSecret, dataDir: s.dataDir, nats };
}

/**
 * The running system of `profile` for this jest worker, started on first use by a host process
 * (`dist/shared-host.js`) that keeps it until the run ends (the tier's globalTeardown stops it,
 * and so does the worker's exit). One file at a time uses it: isolate each test by a customer
 * of its own (`newCustomer`), never by the system's emptiness.
 */
export async function sharedSystem(profile: Profile = 'default'): Promise<SharedSystem> {
  const dir = process.env[SHARED_SYSTEMS_DIR_ENV];
  if (!dir) throw new Error(`${SHARED_SYSTEMS_DIR_ENV} is not set: sharedSystem() runs in the jest system tier (jest.config.js globalSetup)`);
  if (!(profile in PROFILES)) throw new Error(`no shared-system profile ${profile} (packages/testkit/src/shared-system.ts PROFILES)`);
  const file = sharedStateFile(dir, process.env.JEST_WORKER_ID ?? '1', profile);
  if (existsSync(file)) {
    const state = JSON.parse(readFileSync(file, 'utf8')) as SharedSystemState;
    if (alive(state.pid) && (await ready(state.url))) return fromState(state);
    // A file before this one left the system broken (a process crashed): a new one for the next files.
    if (alive(state.pid)) process.kill(state.pid, 'SIGTERM');
  }
  const host = join(repoRoot(), 'packages/testkit/dist/shared-host.js');
  if (!existsSync(host)) throw new Error(`${host} is missing: run the build first`);
  // The host's own messages go to a file: this file's test environment ends long before the host.
  const log = `${file}.log`;
  const fd = openSync(log, 'a');
  // The profile goes along as JSON: the host runs the build, the profile table may be newer.
  const child = spawn(process.execPath, [host, profile, file, JSON.stringify(PROFILES[profile])], { stdio: ['ignore', 'pipe', fd, 'ipc'] });
  closeSync(fd);
  try {
    const state = await firstStdoutLine(child, {
      what: `the shared system host (${profile})`, waitingFor: 'starting its system', timeoutMs: 60_000,
      stderr: () => (existsSync(log) ? readFileSync(log, 'utf8').slice(-4000) : ''),
      parse: (line) => (line.startsWith('{') ? (JSON.parse(line) as SharedSystemState) : undefined),
    });
    return fromState(state);
  } catch (err) {
    child.kill('SIGTERM');
    throw err;
  } finally {
    // The host outlives this file: nothing of it may keep the test environment alive.
    child.stdout?.destroy();
    child.channel?.unref();
    child.unref();
  }
}

/** A customer of a (shared) system: its unique name, secret and signed client. */
export interface Customer {
  user: string;
  secret: string;
  sdk: SmlClient;
}

/**
 * Creates a customer through the root user's REST admin API, named `<name>-<random>` so that
 * the files sharing a system never meet: the customer is the unit of isolation.
 */
export async function newCustomer(sys: SystemAccess, name = 'customer'): Promise<Customer> {
  const user = `${name}-${randomBytes(4).toString('hex')}`;
  const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret, basePath: sys.basePath });
  try {
    const r = await root.addUser(user);
    if (r.status !== 201) throw new Error(`cannot create customer ${user}: ${r.status} ${JSON.stringify(r.body)}`);
    const secret = String((r.body.values as { secretKey: string }).secretKey);
    return { user, secret, sdk: new SmlClient({ url: sys.url, user, secret, basePath: sys.basePath }) };
  } finally {
    root.close();
  }
}

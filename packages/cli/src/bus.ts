import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { BusClient, connectBus, localBusCredentialsDir, readBusCredentials } from '@sml/bus';
import { createLogger, loadConfig, type ConfigKey } from '@sml/core';
import type { Envelope } from '@sml/sdk';
import type { sml } from '@sml/proto';
import { CliError } from './errors';

const NATS_PORT = 4222;
const PROBE_TIMEOUT_MS = 3_000;

export interface AdminBus {
  client: BusClient;
  /** Root caller: the bus trusts internal tools (ARCHITECTURE.md §2). */
  caller: sml.v1.ICaller;
}

/** What an admin command reads of the configuration: the CLI's slice, validated when a command first needs the bus. */
const CLI_BUS_CONFIG = [
  'NATS_URL', 'SML_NATS_USER', 'SML_NATS_PASSWORD', 'SML_DATA_DIR', 'SML_ROOT_USER', 'SML_REQUEST_TIMEOUT_MS', 'SML_BREAKER_RESET_MS', 'SML_NO_RESPONDERS_RETRY_MS',
] as const satisfies readonly ConfigKey[];

/**
 * Runs `fn` with a bus connection to NATS_URL acting as SML_ROOT_USER, and closes it afterwards.
 * It connects as the bus identity `admin` (README "Bus security"): SML_NATS_USER and
 * SML_NATS_PASSWORD, else the credentials `npm run up` keeps in $SML_DATA_DIR/nats-auth/admin.env.
 */
export async function withAdminBus<T>(env: NodeJS.ProcessEnv, fn: (bus: AdminBus) => Promise<T>): Promise<T> {
  const config = loadConfig(env, CLI_BUS_CONFIG);
  // connectBus waits for a first connection forever (right for a service under an
  // orchestrator); a command must fail fast instead, so check a server answers first.
  const servers = config.NATS_URL.split(',');
  const reachable = await Promise.all(servers.map(accepts));
  if (!reachable.includes(true)) throw new CliError(`cannot reach NATS at ${config.NATS_URL} (set NATS_URL)`);

  const creds = config.SML_NATS_USER
    ? { user: config.SML_NATS_USER, password: config.SML_NATS_PASSWORD ?? '' }
    : readBusCredentials(localBusCredentialsDir(config.SML_DATA_DIR), 'admin');
  const nc = await connectBus({ url: config.NATS_URL, name: 'sml-cli', log: createLogger('sml-cli', 'silent'), user: creds?.user, pass: creds?.password })
    .catch((err: { code?: string }) => {
      if (err.code === 'AUTHORIZATION_VIOLATION') throw new CliError(`NATS at ${config.NATS_URL} refused ${creds ? `user ${creds.user}` : 'a connection without credentials'} (set SML_NATS_USER and SML_NATS_PASSWORD to the admin identity)`);
      throw err;
    });
  const client = new BusClient(nc, { timeoutMs: config.SML_REQUEST_TIMEOUT_MS, resetMs: config.SML_BREAKER_RESET_MS, noRespondersRetryMs: config.SML_NO_RESPONDERS_RETRY_MS });
  try {
    return await fn({ client, caller: { user: config.SML_ROOT_USER, root: true, requestId: randomUUID() } });
  } finally {
    client.close();
    await nc.close();
  }
}

/** The REST envelope of a bus reply, so that `--json` looks the same over the bus and over REST. */
export function busEnvelope<V>(status: sml.v1.IStatus | null | undefined, values: V): Envelope<V> {
  return { statusCode: status?.code ?? 200, statusString: status?.message ?? 'OK', values };
}

/** Whether a TCP connection to a NATS server URL (`nats://host:port`, `host:port`) succeeds. */
function accepts(server: string): Promise<boolean> {
  const text = server.includes('://') ? server : `nats://${server}`;
  if (!URL.canParse(text)) return Promise.resolve(false);
  const url = new URL(text);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port) || NATS_PORT;
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(PROBE_TIMEOUT_MS, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

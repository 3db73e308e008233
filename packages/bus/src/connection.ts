import { connect, Events, type NatsConnection } from 'nats';
import type { Logger } from '@sml/core';
import { setJetStreamReplicas } from './jetstream';
import { inboxPrefix } from './permissions';

export type { NatsConnection } from 'nats';

/**
 * Connects to NATS and keeps reconnecting forever: a service outlives server restarts
 * (JetStream state survives them) instead of crashing into its orchestrator's restart loop.
 */
export async function connectBus(opts: {
  url: string;
  name: string;
  log: Logger;
  timeoutMs?: number;
  /** The bus identity's NATS user and password (README "Bus security"); replies then arrive under `_INBOX.<user>`. */
  user?: string;
  pass?: string;
  /** Copies of every stream, KV bucket and object store this connection ensures (SML_JETSTREAM_REPLICAS; 1 by default). */
  jetStreamReplicas?: number;
}): Promise<NatsConnection> {
  const nc = await connect({
    servers: opts.url.split(','),
    name: opts.name,
    ...(opts.user ? { user: opts.user, pass: opts.pass, inboxPrefix: inboxPrefix(opts.user) } : {}),
    reconnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true,
    timeout: opts.timeoutMs ?? 10_000,
  });
  if (opts.jetStreamReplicas !== undefined) setJetStreamReplicas(nc, opts.jetStreamReplicas);
  opts.log.info({ server: nc.getServer(), user: opts.user ?? '(none)' }, 'connected to NATS');
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === Events.Disconnect || s.type === Events.Reconnect || s.type === Events.Error) opts.log.warn({ status: s.type, data: typeof s.data === 'string' ? s.data : JSON.stringify(s.data) }, 'NATS connection status');
    }
  })();
  return nc;
}

import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Events, connect, nkeyAuthenticator, type NatsConnection } from 'nats';
// nats.js' own reading of a server string, as @sml/sources reads nats_hosts.
import { hostPort } from 'nats/lib/nats-base-client/servers';
import { smlError, type Logger } from '@sml/core';
import { SourceError, checkedNatsServers } from '@sml/sources';
import type { BackboneSpec } from './keymap';

/**
 * Connections to federation backbones: one per distinct `nats_hosts` +
 * credentials, shared by every federation on it, separate from the internal bus (nothing of
 * which is exported or bridged). Addresses are checked as data-source addresses are
 * (@sml/sources `checkedNatsServers`, SML_SOURCES_ALLOW_PRIVATE), and a backbone that turns
 * out to be this instance's internal bus is refused whatever its address: before dialing, by
 * host and port against NATS_URL (the bus refuses a backbone's credentials anyway, which would
 * read as "unreachable"); once connected, by server id.
 */
export class Backbones {
  private readonly open = new Map<string, Promise<NatsConnection>>();

  constructor(private readonly deps: { bus: NatsConnection; busUrl: string; allowPrivate: boolean; log: Logger }) {}

  /**
   * The backbone's connection, with JetStream. 400 FED_INVALID_KEY for a refused address or
   * the internal bus; 503 FED_BACKBONE_UNREACHABLE when it cannot be reached within
   * `timeoutMs` or has no JetStream. A failed connection is not kept: the next call tries again.
   */
  async connection(spec: BackboneSpec, timeoutMs: number): Promise<NatsConnection> {
    const key = JSON.stringify([[...spec.servers].sort(), spec.user ?? '', spec.pass ?? '', spec.token ?? '', spec.nkeySeed ?? '']);
    let nc = this.open.get(key);
    if (nc === undefined) {
      nc = this.dial(spec, timeoutMs);
      this.open.set(key, nc);
      nc.catch(() => this.open.delete(key));
    }
    return nc;
  }

  private async dial(spec: BackboneSpec, timeoutMs: number): Promise<NatsConnection> {
    let servers: string[];
    try {
      servers = await checkedNatsServers({ allowPrivate: this.deps.allowPrivate }, spec.servers);
    } catch (e) {
      if (e instanceof SourceError) throw smlError('FED_INVALID_KEY', { key: 'nats_hosts', value: spec.servers.join(','), reason: e.message });
      throw e;
    }
    if (await isInternalBus(spec.servers, this.deps.busUrl)) throw internalBus(spec);
    let nc: NatsConnection;
    try {
      nc = await connect({
        servers, name: 'sml-federation', timeout: timeoutMs, ignoreClusterUpdates: true, maxReconnectAttempts: -1, reconnectTimeWait: 2000,
        ...(spec.user !== undefined ? { user: spec.user, pass: spec.pass ?? '' } : {}),
        ...(spec.token !== undefined ? { token: spec.token } : {}),
        ...(spec.nkeySeed !== undefined ? { authenticator: nkeyAuthenticator(new TextEncoder().encode(spec.nkeySeed)) } : {}),
      });
    } catch (e) {
      // nats.js' reasons (CONNECTION_REFUSED, TIMEOUT, Authorization Violation) name no secret.
      throw smlError('FED_BACKBONE_UNREACHABLE', { reason: (e as Error).message || String(e) });
    }
    if (nc.info?.server_id !== undefined && nc.info.server_id === this.deps.bus.info?.server_id) {
      await nc.close();
      throw internalBus(spec);
    }
    try {
      await (await nc.jetstreamManager({ timeout: timeoutMs })).getAccountInfo();
    } catch (e) {
      await nc.close();
      throw smlError('FED_BACKBONE_UNREACHABLE', { reason: `no JetStream (${(e as Error).message})` });
    }
    this.deps.log.info({ servers: spec.servers }, 'federation backbone connected');
    void this.watch(nc, spec.servers);
    return nc;
  }

  /** Backbone outages are logged, never block local work; nats.js reconnects by itself. */
  private async watch(nc: NatsConnection, servers: readonly string[]): Promise<void> {
    for await (const s of nc.status()) {
      if (s.type === Events.Disconnect || s.type === Events.Reconnect) this.deps.log.warn({ servers, event: s.type }, 'federation backbone');
    }
  }

  async close(): Promise<void> {
    const all = [...this.open.values()];
    this.open.clear();
    await Promise.all(all.map(async (p) => {
      try {
        await (await p).drain();
      } catch { /* not connected */ }
    }));
  }
}

function internalBus(spec: BackboneSpec): Error {
  return smlError('FED_INVALID_KEY', { key: 'nats_hosts', value: spec.servers.join(','), reason: 'this is the instance\'s internal bus, never a federation backbone' });
}

/** host:port → the addresses it resolves to and its port (undefined: not readable, left to connect to refuse). */
async function endpoint(server: string): Promise<{ addresses: string[]; port: number } | undefined> {
  try {
    const { hostname, port } = hostPort(server);
    const addresses = isIP(hostname) !== 0 ? [hostname] : (await lookup(hostname, { all: true })).map((a) => a.address);
    return { addresses, port };
  } catch {
    return undefined;
  }
}

const LOCAL = /^(127\.|::1$|0\.0\.0\.0$|::$)/;

/**
 * Whether a server of `servers` is the internal bus of `busUrl` (comma-separated): the same
 * port on an address they share, or both on this machine's loopback.
 */
export async function isInternalBus(servers: readonly string[], busUrl: string): Promise<boolean> {
  const bus = (await Promise.all(busUrl.split(',').map((s) => endpoint(s.trim())))).filter((e) => e !== undefined);
  for (const server of servers) {
    const e = await endpoint(server);
    if (e === undefined) continue;
    for (const b of bus) {
      if (b.port !== e.port) continue;
      if (e.addresses.some((a) => b.addresses.includes(a) || (LOCAL.test(a) && b.addresses.some((x) => LOCAL.test(x))))) return true;
    }
  }
  return false;
}

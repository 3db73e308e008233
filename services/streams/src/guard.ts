import { lookup } from 'node:dns/promises';
import { connect as netConnect, isIP } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { ISocketFactory } from 'kafkajs';
import { smlError } from '@sml/core';
import { bareHost, checkLiteral, guardedLookup, isPrivateAddress } from '@sml/sources';

/**
 * The SSRF guard of data sources (packages/sources/src/ssrf.ts) for the brokers a customer's
 * DSInfo names: unless SML_SOURCES_ALLOW_PRIVATE, no Kafka or NATS connection of this service
 * goes to a loopback, private or link-local address. Set once at start (service.ts).
 *
 * - Kafka: every socket kafkajs opens — the bootstrap servers and the brokers their metadata
 *   advertises — comes from `guardedSocketFactory`: an IP literal is checked, a name resolved by
 *   the guarded lookup, and the socket connects to the address that was checked.
 * - NATS: nats.js resolves and connects by itself, so the servers of `nats_hosts` are resolved
 *   and checked before connecting, and the servers a NATS cluster advertises are ignored
 *   (`ignoreClusterUpdates`). A DNS answer that changes between that check and nats.js' own
 *   resolution is not seen (README "Known gaps").
 */
const guard = { allowPrivate: false };

export function allowPrivateAddresses(allow: boolean): void {
  guard.allowPrivate = allow;
}

export function privateAllowed(): boolean {
  return guard.allowPrivate;
}

/** kafkajs' default socket factory, with the guard's lookup (and IP literals checked). */
export function guardedSocketFactory(): ISocketFactory {
  return ({ host, port, ssl, onConnect }) => {
    const what = `Kafka broker ${host}:${port}`;
    // Thrown here, kafkajs rejects the connection ("Failed to connect: …").
    checkLiteral(guard, what, host);
    const lookupFn = guardedLookup(guard, what);
    const socket = ssl
      ? tlsConnect({ host, port, lookup: lookupFn, ...(isIP(host) ? {} : { servername: host }), ...(typeof ssl === 'object' ? ssl : {}) }, onConnect)
      : netConnect({ host, port, lookup: lookupFn }, onConnect);
    socket.setKeepAlive(true, 60_000);
    return socket;
  };
}

/** The host of `host:port`, `[v6]:port`, or a URL (nats://host:port). */
export function hostOf(server: string): string {
  const s = server.trim();
  if (s.includes('://')) {
    try {
      return bareHost(new URL(s).hostname);
    } catch {
      return s;
    }
  }
  const v6 = /^\[([^\]]+)\]/.exec(s);
  if (v6) return v6[1];
  const colon = s.lastIndexOf(':');
  return colon > 0 && s.indexOf(':') === colon ? s.slice(0, colon) : s;
}

/**
 * Checks the servers a DSInfo names before connecting: 400 STREAM_INVALID naming the refused
 * address. A name that does not resolve is left to the client (whose failure is the 500
 * "cannot build the consumer").
 */
export async function checkServers(stream: string, what: string, servers: string[]): Promise<void> {
  if (guard.allowPrivate) return;
  for (const server of servers) {
    const host = hostOf(server);
    let addresses: string[];
    if (isIP(host) !== 0) addresses = [host];
    else {
      try {
        addresses = (await lookup(host, { all: true })).map((a) => a.address);
      } catch {
        continue;
      }
    }
    const refused = addresses.find((a) => isPrivateAddress(a));
    if (refused !== undefined) {
      throw smlError('STREAM_INVALID', { stream, detail: `${what} ${server}: address ${refused} is private/loopback/link-local; set SML_SOURCES_ALLOW_PRIVATE=true to allow` });
    }
  }
}

import { lookup } from 'node:dns/promises';
import { connect as netConnect, isIP } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { ISocketFactory } from 'kafkajs';
import { smlError } from '@sml/core';
import { SourceError, checkLiteral, checkedNatsServers, guardedLookup, isPrivateAddress, refusalText, shownServer } from '@sml/sources';

/**
 * The SSRF guard of data sources (packages/sources/src/ssrf.ts) for the brokers a customer's
 * DSInfo names: unless SML_SOURCES_ALLOW_PRIVATE, no Kafka or NATS connection of this service
 * goes to a loopback, private or link-local address. Set once at start (service.ts).
 *
 * - Kafka: every socket kafkajs opens — the bootstrap servers and the brokers their metadata
 *   advertises — comes from `guardedSocketFactory`: an IP literal is checked, a name resolved by
 *   the guarded lookup, and the socket connects to the address that was checked.
 * - NATS: nats.js parses, resolves and dials by itself, so `natsServers` reads each server of
 *   `nats_hosts` with nats.js' own parser, resolves it here once, checks every address, and
 *   nats.js is given only the checked IP literals (it neither resolves a literal nor, with
 *   `ignoreClusterUpdates`, dials the servers a cluster advertises): the address dialed is the
 *   address checked.
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

/**
 * Checks the Kafka brokers a DSInfo names before connecting: 400 STREAM_INVALID naming the
 * refused address, or the host that does not resolve. The host is read as kafkajs reads a
 * broker (`host:port` split at the first `:`); kafkajs' sockets resolve through the guarded
 * lookup all the same (guardedSocketFactory), which also covers the brokers a cluster advertises.
 */
export async function checkServers(stream: string, what: string, servers: string[]): Promise<void> {
  if (guard.allowPrivate) return;
  for (const server of servers) {
    // kafkajs: `broker.split(':')[0]`; an empty host is Node's `localhost`.
    const host = server.trim().split(':')[0] || 'localhost';
    let addresses: string[];
    if (isIP(host) !== 0) addresses = [host];
    else {
      try {
        addresses = (await lookup(host, { all: true })).map((a) => a.address);
      } catch {
        addresses = [];
      }
      if (addresses.length === 0) throw smlError('STREAM_INVALID', { stream, detail: `${what} ${shown(server)}: host ${shown(host)} does not resolve` });
    }
    const refused = addresses.find((a) => isPrivateAddress(a));
    if (refused !== undefined) {
      throw smlError('STREAM_INVALID', { stream, detail: refusalText(`${what} ${shown(server)}`, refused) });
    }
  }
}

/** A server string as messages echo it: the customer's own text, bounded. */
export const shown = shownServer;

/**
 * The servers nats.js is to dial for `nats_hosts` (@sml/sources `checkedNatsServers`: read
 * with nats.js' own parser, resolved once, every address checked, returned as the checked IP
 * literals); 400 STREAM_INVALID naming the server. With SML_SOURCES_ALLOW_PRIVATE the servers
 * are returned as given.
 */
export async function natsServers(stream: string, servers: string[]): Promise<string[]> {
  try {
    return await checkedNatsServers(guard, servers);
  } catch (e) {
    if (e instanceof SourceError) throw smlError('STREAM_INVALID', { stream, detail: e.message });
    throw e;
  }
}

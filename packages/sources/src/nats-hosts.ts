import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
// nats.js' own reading of a server string (what its connect does with `servers`).
import { hostPort } from 'nats/lib/nats-base-client/servers';
import { isPrivateAddress, refusalText } from './ssrf';
import { SourceError, type SourceContext } from './types';

/** A server string as messages echo it: the customer's own text, bounded. */
export function shownServer(server: string): string {
  return server.length > 200 ? `${server.slice(0, 200)}…` : server;
}

/**
 * The servers nats.js is to dial for a customer's `nats_hosts` (a NATS stream's brokers, a
 * federation's backbone): each server read with nats.js' own parser (`hostPort`: the scheme
 * stripped up to the last `://`, then a WHATWG URL, which decodes %-escapes and reads
 * 2130706433, 0x7f.1 or 127.0.0.1. as 127.0.0.1), its host resolved here once (getaddrinfo,
 * as a socket would: /etc/hosts, `localhost`), every address checked, and the checked
 * addresses returned as IP literals `a.b.c.d:port` / `[v6]:port`: nats.js neither resolves a
 * literal nor, with `ignoreClusterUpdates`, dials the servers a cluster advertises, so the
 * address dialed is the address checked. SourceError('invalid') for a server nats.js cannot
 * read or a host that does not resolve, ('denied') for a refused address (named); every
 * message starts `nats_hosts <server>:`. With `ctx.allowPrivate` the servers are returned as given.
 */
export async function natsServers(ctx: Pick<SourceContext, 'allowPrivate'>, servers: readonly string[]): Promise<string[]> {
  if (ctx.allowPrivate) return [...servers];
  const bad = (server: string, detail: string) => new SourceError('invalid', `nats_hosts ${shownServer(server)}: ${detail}`);
  const dialed = new Set<string>();
  for (const server of servers) {
    let hostname: string;
    let port: number;
    try {
      ({ hostname, port } = hostPort(server));
    } catch {
      throw bad(server, 'not a NATS server URL (nats://host:port)');
    }
    let addresses: string[];
    if (isIP(hostname) !== 0) addresses = [hostname];
    else {
      try {
        addresses = (await lookup(hostname, { all: true })).map((a) => a.address);
      } catch {
        addresses = [];
      }
      // nats.js would dial a name it cannot resolve as it is (the system's resolver then decides): refused instead.
      if (addresses.length === 0) throw bad(server, `host ${shownServer(hostname)} does not resolve`);
    }
    const refused = addresses.find((a) => isPrivateAddress(a));
    if (refused !== undefined) throw new SourceError('denied', refusalText(`nats_hosts ${shownServer(server)}`, refused));
    for (const a of addresses) dialed.add(isIP(a) === 6 ? `[${a}]:${port}` : `${a}:${port}`);
  }
  return [...dialed];
}

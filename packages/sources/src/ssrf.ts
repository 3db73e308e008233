/**
 * The guard against server-side request forgery: a customer's DSInfo must not make this
 * service connect to its own host or network (cloud metadata at 169.254.169.254, services on
 * 127.0.0.1, the cluster's private addresses). Unless SML_SOURCES_ALLOW_PRIVATE
 * (`ctx.allowPrivate`), every address a host name resolves to is checked, and the socket
 * connects to the answer that was checked: `guardedLookup` is the socket's own `lookup`, so a
 * DNS answer that changes between check and connect (rebinding) is never used unchecked.
 * Node does not call `lookup` for an IP literal: callers check those with `checkAddress`.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { SourceError, type SourceContext } from './types';

/** ipaddr.js range names of addresses that reach this host or its networks, never the Internet. */
const REFUSED_RANGES = new Set(['unspecified', 'broadcast', 'loopback', 'private', 'linkLocal', 'carrierGradeNat', 'uniqueLocal']);

/** IPv6 prefixes that carry an IPv4 address in their last 32 bits (NAT64, SIIT): judged by that address. */
const IPV4_EMBEDDING = [ipaddr.IPv6.parseCIDR('64:ff9b::/96'), ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96')];

/**
 * Whether a connection to `address` would stay on this host or its private networks:
 * 127/8, 10/8, 172.16/12, 192.168/16, 169.254/16, 100.64/10, 0/8, ::1, ::, fe80::/10,
 * fc00::/7, and the IPv4-mapped (::ffff:a.b.c.d) and NAT64 forms of the IPv4 ones. Anything
 * that does not parse as an address is refused too.
 */
export function isPrivateAddress(address: string): boolean {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // process: an IPv4-mapped IPv6 address becomes its IPv4 address.
    ip = ipaddr.process(address);
  } catch {
    return true;
  }
  if (ip instanceof ipaddr.IPv6 && IPV4_EMBEDDING.some((cidr) => ip.match(cidr))) {
    ip = ipaddr.fromByteArray(ip.toByteArray().slice(12));
  }
  return REFUSED_RANGES.has(ip.range());
}

function refusal(what: string, address: string): SourceError {
  return new SourceError('denied', `${what}: address ${address} is private/loopback/link-local; set SML_SOURCES_ALLOW_PRIVATE=true to allow`);
}

type Guard = Pick<SourceContext, 'allowPrivate'>;

/** Throws SourceError('denied') for a private address unless `ctx.allowPrivate`. */
export function checkAddress(ctx: Guard, what: string, address: string): void {
  if (!ctx.allowPrivate && isPrivateAddress(address)) throw refusal(what, address);
}

/** `host` of a URL without the brackets of an IPv6 literal. */
export function bareHost(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '');
}

/** Checks a host that is an IP literal (for which Node skips `lookup`); a name is left to `guardedLookup`. */
export function checkLiteral(ctx: Guard, what: string, host: string): void {
  const bare = bareHost(host);
  if (isIP(bare) !== 0) checkAddress(ctx, what, bare);
}

/**
 * A `lookup` for node:net / node:http / node:tls sockets: resolves as node:dns does, every
 * address at once, refuses the host when any of them is private (unless `ctx.allowPrivate`,
 * read at each lookup), and answers the socket with the addresses it checked.
 */
export function guardedLookup(ctx: Guard, what: string): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '');
      const refused = ctx.allowPrivate ? undefined : addresses.find((a) => isPrivateAddress(a.address));
      if (refused !== undefined) return callback(refusal(what, refused.address), '');
      if (options.all === true) return callback(null, addresses);
      const [first] = addresses;
      if (first === undefined) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '');
      callback(null, first.address, first.family);
    });
  };
}

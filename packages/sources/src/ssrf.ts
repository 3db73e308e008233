/**
 * The guard against server-side request forgery: a customer's DSInfo must not make this
 * service connect to its own host or network (cloud metadata at 169.254.169.254, services on
 * 127.0.0.1 or on this machine's other addresses, the cluster's private addresses). Unless
 * SML_SOURCES_ALLOW_PRIVATE (`ctx.allowPrivate`), only public unicast addresses are connected
 * to: every address a host name resolves to is checked, and the socket connects to the answer
 * that was checked: `guardedLookup` is the socket's own `lookup`, so a DNS answer that changes
 * between check and connect (rebinding) is never used unchecked. Node does not call `lookup`
 * for an IP literal: callers check those with `checkAddress`.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';
import { SourceError, type SourceContext } from './types';

/** How ipaddr.js range names read in a message. */
const RANGE_WORDS: Record<string, string> = {
  linkLocal: 'link-local', carrierGradeNat: 'shared (100.64/10)', uniqueLocal: 'unique-local', rfc6145: 'IPv4-translated',
  rfc6052: 'NAT64 (local use)', teredo: 'Teredo', deprecatedSiteLocal: 'site-local', ipv4Mapped: 'IPv4-mapped',
};

const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/** The IPv4 address an IPv6 address carries and is routed by (mapped, NAT64 64:ff9b::/96, 6to4 2002::/16), if any. */
function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const bytes = ip.toByteArray();
  if (ip.isIPv4MappedAddress() || ip.match(NAT64_WELL_KNOWN)) return ipaddr.fromByteArray(bytes.slice(12)) as ipaddr.IPv4;
  if (ip.range() === '6to4') return ipaddr.fromByteArray(bytes.slice(2, 6)) as ipaddr.IPv4;
  return undefined;
}

/** Every address of this machine's own interfaces (loopback or not), normalized; read at each check (interfaces come and go). */
function ownAddresses(): Set<string> {
  const own = new Set<string>();
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      try {
        own.add(ipaddr.parse(a.address.replace(/%.*$/, '')).toNormalizedString());
      } catch {
        // An address ipaddr.js does not read is not one a checked address can equal.
      }
    }
  }
  return own;
}

/**
 * Why a connection to `address` is refused, or undefined for a public unicast address. Refused:
 * every range ipaddr.js does not call `unicast` (loopback, private, link-local, shared
 * 100.64/10, unspecified, broadcast, multicast, and its `reserved` ones: 192.0.0/24,
 * 192.0.2/24, 198.18/15, 198.51.100/24, 203.0.113/24, 240/4 …; for IPv6 unique-local,
 * documentation, Teredo, NAT64 local use …), IPv4-compatible IPv6 (::a.b.c.d), the
 * IPv4-mapped, NAT64 (64:ff9b::/96) and 6to4 (2002::/16) forms of a refused IPv4 address,
 * every address of this machine's own interfaces, and anything that does not parse.
 */
export function refusedAddress(address: string): string | undefined {
  // Only what a socket takes as an address (no zone); IPv6 in its canonical hex form first:
  // ipaddr.js reads ::a.b.c.d as IPv4-mapped, where it is IPv4-compatible (::0a0b:0c0d).
  const bare = address.replace(/%.*$/, '');
  const family = isIP(bare);
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(family === 6 ? new URL(`http://[${bare}]`).hostname.slice(1, -1) : bare);
  } catch {
    return 'not an IP address';
  }
  if (family === 0) return 'not an IP address';
  let judged = ip;
  if (ip instanceof ipaddr.IPv6) {
    const v4 = embeddedIPv4(ip);
    if (v4 !== undefined) judged = v4;
    else if (ip.match(IPV4_COMPATIBLE) && ip.range() === 'unicast') return 'IPv4-compatible';
  }
  const range = judged.range();
  const embedded = judged === ip ? '' : ` (${judged.toString()})`;
  if (range !== 'unicast') return `${RANGE_WORDS[range] ?? range}${embedded}`;
  const own = ownAddresses();
  if (own.has(ip.toNormalizedString()) || own.has(judged.toNormalizedString())) return `this host's own${embedded}`;
  return undefined;
}

/** Whether a connection to `address` is refused by default (`refusedAddress`): it is not a public unicast address, or it is this host's. */
export function isPrivateAddress(address: string): boolean {
  return refusedAddress(address) !== undefined;
}

function refusal(what: string, address: string): SourceError {
  return new SourceError('denied', refusalText(what, address));
}

/** `<what>: address <a> is <why>, not a public address; …`: the one wording of a refusal (data sources and streams). */
export function refusalText(what: string, address: string): string {
  return `${what}: address ${address} is ${refusedAddress(address) ?? 'refused'}, not a public address; set SML_SOURCES_ALLOW_PRIVATE=true to allow`;
}

type Guard = Pick<SourceContext, 'allowPrivate'>;

/** Throws SourceError('denied') for a refused address (`refusedAddress`) unless `ctx.allowPrivate`. */
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
 * address at once, refuses the host when any of them is refused (unless `ctx.allowPrivate`,
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

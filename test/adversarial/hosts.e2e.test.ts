import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import fc from 'fast-check';
import { encryptDsInfo, SmlClient } from '@sml/sdk';
import { startSystem, type RunningSystem } from '@sml/testkit';

/**
 * The adversarial suite, DSInfo hosts (issue 29): generated spellings of this host's own
 * addresses — IPv4 in decimal, octal and hex, in one to four parts, with a trailing dot;
 * %-escapes; nested schemes; IPv6 literals, IPv4-mapped, IPv4-compatible, NAT64 and 6to4 forms;
 * names that resolve to loopback (`localhost`, the names of /etc/hosts) and `*.localhost` —
 * put in every address a DSInfo carries (NATS `nats_hosts`, Kafka `bootstrap.servers`, an http
 * `path`, an `s3endpoint`, a redshift `rsurl`) and sent to every route that connects (stream
 * browse, preview and create; data-source preview and browse), with SML_SOURCES_ALLOW_PRIVATE
 * off. Every generated host points at a listener of this test's own (on every address of the
 * host, loopback and not, IPv4 and IPv6) that counts what it accepts. Whatever is sent:
 * - 0 connections at the listener;
 * - no answer is a 5xx, except the contract's own (`Generic Exception [...]`);
 * - no process exits.
 * Seeded (FC_SEED, FC_RUNS) like every property test here, so a failure replays.
 */
const SEED = Number(process.env.FC_SEED ?? 20261129);
const RUNS = Number(process.env.FC_RUNS ?? 200);

/** A 5xx the contract itself answers with (as test/adversarial/adversarial.e2e.test.ts). */
const CONTRACT_5XX = [/^Generic Exception \[/, /^Job was cancelled$/, /^Job queue of service \[\w+\] is full/];

const interfaces = Object.values(networkInterfaces()).flatMap((list) => list ?? []);
/** This host's IPv4 addresses, loopback first; its IPv6 ones without a zone (link-local ones need one in a URL). */
const OWN_V4 = ['127.0.0.1', ...interfaces.filter((a) => a.family === 'IPv4' && a.address !== '127.0.0.1').map((a) => a.address)];
const OWN_V6 = interfaces.filter((a) => a.family === 'IPv6' && !a.address.toLowerCase().startsWith('fe80')).map((a) => a.address);

/** Names that resolve to this host: `localhost` and every name of /etc/hosts (which all point at it here or at nothing reachable). */
const HOSTS_NAMES = readFileSync('/etc/hosts', 'utf8').split('\n').map((l) => l.replace(/#.*/, '').trim().split(/\s+/))
  .filter((f) => f.length > 1 && /^(127\.|::1$)/.test(f[0])).flatMap((f) => f.slice(1));

const v4Bytes = (ip: string) => ip.split('.').map(Number);

/** An IPv4 address as inet_aton reads it: 1 to 4 parts (the last one holding the remaining bytes), each in base 8, 10 or 16. */
function spellV4(ip: string, parts: number, bases: number[], upper: boolean, trailingDot: boolean): string {
  const b = v4Bytes(ip);
  const values = [...b.slice(0, parts - 1), b.slice(parts - 1).reduce((n, x) => n * 256 + x, 0)];
  const spelled = values.map((v, i) => {
    const base = bases[i % bases.length];
    if (base === 16) return `${upper ? '0X' : '0x'}${upper ? v.toString(16).toUpperCase() : v.toString(16)}`;
    if (base === 8) return `0${v.toString(8)}`;
    return String(v);
  });
  return spelled.join('.') + (trailingDot ? '.' : '');
}

const v4Host = fc.record({
  ip: fc.constantFrom(...OWN_V4, '0.0.0.0'),
  parts: fc.integer({ min: 1, max: 4 }),
  bases: fc.array(fc.constantFrom(8, 10, 16), { minLength: 1, maxLength: 4 }),
  upper: fc.boolean(),
  trailingDot: fc.boolean(),
}).map(({ ip, parts, bases, upper, trailingDot }) => spellV4(ip, parts, bases, upper, trailingDot));

const hex = (ip: string) => v4Bytes(ip).reduce((s, x, i) => s + x.toString(16).padStart(2, '0') + (i === 1 ? ':' : ''), '').replace(/(^|:)0+(?=[0-9a-f])/g, '$1');
/** IPv6 forms that reach (or embed) one of this host's addresses. */
const v6Host = fc.oneof(
  fc.constantFrom('::1', '0:0:0:0:0:0:0:1', '0::1', '::', '::0', ...OWN_V6),
  fc.constantFrom(...OWN_V4).chain((ip) => fc.constantFrom(`::ffff:${ip}`, `::ffff:${hex(ip)}`, `64:ff9b::${ip}`, `64:ff9b::${hex(ip)}`, `::${ip}`, `::${hex(ip)}`,
    `2002:${hex(ip)}::`, `2002:${hex(ip)}::1`, `0:0:0:0:0:ffff:${ip}`, `::FFFF:${ip}`)),
).map((h) => `[${h}]`);

const nameHost = fc.oneof(
  fc.constantFrom('localhost', 'LOCALHOST', 'LocalHost', 'localhost.', ...HOSTS_NAMES, ...HOSTS_NAMES.map((n) => `${n}.`)),
  fc.tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/), fc.constantFrom('localhost', 'localhost.', 'LOCALHOST')).map(([label, tld]) => `${label}.${tld}`),
);

/** A host with some of its characters %-escaped (what a URL parser decodes back). */
const escaped = (host: fc.Arbitrary<string>) => fc.tuple(host, fc.array(fc.boolean(), { minLength: 64, maxLength: 64 }), fc.boolean()).map(([h, mask, upper]) =>
  [...h].map((c, i) => (mask[i % mask.length] && c !== '[' && c !== ']' ? `%${c.charCodeAt(0).toString(16).padStart(2, '0')}` : c)).map((s) => (upper ? s.toUpperCase() : s)).join(''));

const host = fc.oneof(
  { arbitrary: v4Host, weight: 4 },
  { arbitrary: v6Host, weight: 3 },
  { arbitrary: nameHost, weight: 3 },
  { arbitrary: escaped(fc.oneof(v4Host, nameHost)), weight: 2 },
);

/** Prefixes nats.js strips (everything up to the last `://`) and other wrappers of a NATS server. */
const natsPrefix = fc.constantFrom('', 'nats://', 'tls://', 'ws://', 'NATS://', 'nats://x.invalid/y://', 'nats://a.invalid/b://c.invalid/d://', 'http://1.1.1.1/?://');

type Sent = { path: string; ds: unknown; what: string };

function dsFor(port: number): fc.Arbitrary<Sent> {
  return fc.oneof(
    fc.tuple(host, natsPrefix, fc.constantFrom('/streams/browse', '/streams/preview', '/projects/p/streams/create'), fc.boolean()).map(([h, prefix, path, second]) => {
      const server = `${prefix}${h}:${port}`;
      // Sometimes after a server that is refused too (a list is checked whole before connecting).
      const hosts = second ? `nats://[::1]:${port},${server}` : server;
      return { path, what: `nats ${hosts}`, ds: { type: 'nats', name: 's', info: { nats_hosts: hosts, 'nats.subject': 'x', format: 'csv', attributeNames: 'a' } } };
    }),
    fc.tuple(host, fc.constantFrom('/streams/browse', '/streams/preview', '/projects/p/streams/create')).map(([h, path]) => {
      const broker = `${h}:${port}`;
      return { path, what: `kafka ${broker}`, ds: { type: 'kafka', name: 'k', info: { 'bootstrap.servers': broker, 'kafka.topic': 't', format: 'csv', attributeNames: 'a' } } };
    }),
    fc.tuple(host, fc.constantFrom('http', 'https', 'HTTP'), fc.constantFrom('/x.csv', '/metrics', '')).map(([h, scheme, file]) => {
      const url = `${scheme}://${h}:${port}${file}`;
      return { path: '/dss/sample/preview', what: `http ${url}`, ds: { type: 'http', name: 'h', info: { path: url } } };
    }),
    fc.tuple(host, fc.constantFrom('/dss/sample/preview', '/projects/dsbrowse')).map(([h, path]) => {
      const endpoint = `http://${h}:${port}`;
      return { path, what: `s3 ${endpoint}`, ds: { type: 's3', name: 'o', info: { s3endpoint: endpoint, s3bucket: 'b', s3accessKey: 'k', s3secretKey: 's', path: 'x.csv' } } };
    }),
    fc.tuple(host, fc.constantFrom('postgres', 'postgresql', 'redshift', 'jdbc:redshift', 'jdbc:postgresql')).map(([h, scheme]) => {
      const rsurl = `${scheme}://${h}:${port}/db`;
      return { path: '/dss/sample/preview', what: `redshift ${rsurl}`, ds: { type: 'redshift', name: 'r', info: { rsurl, rsuser: 'u', rspasswd: 'p', path: 't' } } };
    }),
  );
}

/** A listener on every address of this host (dual-stack `::`, else 0.0.0.0), counting the connections it accepts. */
async function countingListener(): Promise<{ port: number; accepted: string[]; close: () => Promise<void> }> {
  const accepted: string[] = [];
  const sockets = new Set<Socket>();
  const listen = async (address: string): Promise<Server> => {
    const server = createServer((socket) => {
      accepted.push(`${socket.localAddress ?? '?'} ← ${socket.remoteAddress ?? '?'}`);
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
      socket.destroy();
    });
    server.listen({ port: 0, host: address, ipv6Only: false });
    await Promise.race([once(server, 'listening'), once(server, 'error').then(([e]) => Promise.reject(e as Error))]);
    return server;
  };
  const server = await listen('::').catch(() => listen('0.0.0.0'));
  return {
    port: (server.address() as AddressInfo).port, accepted,
    close: async () => {
      for (const s of sockets) s.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

describe('adversarial DSInfo hosts against a running system (SML_SOURCES_ALLOW_PRIVATE=false)', () => {
  let sys: RunningSystem;
  let alice: SmlClient;
  let secret: string;
  let listener: Awaited<ReturnType<typeof countingListener>>;

  beforeAll(async () => {
    listener = await countingListener();
    sys = await startSystem({ services: ['users', 'jobs', 'projects', 'streams'], env: { SML_SOURCES_ALLOW_PRIVATE: 'false', KAFKAJS_NO_PARTITIONER_WARNING: '1' } });
    const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
    secret = String(((await root.addUser('alice')).body.values as { secretKey: string }).secretKey);
    alice = new SmlClient({ url: sys.url, user: 'alice', secret });
    expect((await alice.createProject('p')).status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    if (process.env.SHOW_LOGS) for (const s of ['users', 'projects', 'streams']) console.log(s, sys.logs(s));
    await listener?.close();
    await sys?.stop();
  });

  it('the listener is reachable at every own address the generators aim at (else counting 0 proves nothing)', async () => {
    const reach = (address: string) => new Promise<boolean>((resolve) => {
      const s = connect({ port: listener.port, host: address }, () => { s.destroy(); resolve(true); });
      s.on('error', () => resolve(false));
    });
    const before = listener.accepted.length;
    for (const address of [...OWN_V4, '::1']) expect({ address, reached: await reach(address) }).toEqual({ address, reached: true });
    // Let the listener see them, then start from zero.
    await new Promise((r) => setTimeout(r, 100));
    expect(listener.accepted.length).toBeGreaterThan(before);
    listener.accepted.length = 0;
  });

  it(`${RUNS} generated hosts: 0 connections to this host, no 5xx outside the contract, no process exit`, async () => {
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    const contract5xx = new Set<string>();
    await fc.assert(
      fc.asyncProperty(dsFor(listener.port), async ({ path, ds, what }) => {
        const before = listener.accepted.length;
        const r = await alice.request('POST', path, { raw: encryptDsInfo(ds, secret) }).catch((e: unknown) => ({ status: 0, body: { statusString: String(e) } }));
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        const { statusString: said } = r.body as { statusString?: unknown };
        const statusString = typeof said === 'string' ? said : '';
        if (r.status >= 500 && CONTRACT_5XX.some((re) => re.test(statusString))) contract5xx.add(statusString.replace(/\d+/g, 'N').slice(0, 160));
        else if (r.status === 0 || r.status >= 500) failures.push(`${r.status} ${statusString} ← ${path} ${what}`);
        if (listener.accepted.length > before) failures.push(`connection accepted (${listener.accepted.slice(before).join(', ')}) ← ${path} ${what}`);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    // A connection still under way when its request answered shows up now.
    await new Promise((r) => setTimeout(r, 200));
    expect(failures).toEqual([]);
    expect(listener.accepted).toEqual([]);
    expect(sys.unexpectedExits()).toEqual([]);
    expect((await fetch(`${sys.url}/readyz`)).status).toBe(200);
    console.log(`adversarial hosts: ${RUNS} requests, statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}, connections accepted: ${listener.accepted.length}; the contract's 5xx seen: ${JSON.stringify([...contract5xx])}`);
  }, 600_000);
});

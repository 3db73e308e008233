// Reference: the address ranges of RFC 1918 (private), 1122 (loopback, 0/8), 3927 and 4291
// (link-local), 6598 (shared 100.64/10), 4193 (unique local), 4291 §2.5.5.2 (IPv4-mapped),
// 6052 (NAT64), 3056 (6to4), 5737 and 2544 (documentation, benchmarking), 1112 (240/4); real
// node:http servers on loopback ports and on this host's own addresses (os.networkInterfaces);
// real DNS resolution of `localhost`.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { freePort } from '@sml/testkit';
import { httpSource } from '../src/http';
import { postgresSource } from '../src/postgres';
import { browseS3, s3Source } from '../src/s3';
import { guardedLookup, isPrivateAddress, refusedAddress } from '../src/ssrf';
import { SourceError, type ByteSource, type RowSource, type Source, type SourceContext } from '../src/types';

const context = (allowPrivate: boolean): SourceContext => ({ user: 'alice', filesRoot: '/nonexistent', timeoutMs: 2_000, allowPrivate });
const CSV = 'a,b\n1,2\n';
const S3_KEYS = { s3bucket: 'data', s3accessKey: 'AKIA', s3secretKey: 'not-a-secret', path: 'rows.csv' };
const PG_KEYS = { rsuser: 'reader', rspasswd: 'not-a-secret', path: 'measures' };

async function failure(promise: Promise<unknown>): Promise<SourceError> {
  const error: unknown = await promise.then(() => undefined, (e: unknown) => e);
  if (!(error instanceof SourceError)) throw new Error(`expected a SourceError, got ${String(error)}`);
  return error;
}

async function readAll(from: ByteSource): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of from.open()) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

function bytes(source: Source): ByteSource {
  if (source.kind !== 'bytes') throw new Error('expected a byte source');
  return source;
}

function rows(source: Source): RowSource {
  if (source.kind !== 'rows') throw new Error('expected a row source');
  return source;
}

const denied = (what: string, address: string, why: string) => ({
  reason: 'denied',
  message: `${what}: address ${address} is ${why}, not a public address; set SML_SOURCES_ALLOW_PRIVATE=true to allow`,
});

/** This host's own addresses other than loopback (the first IPv4 one first), as os.networkInterfaces() lists them. */
const OWN = Object.values(networkInterfaces()).flatMap((list) => list ?? []).filter((a) => !a.internal).sort((a, b) => Number(b.family === 'IPv4') - Number(a.family === 'IPv4'));

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1', '127.255.0.9', '10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.255', '192.168.1.1',
    '169.254.169.254', '100.64.0.1', '100.127.255.254', '0.0.0.0', '0.1.2.3', '255.255.255.255',
    '::1', '::', 'fe80::1', 'febf::1', 'fc00::1', 'fd12:3456::1',
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:169.254.169.254', '::ffff:10.0.0.1', '64:ff9b::a9fe:a9fe', '64:ff9b::127.0.0.1',
    'not an address',
    // ipaddr.js' `reserved`, multicast and the other ranges that are not public unicast.
    '192.0.2.2', '192.0.0.9', '198.18.0.1', '198.19.255.255', '198.51.100.7', '203.0.113.9', '240.0.0.1', '255.255.255.254', '224.0.0.1', '192.88.99.1',
    '2001:db8::1', 'ff02::1', '2001::1', '100::1', 'fec0::1', '64:ff9b:1::7f00:1', '::ffff:0:7f00:1', 'fe80::1%eth0',
    // IPv4 forms embedded in IPv6 are judged by the IPv4 address: mapped, NAT64, 6to4; IPv4-compatible never.
    '::ffff:192.0.2.2', '64:ff9b::7f00:1', '64:ff9b::c000:202', '2002:7f00:1::', '2002:a00:1::1', '2002:c000:202::', '::7f00:1', '::8.8.8.8',
  ])('refuses %s', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    ['127.0.0.1', 'loopback'], ['10.1.2.3', 'private'], ['169.254.169.254', 'link-local'], ['100.64.0.1', 'shared (100.64/10)'], ['192.0.2.2', 'reserved'],
    ['240.0.0.1', 'reserved'], ['fd00::1', 'unique-local'], ['64:ff9b::7f00:1', 'loopback (127.0.0.1)'], ['2002:a00:1::', 'private (10.0.0.1)'], ['::7f00:1', 'IPv4-compatible'],
  ])('names why %s is refused', (address, why) => {
    expect(refusedAddress(address)).toBe(why);
  });

  it("refuses every address of this host's own interfaces", () => {
    const all = Object.values(networkInterfaces()).flatMap((list) => list ?? []);
    expect(all.length).toBeGreaterThan(0);
    for (const a of all) expect({ address: a.address, refused: isPrivateAddress(a.address) }).toEqual({ address: a.address, refused: true });
  });

  it.each([
    '8.8.8.8', '1.1.1.1', '172.15.255.255', '172.32.0.1', '192.169.0.1', '100.63.255.255', '100.128.0.1', '169.255.0.1', '11.0.0.1',
    '2606:4700:4700::1111', '2a00:1450:4001::200e', '2001:4860:4860::8888', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1',
    '192.0.3.1', '198.17.255.255', '198.20.0.1', '223.255.255.255',
  ])('allows %s', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });
});

describe('guardedLookup', () => {
  const lookup = (allowPrivate: boolean, all: boolean) => new Promise<unknown>((resolve, reject) => {
    guardedLookup({ allowPrivate }, 'test')('localhost', { all }, (error, address, family) => (error ? reject(error) : resolve(all ? address : [address, family])));
  });

  it('refuses a name that resolves to loopback, and answers the checked address when allowed', async () => {
    expect(await failure(lookup(false, false))).toMatchObject({ reason: 'denied', message: expect.stringMatching(/^test: address (127\.0\.0\.1|::1) is loopback/) });
    expect(await failure(lookup(false, true))).toMatchObject({ reason: 'denied' });
    expect(await lookup(true, false)).toEqual([expect.stringMatching(/^(127\.0\.0\.1|::1)$/), expect.any(Number)]);
    expect(await lookup(true, true)).toEqual(expect.arrayContaining([expect.objectContaining({ address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/) })]));
  });
});

describe('http sources', () => {
  let server: Server;
  let port: number;
  let other: Server;
  let otherPort: number;
  /** The context of the request in flight: the first server turns allowPrivate off as it redirects. */
  let current: SourceContext;

  beforeAll(async () => {
    other = createServer((_req, res) => res.writeHead(200).end(CSV));
    server = createServer((req, res) => {
      if (req.url === '/away') {
        current.allowPrivate = false;
        res.writeHead(302, { location: `http://127.0.0.1:${otherPort}/data.csv` }).end();
      } else if (req.url === '/away-allowed') {
        res.writeHead(302, { location: `http://127.0.0.1:${otherPort}/data.csv` }).end();
      } else if (req.url === '/metadata') {
        current.allowPrivate = false;
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      } else {
        res.writeHead(200, { 'content-length': Buffer.byteLength(CSV) }).end(req.method === 'HEAD' ? undefined : CSV);
      }
    });
    for (const s of [server, other]) s.listen(0, '127.0.0.1');
    await Promise.all([once(server, 'listening'), once(other, 'listening')]);
    port = (server.address() as AddressInfo).port;
    otherPort = (other.address() as AddressInfo).port;
  });

  afterAll(async () => {
    for (const s of [server, other]) {
      s.closeAllConnections();
      s.close();
    }
    await Promise.all([once(server, 'close'), once(other, 'close')]);
  });

  it('refuses loopback, private and link-local URLs by default, before connecting', async () => {
    const ctx = context(false);
    expect(await failure(readAll(bytes(httpSource({ path: `http://127.0.0.1:${port}/data.csv` }, ctx))))).toMatchObject(denied(`http://127.0.0.1:${port}/data.csv`, '127.0.0.1', 'loopback'));
    expect(await failure(bytes(httpSource({ path: `http://127.0.0.1:${port}/data.csv` }, ctx)).size())).toMatchObject({ reason: 'denied' });
    expect(await failure(readAll(bytes(httpSource({ path: 'http://169.254.169.254/latest/meta-data/' }, ctx))))).toMatchObject(denied('http://169.254.169.254/latest/meta-data/', '169.254.169.254', 'link-local'));
    expect(await failure(readAll(bytes(httpSource({ path: 'http://[::ffff:127.0.0.1]:1/x.csv' }, ctx))))).toMatchObject({ reason: 'denied', message: expect.stringContaining('address ::ffff:7f00:1 is loopback (127.0.0.1), not a public address') });
    expect(await failure(readAll(bytes(httpSource({ path: 'https://10.0.0.1/x.csv' }, ctx))))).toMatchObject(denied('https://10.0.0.1/x.csv', '10.0.0.1', 'private'));
    // The WHATWG URL parser reads 2130706433 as 127.0.0.1 already.
    expect(await failure(readAll(bytes(httpSource({ path: `http://2130706433:${port}/data.csv` }, ctx))))).toMatchObject({ reason: 'denied' });
  });

  it('refuses a host name that resolves to loopback (localhost)', async () => {
    const error = await failure(readAll(bytes(httpSource({ path: `http://localhost:${port}/data.csv` }, context(false)))));
    expect(error).toMatchObject({ reason: 'denied', message: expect.stringMatching(new RegExp(`^http://localhost:${port}/data\\.csv: address (127\\.0\\.0\\.1|::1) is loopback, not a public address; set SML_SOURCES_ALLOW_PRIVATE=true to allow$`)) });
  });

  it('reads them with allowPrivate', async () => {
    expect(await readAll(bytes(httpSource({ path: `http://127.0.0.1:${port}/data.csv` }, context(true))))).toBe(CSV);
    expect(await bytes(httpSource({ path: `http://localhost:${port}/data.csv` }, context(true))).size()).toBe(Buffer.byteLength(CSV));
  });

  it('checks every redirect hop: a redirect to a private address is refused', async () => {
    current = context(true);
    expect(await failure(readAll(bytes(httpSource({ path: `http://127.0.0.1:${port}/away` }, current))))).toMatchObject(
      denied(`http://127.0.0.1:${port}/away (redirected to http://127.0.0.1:${otherPort}/data.csv)`, '127.0.0.1', 'loopback'),
    );
    current = context(true);
    expect(await failure(readAll(bytes(httpSource({ path: `http://127.0.0.1:${port}/metadata` }, current))))).toMatchObject({ reason: 'denied', message: expect.stringContaining('(redirected to http://169.254.169.254/latest/meta-data/): address 169.254.169.254') });
    // Allowed throughout, the same redirect is followed.
    expect(await readAll(bytes(httpSource({ path: `http://127.0.0.1:${port}/away-allowed` }, context(true))))).toBe(CSV);
  });
});

describe("this host's own addresses and reserved ranges", () => {
  let server: Server;
  let port: number;
  let accepted = 0;
  const own = OWN.find((a) => a.family === 'IPv4');

  beforeAll(async () => {
    server = createServer((_req, res) => res.writeHead(200).end(CSV));
    server.on('connection', () => accepted++);
    // Every IPv4 address of this host: what a source aimed at the host's own address would reach.
    server.listen(0, '0.0.0.0');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });

  (own ? it : it.skip)(`refuses http, s3 and redshift sources to this host's own non-loopback address (${own?.address ?? 'none'}), without connecting`, async () => {
    const ip = own!.address;
    const ctx = context(false);
    accepted = 0;
    const why = refusedAddress(ip);
    expect(why).toBeDefined();
    expect(await failure(readAll(bytes(httpSource({ path: `http://${ip}:${port}/metrics` }, ctx))))).toMatchObject(denied(`http://${ip}:${port}/metrics`, ip, why!));
    expect(await failure(bytes(httpSource({ path: `http://[::ffff:${ip}]:${port}/metrics` }, ctx)).size())).toMatchObject({ reason: 'denied' });
    expect(await failure(readAll(bytes(s3Source({ ...S3_KEYS, s3endpoint: `http://${ip}:${port}` }, ctx))))).toMatchObject(denied(`s3 endpoint ${ip}`, ip, why!));
    expect(await failure(rows(postgresSource({ ...PG_KEYS, rsurl: `postgres://${ip}:${port}/db` }, ctx)).columns())).toMatchObject(denied(`redshift ${ip}:${port}/db`, ip, why!));
    expect(accepted).toBe(0);
    // The listener is reachable there: allowed, the same URL is read.
    expect(await readAll(bytes(httpSource({ path: `http://${ip}:${port}/metrics` }, context(true))))).toBe(CSV);
    expect(accepted).toBe(1);
  });

  it.each(['192.0.2.1', '198.18.0.1', '198.19.3.4', '240.0.0.1', '203.0.113.5'])('refuses the reserved address %s before connecting', async (ip) => {
    const ctx = context(false);
    expect(await failure(readAll(bytes(httpSource({ path: `http://${ip}:${port}/x.csv` }, ctx))))).toMatchObject(denied(`http://${ip}:${port}/x.csv`, ip, 'reserved'));
    expect(await failure(bytes(s3Source({ ...S3_KEYS, s3endpoint: `http://${ip}:${port}` }, ctx)).size())).toMatchObject(denied(`s3 endpoint ${ip}`, ip, 'reserved'));
    expect(await failure(rows(postgresSource({ ...PG_KEYS, rsurl: `redshift://${ip}:${port}/dev` }, ctx)).columns())).toMatchObject(denied(`redshift ${ip}:${port}/dev`, ip, 'reserved'));
  });
});

describe('s3 sources', () => {
  it('refuse a loopback or private s3endpoint by default (read, size, browse)', async () => {
    const port = await freePort();
    const ctx = context(false);
    const info = { ...S3_KEYS, s3endpoint: `http://127.0.0.1:${port}` };
    expect(await failure(readAll(bytes(s3Source(info, ctx))))).toMatchObject(denied('s3 endpoint 127.0.0.1', '127.0.0.1', 'loopback'));
    expect(await failure(bytes(s3Source(info, ctx)).size())).toMatchObject({ reason: 'denied' });
    expect(await failure(browseS3(info, ctx, ''))).toMatchObject({ reason: 'denied' });
    expect(await failure(readAll(bytes(s3Source({ ...S3_KEYS, s3endpoint: 'http://[fd00::1]:9000' }, ctx))))).toMatchObject(denied('s3 endpoint [fd00::1]', 'fd00::1', 'unique-local'));
  });

  it('refuse an s3endpoint host name that resolves to loopback, at connect', async () => {
    const port = await freePort();
    const error = await failure(readAll(bytes(s3Source({ ...S3_KEYS, s3endpoint: `http://localhost:${port}` }, context(false)))));
    expect(error).toMatchObject({ reason: 'denied', message: expect.stringMatching(/^s3 endpoint localhost: address (127\.0\.0\.1|::1) is loopback/) });
  });

  it('connect with allowPrivate (nothing listens: unreachable, not denied)', async () => {
    const port = await freePort();
    for (const host of ['127.0.0.1', 'localhost']) {
      const error = await failure(bytes(s3Source({ ...S3_KEYS, s3endpoint: `http://${host}:${port}` }, context(true))).size());
      expect(error.reason).toBe('unreachable');
    }
  });
});

describe('redshift sources', () => {
  it('refuse a loopback, private or link-local host by default, resolved names included', async () => {
    const port = await freePort();
    const ctx = context(false);
    expect(await failure(rows(postgresSource({ ...PG_KEYS, rsurl: `postgres://127.0.0.1:${port}/db` }, ctx)).columns())).toMatchObject(denied(`redshift 127.0.0.1:${port}/db`, '127.0.0.1', 'loopback'));
    expect(await failure(rows(postgresSource({ ...PG_KEYS, rsurl: 'jdbc:redshift://169.254.169.254:5439/dev' }, ctx)).size())).toMatchObject(denied('redshift 169.254.169.254:5439/dev', '169.254.169.254', 'link-local'));
    expect(await failure(rows(postgresSource({ ...PG_KEYS, rsurl: 'postgres://[::1]:5432/db' }, ctx)).columns())).toMatchObject(denied('redshift [::1]:5432/db', '::1', 'loopback'));
    // A postgres:// URL keeps 2130706433 as a name; resolving it answers 127.0.0.1.
    expect(await failure(rows(postgresSource({ ...PG_KEYS, rsurl: `postgres://2130706433:${port}/db` }, ctx)).columns())).toMatchObject(denied(`redshift 2130706433:${port}/db`, '127.0.0.1', 'loopback'));
    const named = await failure((async () => {
      for await (const batch of rows(postgresSource({ ...PG_KEYS, rsurl: `postgres://localhost:${port}/db` }, ctx)).open(10)) void batch;
    })());
    expect(named).toMatchObject({ reason: 'denied', message: expect.stringMatching(new RegExp(`^redshift localhost:${port}/db: address (127\\.0\\.0\\.1|::1) is loopback`)) });
  });

  it('connect with allowPrivate (nothing listens: unreachable, not denied)', async () => {
    const port = await freePort();
    for (const host of ['127.0.0.1', 'localhost']) {
      const error = await failure(rows(postgresSource({ ...PG_KEYS, rsurl: `postgres://${host}:${port}/db` }, context(true))).columns());
      expect(error).toMatchObject({ reason: 'unreachable', message: expect.stringContaining('ECONNREFUSED') });
    }
  });
});

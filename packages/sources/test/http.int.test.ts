// Reference: a real node:http server on a free loopback port.
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, RssAfterWarmUp } from '@sml/testkit';
import { httpSource } from '../src/http';
import { SourceError, type ByteSource, type SourceContext } from '../src/types';

const ctx: SourceContext = { user: 'alice', filesRoot: '/nonexistent', timeoutMs: 2_000, allowPrivate: true };
const CSV = 'a,b\n1,2\n3,4\n';
const BIG = 50 * 1024 * 1024;
const WARM_UP = 10 * 1024 * 1024;
const LINE = `${'1234567.891,'.repeat(20)}0\n`;
const AUTH = `Basic ${Buffer.from('bob:s3cret pass').toString('base64')}`;

let server: Server;
let base: string;
/** A second origin, for redirects away. */
let other: Server;
let otherBase: string;
const hanging = new Set<ServerResponse>();

/** Until the response drains or closes, leaving no listener behind (each once() also listens for 'error'). */
async function drainedOrClosed(res: ServerResponse): Promise<void> {
  const stop = new AbortController();
  const wait = (event: string) => once(res, event, { signal: stop.signal }).catch(() => undefined);
  await Promise.race([wait('drain'), wait('close')]);
  stop.abort();
}

async function writeBig(res: ServerResponse): Promise<void> {
  res.writeHead(200, { 'content-length': BIG });
  const block = Buffer.from(LINE.repeat(1000));
  let left = BIG;
  while (left > 0 && !res.destroyed) {
    const part = left >= block.length ? block : block.subarray(0, left);
    left -= part.length;
    if (!res.write(part)) await drainedOrClosed(res);
  }
  res.end();
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', base);
  const redirect = /^\/redirect\/(\d+)$/.exec(url.pathname);
  if (redirect) {
    const n = Number(redirect[1]);
    res.writeHead(302, { location: n > 1 ? `/redirect/${n - 1}` : '/data.csv' }).end();
    return;
  }
  switch (url.pathname) {
    case '/data.csv':
      res.writeHead(200, { 'content-type': 'text/csv', 'content-length': Buffer.byteLength(CSV) }).end(req.method === 'HEAD' ? undefined : CSV);
      return;
    case '/big.csv':
      if (req.method === 'HEAD') res.writeHead(200, { 'content-length': BIG }).end();
      else void writeBig(res);
      return;
    case '/private.csv':
      if (req.headers.authorization === AUTH) res.writeHead(200).end(CSV);
      else res.writeHead(401, { 'www-authenticate': 'Basic' }).end();
      return;
    case '/forbidden.csv':
      res.writeHead(403).end();
      return;
    case '/broken.csv':
      res.writeHead(500).end();
      return;
    case '/no-head.csv':
      if (req.method === 'HEAD') res.writeHead(405).end();
      else res.writeHead(200).end(CSV);
      return;
    case '/echo-auth':
      res.writeHead(200).end(req.headers.authorization ?? 'none');
      return;
    case '/away':
      res.writeHead(302, { location: `${otherBase}/echo-auth` }).end();
      return;
    case '/to-file':
      res.writeHead(302, { location: 'file:///etc/passwd' }).end();
      return;
    case '/silent':
      hanging.add(res);
      return;
    case '/stalls.csv':
      res.writeHead(200, { 'content-length': 1000 });
      res.write('a,b\n');
      hanging.add(res);
      return;
    case '/trickle.csv':
      res.writeHead(200);
      void (async () => {
        for (const part of ['a,b\n', '1,2\n', '3,4\n']) {
          res.write(part);
          await sleep(20);
        }
        res.end();
      })();
      return;
    default:
      res.writeHead(404).end();
  }
}

async function listen(on: Server): Promise<string> {
  on.listen(0, '127.0.0.1');
  await once(on, 'listening');
  const address = on.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
}

beforeAll(async () => {
  server = createServer(handle);
  other = createServer(handle);
  [base, otherBase] = await Promise.all([listen(server), listen(other)]);
});

afterAll(async () => {
  for (const res of hanging) res.destroy();
  for (const s of [server, other]) {
    s.closeAllConnections();
    s.close();
  }
  await Promise.all([once(server, 'close'), once(other, 'close')]);
});

function source(path: string, context: SourceContext = ctx): ByteSource {
  const made = httpSource({ path }, context);
  if (made.kind !== 'bytes') throw new Error('an http source reads bytes');
  return made;
}

async function readAll(from: ByteSource): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of from.open()) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

async function failure(promise: Promise<unknown>): Promise<SourceError> {
  const error: unknown = await promise.then(() => undefined, (e: unknown) => e);
  if (!(error instanceof SourceError)) throw new Error(`expected a SourceError, got ${String(error)}`);
  return error;
}

function invalid(path: string): unknown {
  try {
    httpSource({ path }, ctx);
  } catch (error) {
    return error instanceof SourceError ? error.reason : error;
  }
  return 'accepted';
}

describe('http source', () => {
  it('reads a file and its Content-Length, named without query or credentials', async () => {
    const file = source(`${base}/data.csv?token=abc`);
    expect(file.describe()).toBe(`${base}/data.csv`);
    expect(await file.size()).toBe(Buffer.byteLength(CSV));
    expect(await readAll(file)).toBe(CSV);
  });

  it('streams a 50 MB file while the reader\'s memory grows far less than the file', async () => {
    const big = source(`${base}/big.csv`);
    expect(await big.size()).toBe(BIG);
    const rss = new RssAfterWarmUp(WARM_UP);
    let lines = 0;
    for await (const chunk of big.open()) {
      rss.read(chunk.byteLength);
      for (const byte of chunk) if (byte === 10) lines++;
    }
    expect(rss.total).toBe(BIG);
    expect(lines).toBe(Math.floor(BIG / LINE.length));
    // A reader that kept its chunks would grow by the whole read after the warm-up (40 MB); one
    // that streams grows by buffers only, but the server writing in this process adds its own
    // socket buffers, which on a loaded machine reached 12 MB: half the read is the bound.
    expect(rss.growth).toBeLessThan((BIG - WARM_UP) / 2);
  });

  it('404 is not-found, 401 and 403 are denied, 500 is unreachable', async () => {
    expect((await failure(source(`${base}/missing.csv`).size())).reason).toBe('not-found');
    expect((await failure(readAll(source(`${base}/missing.csv`)))).reason).toBe('not-found');
    expect((await failure(readAll(source(`${base}/private.csv`)))).reason).toBe('denied');
    expect((await failure(readAll(source(`${base}/forbidden.csv`)))).reason).toBe('denied');
    const broken = await failure(readAll(source(`${base}/broken.csv`)));
    expect(broken.reason).toBe('unreachable');
    expect(broken.message).toBe(`${base}/broken.csv: the server answered HTTP 500`);
  });

  it('credentials in the URL are sent as Basic authorization, never to another origin, and never shown', async () => {
    const url = new URL(`${base}/private.csv`);
    url.username = 'bob';
    url.password = 's3cret pass';
    const file = source(url.href);
    expect(file.describe()).toBe(`${base}/private.csv`);
    expect(await readAll(file)).toBe(CSV);
    url.pathname = '/echo-auth';
    expect(await readAll(source(url.href))).toBe(AUTH);
    url.pathname = '/away';
    expect(await readAll(source(url.href))).toBe('none');
    url.pathname = '/private.csv';
    url.password = 'wrong';
    const denied = await failure(readAll(source(url.href)));
    expect(denied.reason).toBe('denied');
    expect(denied.message).not.toMatch(/bob|wrong/);
  });

  it('follows up to 5 redirects, not 6, and never to another scheme', async () => {
    expect(await readAll(source(`${base}/redirect/5`))).toBe(CSV);
    expect(await source(`${base}/redirect/5`).size()).toBe(Buffer.byteLength(CSV));
    expect((await failure(readAll(source(`${base}/redirect/6`)))).message).toMatch(/more than 5 redirects/);
    expect((await failure(readAll(source(`${base}/to-file`)))).reason).toBe('invalid');
  });

  it('refuses URLs that are not http or https', () => {
    expect(invalid('file:///etc/passwd')).toBe('invalid');
    expect(invalid('ftp://127.0.0.1/data.csv')).toBe('invalid');
    expect(invalid('data:text/csv,a%0A1')).toBe('invalid');
    expect(invalid('data.csv')).toBe('invalid');
    expect(invalid('')).toBe('invalid');
    expect(invalid('https://example.com/data.csv')).toBe('accepted');
  });

  it('a server that does not answer HEAD still serves the file, size unknown', async () => {
    const file = source(`${base}/no-head.csv`);
    expect(await file.size()).toBeUndefined();
    expect(await readAll(file)).toBe(CSV);
  });

  it('a silent server, before or during the body, is unreachable after the timeout; a slow consumer is not', async () => {
    const quick: SourceContext = { ...ctx, timeoutMs: 200 };
    const started = Date.now();
    const silent = await failure(readAll(source(`${base}/silent`, quick)));
    expect(silent.reason).toBe('unreachable');
    expect(silent.message).toMatch(/no answer within 200 ms/);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect((await failure(readAll(source(`${base}/stalls.csv`, quick)))).reason).toBe('unreachable');

    const chunks: string[] = [];
    for await (const chunk of source(`${base}/trickle.csv`, quick).open()) {
      chunks.push(Buffer.from(chunk).toString('utf8'));
      await sleep(300);
    }
    expect(chunks.join('')).toBe(CSV);
  });

  it('a port nobody listens on is unreachable', async () => {
    const port = await freePort();
    const error = await failure(readAll(source(`http://127.0.0.1:${port}/data.csv`)));
    expect(error.reason).toBe('unreachable');
    expect(error.message).toMatch(/ECONNREFUSED/);
  });

  it('aborting the context signal stops a read in progress with the abort reason', async () => {
    const controller = new AbortController();
    const big = source(`${base}/big.csv`, { ...ctx, signal: controller.signal });
    const reason = new Error('job cancelled');
    let read = 0;
    const reading = (async () => {
      for await (const chunk of big.open()) {
        read += chunk.byteLength;
        if (read > 1024 * 1024) controller.abort(reason);
      }
    })();
    await expect(reading).rejects.toBe(reason);
    expect(read).toBeLessThan(10 * 1024 * 1024);
  });

  it('speaks https and verifies the certificate: a self-signed one is unreachable, named', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sml-https-'));
    const tls = createTlsServer((_req, res) => { res.end(CSV); });
    try {
      const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
        '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { encoding: 'utf8' });
      expect(made.status).toBe(0);
      tls.setSecureContext({ key: await readFile(join(dir, 'key.pem')), cert: await readFile(join(dir, 'cert.pem')) });
      tls.listen(0, '127.0.0.1');
      await once(tls, 'listening');
      const address = tls.address();
      if (address === null || typeof address === 'string') throw new Error('no port');
      const error = await failure(readAll(source(`https://127.0.0.1:${address.port}/data.csv`)));
      expect(error.reason).toBe('unreachable');
      expect(error.message).toBe(`https://127.0.0.1:${address.port}/data.csv: server unreachable (DEPTH_ZERO_SELF_SIGNED_CERT)`);
    } finally {
      tls.closeAllConnections();
      tls.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

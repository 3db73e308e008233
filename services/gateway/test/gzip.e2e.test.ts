import { readdirSync, readFileSync } from 'node:fs';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { SmlClient } from '@sml/sdk';
import { startSystem, type RunningSystem } from '@sml/testkit';

// Compressed request bodies against the real gateway (issue 9, item 10): the signature covers
// the bytes as sent, nothing is inflated before the request is authenticated, and inflating
// stops at min(SML_BODY_LIMIT, SML_MAX_INFLATE_RATIO × bytes sent).
const RATIO = 20;
const MiB = 1024 * 1024;

/** Peak resident memory (VmHWM) of the gateway process listening on `port`, in bytes. */
function gatewayPeakRss(port: string): number {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmdline.includes('gateway/dist/main.js')) continue;
      if (!readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`SML_PORT=${port}`)) continue;
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (hwm) return Number(hwm[1]) * 1024;
    } catch {
      // a process that went away meanwhile
    }
  }
  throw new Error(`no gateway process on port ${port}`);
}

/** ~1 MiB of gzip that inflates to 1 GiB: 16 concatenated members of 64 MiB of zeros each. */
function gzipBomb(): Buffer {
  const member = gzipSync(Buffer.alloc(64 * MiB), { level: 9 });
  return Buffer.concat(Array.from({ length: 16 }, () => member));
}

describe('compressed request bodies', () => {
  let sys: RunningSystem;
  let alice: SmlClient;
  let secret: string;
  let port: string;

  beforeAll(async () => {
    // SML_BODY_LIMIT stays at its default (256 MiB): the size before this fix let 8 bombs take 2 GB.
    sys = await startSystem({ services: ['users', 'jobs', 'projects'], env: { SML_MAX_INFLATE_RATIO: String(RATIO) } });
    port = new URL(sys.url).port;
    const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
    const r = await root.addUser('alice');
    secret = String((r.body.values as { secretKey: string }).secretKey);
    alice = new SmlClient({ url: sys.url, user: 'alice', secret });
    expect((await alice.createProject('z')).status).toBe(201);
  });
  afterAll(() => sys?.stop());

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const)('a %s body signed as sent is authenticated, inflated and learned', async (encoding, compress) => {
    const frame = { attributeNames: ['x', 'y'], attributeTypes: ['C', 'C'], data: Array.from({ length: 200 }, (_, i) => [String(i), String(i % 7)]), errorHandling: 0 };
    const sent = compress(Buffer.from(JSON.stringify(frame)));
    const r = await alice.request('POST', '/projects/z/learn', { raw: sent, headers: { 'content-encoding': encoding, 'content-type': 'application/json' } });
    expect(r.body).toEqual({ statusCode: 200, statusString: 'OK', values: {} });
  });

  it('a compressed body that is not valid for its encoding → 400 naming it; an unknown encoding → 415', async () => {
    const bad = await alice.request('POST', '/projects/z/learn', { raw: Buffer.from('not gzip at all'), headers: { 'content-encoding': 'gzip' } });
    expect(bad.status).toBe(400);
    expect(bad.body.statusString).toMatch(/^Request body is not valid gzip data: /);
    const odd = await alice.request('POST', '/projects/z/learn', { raw: Buffer.from('{}'), headers: { 'content-encoding': 'compress' } });
    expect(odd.status).toBe(415);
    expect(odd.body.statusString).toBe('Unsupported Content-Encoding [compress]: send the body as is, or as gzip, deflate or br');
  });

  it('8 concurrent unauthenticated gzip bombs are refused (401) without being inflated', async () => {
    const bomb = gzipBomb();
    const mallory = new SmlClient({ url: sys.url, user: 'alice', secret: 'VLmAm+WkpnA5zp2wXiSYkw==' });
    const before = gatewayPeakRss(port);
    const answers = await Promise.all(Array.from({ length: 8 }, () =>
      mallory.request('POST', '/projects/z/learn', { raw: bomb, headers: { 'content-encoding': 'gzip' } })));
    for (const r of answers) expect({ status: r.status, message: r.body.statusString }).toEqual({ status: 401, message: 'Invalid Signature' });
    // The 8 MiB of bombs as sent, and no more: inflated, each would hold up to the 256 MiB limit.
    expect(gatewayPeakRss(port) - before).toBeLessThan(100 * MiB);
  });

  it('8 concurrent authenticated gzip bombs → 413 naming the ratio; memory stays within 8 × ratio × size', async () => {
    const bomb = gzipBomb();
    const before = gatewayPeakRss(port);
    const answers = await Promise.all(Array.from({ length: 8 }, () =>
      alice.request('POST', '/projects/z/learn', { raw: bomb, headers: { 'content-encoding': 'gzip' } })));
    for (const r of answers) {
      expect({ status: r.status, message: r.body.statusString })
        .toEqual({ status: 413, message: `Compressed request body inflates to more than ${RATIO} times its ${bomb.length} bytes (Content-Encoding gzip)` });
    }
    // Each inflates at most RATIO × ~1 MiB = ~20 MiB before it is refused: 8 × 20 MiB ≈ 160 MiB
    // at worst, against 8 × 256 MiB (the body limit) before.
    expect(gatewayPeakRss(port) - before).toBeLessThan(400 * MiB);
    // The gateway is still there and serves the next request.
    expect((await alice.projectInfo('z')).status).toBe(200);
  });
});

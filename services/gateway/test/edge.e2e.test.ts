import { readFileSync } from 'node:fs';
import net from 'node:net';
import { formatSymDate } from '@sml/core';
import { SmlClient } from '@sml/sdk';
import { startSystem, type RunningSystem } from '@sml/testkit';
import { wsMessage, type WsSigner } from './ws-client';
import { RawWs, frameHeader } from './ws-raw';

// What reaches the gateway before anyone is known (issue 29, items 3, 7 and 11), against the
// real processes and over raw sockets: every answer is the JSON envelope, a body or a
// WebSocket message is bounded and reserved from its headers before it is read, and what is
// refused is never buffered.
const MiB = 1024 * 1024;

function rssMb(pid: number): number {
  let status = '';
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return 0; // the process is gone: unexpectedExits() says so
  }
  const m = /VmRSS:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) / 1024 : 0;
}

/** An HTTP answer read off a raw socket: status, headers, body, and whether the server closed the connection. */
interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  closed: boolean;
  ms: number;
}

/**
 * Sends `request` on a new connection and reads until the server closes it, or the answer is
 * complete (its Content-Length) and the server kept the connection 1 s more, or `timeoutMs`
 * passes. The socket keeps reading what comes (a reset ends it too).
 */
function rawHttp(url: string, request: Buffer | string, timeoutMs = 10_000): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  const t0 = Date.now();
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    let received = Buffer.alloc(0);
    let closed = false;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      const text = received.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = (end < 0 ? text : text.slice(0, end)).split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1] ?? 0), headers, body: end < 0 ? '' : received.subarray(end + 4).toString('utf8'), closed, ms: Date.now() - t0 });
    };
    let timer = setTimeout(finish, timeoutMs);
    socket.on('data', (d: Buffer) => {
      received = Buffer.concat([received, d]);
      const end = received.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(received.subarray(0, Math.max(0, end)).toString('latin1'))?.[1];
      if (end >= 0 && length !== undefined && received.length >= end + 4 + Number(length)) {
        clearTimeout(timer);
        timer = setTimeout(finish, 1_000);
      }
    });
    socket.on('end', () => {
      closed = true;
      finish();
    });
    socket.on('close', () => {
      closed = true;
      finish();
    });
    socket.on('error', () => undefined);
    socket.write(request);
  });
}

describe('the gateway edge', () => {
  let sys: RunningSystem;
  let alice: WsSigner & { sdk: SmlClient };
  const wsPath = '/symetry/ws/learn';
  const batch = (rows: number, from = 0) => JSON.stringify({
    attributeNames: ['x', 'y'], attributeTypes: ['C', 'C'],
    data: Array.from({ length: rows }, (_, i) => [String((from + i) % 13), String((from + i) % 7)]),
  });
  const inFlight = async () => Number(/^sml_request_body_bytes_in_flight (\d+)$/m.exec(await (await fetch(`${sys.url}/metrics`)).text())?.[1]);

  beforeAll(async () => {
    // The default body limit (256 MiB), and a body budget of 600 MiB: room for two 200 MiB messages, not three.
    sys = await startSystem({ services: ['users', 'jobs', 'projects'], env: { SML_MAX_BODY_BYTES_IN_FLIGHT: String(600 * MiB) } });
    const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
    const r = await root.addUser('alice');
    const secret = String((r.body.values as { secretKey: string }).secretKey);
    alice = { user: 'alice', secret, sdk: new SmlClient({ url: sys.url, user: 'alice', secret }) };
    expect((await alice.sdk.createProject('p')).status).toBe(201);
  });
  afterAll(() => sys?.stop());

  describe('every answer is the envelope (item 11)', () => {
    const get = (target: string, extra = '') => `GET ${target} HTTP/1.1\r\nHost: localhost\r\n${extra}\r\n`;
    const jobs = '/symetry/rest/alice/jobs';
    it.each([
      ['a 60 KB query', get(`${jobs}?q=${'a'.repeat(60_000)}`), 431, 'Request line and header fields larger than the limit of 16384 bytes (SML_MAX_HEADER_BYTES)'],
      ['a 1 MB query', get(`${jobs}?q=${'a'.repeat(1_000_000)}`), 431, 'Request line and header fields larger than the limit of 16384 bytes (SML_MAX_HEADER_BYTES)'],
      ['10 000 query parameters', get(`${jobs}?${Array.from({ length: 10_000 }, (_, i) => `p${i}=1`).join('&')}`), 431, expect.stringContaining('SML_MAX_HEADER_BYTES')],
      ['a 100 KB header', get(jobs, `X-Pad: ${'a'.repeat(100_000)}\r\n`), 431, expect.stringContaining('SML_MAX_HEADER_BYTES')],
      // Refused by the gateway itself, not the parser: a request without body keeps its connection.
      ['a 10 KB request target', get(`${jobs}?q=${'a'.repeat(10_000)}`), 414, 'Request target of 10027 bytes, longer than the limit of 8192 (SML_MAX_URL_BYTES)', false],
      ['300 query parameters', get(`${jobs}?${Array.from({ length: 300 }, (_, i) => `p${i}=1`).join('&')}`), 400, 'Query string with 300 parameters, more than the limit of 256 (SML_MAX_QUERY_PARAMETERS)', false],
      ['Transfer-Encoding with Content-Length', `POST /symetry/rest/alice/projects HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n`, 400, expect.stringMatching(/^Malformed HTTP request: .*Content-Length/)],
      ['a request that is not HTTP', 'HELLO\r\n\r\n', 400, expect.stringMatching(/^Malformed HTTP request: /)],
      ['a bad chunk size', `POST /symetry/rest/alice/projects HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`, 400, expect.stringMatching(/^Malformed HTTP request: /)],
    ])('%s → its envelope', async (_what, request, status, message, closes = true) => {
      const r = await rawHttp(sys.url, request);
      expect({ status: r.status, closed: r.closed, type: r.headers['content-type'] }).toEqual({ status, closed: closes, type: expect.stringContaining('application/json') });
      expect(JSON.parse(r.body)).toEqual({ statusCode: status, statusString: message, values: {} });
    });

    it('an HTTP client sending a 1 MB query or a 100 KB header reads the 431 envelope (no reset)', async () => {
      const long = await fetch(`${sys.url}${jobs}?q=${'b'.repeat(1_000_000)}`);
      expect(long.status).toBe(431);
      expect(await long.json()).toMatchObject({ statusCode: 431 });
      const header = await fetch(`${sys.url}${jobs}`, { headers: { 'x-pad': 'c'.repeat(100_000) } });
      expect(header.status).toBe(431);
      expect(await header.json()).toMatchObject({ statusCode: 431 });
    });
  });

  describe('a body declared over SML_BODY_LIMIT is answered from the headers (item 7)', () => {
    const post = (headers: Record<string, string>) => `POST /symetry/rest/alice/projects?pid=q HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n`
      + `Content-Length: ${8 * 1024 * MiB}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n${'x'.repeat(1000)}`;
    const signedLike = (user: string) => ({ 'Customer-ID': user, 'Sym-date': formatSymDate(new Date(), 1), 'Content-MD5': '', Authorization: 'A'.repeat(43) + '=' });
    it.each([
      ['no credentials', {}, 400, 'Authentication header is null'],
      ['an unknown customer', signedLike('nobody'), 401, 'Invalid User'],
      ["another customer's path", signedLike('root'), 401, 'Customer-ID header [root] does not match the user in the path [alice]'],
      ['a known customer', signedLike('alice'), 413, `Request body larger than the limit of ${256 * MiB} bytes`],
    ])('8 GiB with %s → answered at once, the connection closed', async (_what, headers, status, message) => {
      const r = await rawHttp(sys.url, post(headers), 10_000);
      expect({ status: r.status, closed: r.closed, prompt: r.ms < 5_000 }).toEqual({ status, closed: true, prompt: true });
      expect(r.headers.connection).toBe('close');
      expect(JSON.parse(r.body)).toEqual({ statusCode: status, statusString: message, values: {} });
    });
  });

  it('8 GiB to a path that is no route → 404 at once, the connection closed (its body is not read either)', async () => {
    const r = await rawHttp(sys.url, `POST /livez HTTP/1.1\r\nHost: localhost\r\nContent-Length: ${8 * 1024 * MiB}\r\n\r\n${'x'.repeat(1000)}`, 10_000);
    expect({ status: r.status, closed: r.closed, prompt: r.ms < 5_000 }).toEqual({ status: 404, closed: true, prompt: true });
    expect(JSON.parse(r.body)).toEqual({ statusCode: 404, statusString: 'No route for POST /livez', values: {} });
  });

  describe('WebSocket messages are bounded and reserved from their frame headers (item 3)', () => {
    it('five unauthenticated 220 MiB frames: each connection closed at its header (1009), the gateway does not grow', async () => {
      const pid = sys.pids().users;
      const before = rssMb(pid);
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 20);
      const chunk = Buffer.alloc(MiB, 0x61);
      const sent: number[] = [];
      let codes: Array<{ code: number; reason: string }>;
      try {
        codes = await Promise.all(Array.from({ length: 5 }, async (_, i) => {
          const ws = await RawWs.open(sys.url, wsPath);
          const size = 220 * MiB;
          ws.write(frameHeader(0x1, size));
          let bytes = 0;
          while (bytes < size && (await ws.writeAndDrain(chunk))) bytes += chunk.length;
          sent[i] = bytes;
          const closed = await ws.whenClosed(5_000).catch(() => ({ code: 0, reason: 'still open' }));
          ws.destroy();
          return closed;
        }));
      } finally {
        clearInterval(sampler);
      }
      peak = Math.max(peak, rssMb(pid));
      console.log(`5 × 220 MiB unauthenticated frames: gateway RSS ${Math.round(before)} → peak ${Math.round(peak)} MB; MiB written before the close: ${sent.map((b) => Math.round(b / MiB)).join(', ')}`);
      expect({ growthMb: Math.round(peak - before), under: peak - before < 100 }).toEqual({ growthMb: expect.any(Number), under: true });
      for (const c of codes) expect(c).toEqual({ code: 1009, reason: `message over ${16 * MiB} bytes before the connection authenticated (SML_WS_UNAUTHENTICATED_MAX_BYTES)` });
      expect(await inFlight()).toBe(0);
    }, 120_000);

    it('once a message authenticated, larger messages are read; a pipelined one waits for that authentication', async () => {
      const ws = await RawWs.open(sys.url, wsPath);
      ws.sendText(wsMessage(alice, 'learn', batch(5), ['p']));
      // 200 KB without header, sent before the first is answered: it speaks as the first.
      const big = batch(20_000, 5);
      expect(big.length).toBeGreaterThan(64 * 1024);
      ws.sendText(big);
      expect(JSON.parse((await ws.nextText())!)).toEqual({ statusCode: 200, statusString: 'OK', values: {} });
      expect(JSON.parse((await ws.nextText())!)).toEqual({ statusCode: 200, statusString: 'OK', values: {} });
      ws.sendText(wsMessage(alice, 'learn', batch(20_000, 1), ['p']));
      expect(JSON.parse((await ws.nextText())!)).toMatchObject({ statusCode: 200 });
      ws.destroy();
    });

    it('a signed message with an empty body authenticates the connection (its answer is the route\'s 400)', async () => {
      const ws = await RawWs.open(sys.url, wsPath);
      ws.sendText(wsMessage(alice, 'learn', '', ['p']));
      expect(JSON.parse((await ws.nextText())!)).toMatchObject({ statusCode: 400 });
      ws.sendText(batch(20_000, 7));
      expect(JSON.parse((await ws.nextText())!)).toEqual({ statusCode: 200, statusString: 'OK', values: {} });
      ws.destroy();
    });

    it('a signed first message carrying its batch (as sym-rest-rc sends a whole file) is read and learned', async () => {
      const ws = await RawWs.open(sys.url, wsPath);
      const first = batch(20_000, 11);
      expect(first.length).toBeGreaterThan(64 * 1024);
      ws.sendText(wsMessage(alice, 'learn', first, ['p']));
      expect(JSON.parse((await ws.nextText())!)).toEqual({ statusCode: 200, statusString: 'OK', values: {} });
      ws.destroy();
    });

    it('a first message over SML_WS_UNAUTHENTICATED_MAX_BYTES (16 MiB), however well signed, is closed 1009 unread', async () => {
      const ws = await RawWs.open(sys.url, wsPath);
      ws.write(frameHeader(0x1, 16 * MiB + 1));
      expect(await ws.whenClosed()).toEqual({ code: 1009, reason: `message over ${16 * MiB} bytes before the connection authenticated (SML_WS_UNAUTHENTICATED_MAX_BYTES)` });
      ws.destroy();
    });

    it('anonymous messages over 64 KiB share SML_WS_UNAUTHENTICATED_BYTES_IN_FLIGHT (64 MiB): the fifth 16 MiB one is closed 1013 unread, a short signed one still gets in', async () => {
      const held = await Promise.all(Array.from({ length: 4 }, async () => {
        const ws = await RawWs.open(sys.url, wsPath);
        ws.write(frameHeader(0x1, 16 * MiB));
        return ws;
      }));
      for (let t = Date.now(); (await inFlight()) !== 64 * MiB && Date.now() - t < 10_000;) await new Promise((r) => setTimeout(r, 20));
      expect(await inFlight()).toBe(64 * MiB);
      const fifth = await RawWs.open(sys.url, wsPath);
      fifth.write(frameHeader(0x1, 1 * MiB));
      expect(await fifth.whenClosed()).toEqual({ code: 1013, reason: `unauthenticated messages fill SML_WS_UNAUTHENTICATED_BYTES_IN_FLIGHT (${64 * MiB}); retry later` });
      fifth.destroy();
      // A client that opens with a short signed message is not held behind the pool.
      const short = await RawWs.open(sys.url, wsPath);
      short.sendText(wsMessage(alice, 'learn', batch(5, 20), ['p']));
      expect(JSON.parse((await short.nextText())!)).toEqual({ statusCode: 200, statusString: 'OK', values: {} });
      short.sendText(batch(20_000, 30));
      expect(JSON.parse((await short.nextText())!)).toEqual({ statusCode: 200, statusString: 'OK', values: {} });
      short.destroy();
      for (const ws of held) ws.destroy();
      for (let t = Date.now(); (await inFlight()) !== 0 && Date.now() - t < 10_000;) await new Promise((r) => setTimeout(r, 20));
      expect(await inFlight()).toBe(0);
      // The pool is free again: a large signed first message is read.
      const again = await RawWs.open(sys.url, wsPath);
      again.sendText(wsMessage(alice, 'learn', batch(20_000, 40), ['p']));
      expect(JSON.parse((await again.nextText())!)).toEqual({ statusCode: 200, statusString: 'OK', values: {} });
      again.destroy();
    });

    it('authenticated frames reserve their announced length before it is read; one that does not fit is closed 1013', async () => {
      const pid = sys.pids().users;
      const before = rssMb(pid);
      const open = async () => {
        const ws = await RawWs.open(sys.url, wsPath);
        ws.sendText(wsMessage(alice, 'learn', batch(3), ['p']));
        expect(JSON.parse((await ws.nextText())!)).toMatchObject({ statusCode: 200 });
        return ws;
      };
      const [a, b, c] = [await open(), await open(), await open()];
      a.write(frameHeader(0x1, 200 * MiB));
      b.write(frameHeader(0x1, 200 * MiB));
      for (let t = Date.now(); (await inFlight()) !== 400 * MiB && Date.now() - t < 10_000;) await new Promise((r) => setTimeout(r, 20));
      expect(await inFlight()).toBe(400 * MiB);
      c.write(frameHeader(0x1, 250 * MiB));
      expect(await c.whenClosed()).toEqual({ code: 1013, reason: `the gateway's body budget is full (SML_MAX_BODY_BYTES_IN_FLIGHT = ${600 * MiB}); retry later` });
      // Reserved, not read: the gateway holds no more memory for them.
      expect(rssMb(pid) - before).toBeLessThan(100);
      for (const ws of [a, b, c]) ws.destroy();
      for (let t = Date.now(); (await inFlight()) !== 0 && Date.now() - t < 10_000;) await new Promise((r) => setTimeout(r, 20));
      expect(await inFlight()).toBe(0);
      expect(sys.unexpectedExits()).toEqual([]);
    });
  });
});

import http from 'node:http';
import { SmlClient } from '@sml/sdk';
import { sharedSystem, type SharedSystem } from '@sml/testkit';

// Bodies are read before anyone knows who sent them: all bodies in flight together are
// bounded (SML_MAX_BODY_BYTES_IN_FLIGHT), not only each one (SML_BODY_LIMIT).
describe('request bodies in flight are bounded', () => {
  let sys: SharedSystem;
  let root: SmlClient;
  beforeAll(async () => {
    sys = await sharedSystem('small-bodies');
    root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
  });
  afterAll(() => root?.close());

  /** Starts a request declaring `length` bytes and sends only a first part: the gateway holds it. */
  const slowBody = (length: number) => {
    const req = http.request(`${sys.url}${sys.basePath}/root/projects`, { method: 'POST', headers: { 'content-length': String(length), 'content-type': 'application/json' } });
    req.on('error', () => undefined);
    req.write('x'.repeat(1000));
    return req;
  };

  /** Waits until /metrics shows the gateway holding `bytes` of bodies. */
  const holding = async (bytes: number) => {
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
      const text = await (await fetch(`${sys.url}/metrics`)).text();
      if (new RegExp(`^sml_request_body_bytes_in_flight ${bytes}$`, 'm').test(text)) return;
    }
    throw new Error(`the gateway never held ${bytes} bytes`);
  };

  it('a body that does not fit answers 503 at once; once the others are done it fits again', async () => {
    const held = slowBody(190_000);
    await holding(190_000);
    const r = await root.request('POST', '/users', { query: { cid: 'x1' }, raw: Buffer.alloc(150_000, 32) });
    expect(r.status).toBe(503);
    expect(r.body.statusString).toBe('The gateway holds 190000 bytes of request bodies, its limit of 300000 (SML_MAX_BODY_BYTES_IN_FLIGHT); retry later');
    expect(r.headers['retry-after']).toBe('1');
    held.destroy();
    await holding(0);
    // Released when the held request went away: a body of the same size is read again.
    const again = await root.request('POST', '/users', { query: { cid: 'x2' }, raw: Buffer.alloc(150_000, 32) });
    expect(again.status).not.toBe(503);
    expect((await root.addUser('x3')).status).toBe(201);
    expect(await (await fetch(`${sys.url}/metrics`)).text()).toMatch(/^sml_request_body_budget_refusals_total 1$/m);
  });
});

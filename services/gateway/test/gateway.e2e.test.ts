import { connect } from 'nats';
import { catalogue } from '@sml/core';
import { SmlClient } from '@sml/sdk';
import { startSystem, type RunningSystem } from '@sml/testkit';
import { rawCall, type RawCall } from './signed';

// End to end: nats-server, the gateway and the jobs service as real processes.
describe('gateway end to end', () => {
  let sys: RunningSystem;
  let root: SmlClient;
  let alice: { user: string; secret: string; sdk: SmlClient };
  let bob: { user: string; secret: string; sdk: SmlClient };
  const call = (c: Omit<RawCall, 'user' | 'secret'> & Partial<RawCall>) => rawCall(sys.url, { user: alice.user, secret: alice.secret, ...c });
  const jobsPath = () => `${sys.basePath}/${alice.user}/jobs`;

  const customer = async (user: string) => {
    const r = await root.addUser(user);
    expect(r.status).toBe(201);
    const secret = String((r.body.values as { secretKey: string }).secretKey);
    return { user, secret, sdk: new SmlClient({ url: sys.url, user, secret }) };
  };

  beforeAll(async () => {
    // Bodies from 8 KiB are hashed on the gateway's body threads (as large learns are by default).
    sys = await startSystem({ services: ['users', 'jobs'], env: { SML_BODY_LIMIT: '65536', SML_REQUEST_TIMEOUT_MS: '3000', SML_GATEWAY_BODY_THREAD_MIN_BYTES: '8192' } });
    root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
    alice = await customer('alice');
    bob = await customer('bob');
  });
  afterAll(() => sys?.stop());

  describe('authentication (API.md §2)', () => {
    it('a signed request gets the envelope with an integer statusCode', async () => {
      const r = await call({ method: 'GET', path: jobsPath() });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ statusCode: 200, statusString: 'OK', values: { jobinfolist: [] } });
    });

    it('accepts "Bearer <signature>" and a full-URL signed resource', async () => {
      const plain = await call({ method: 'GET', path: jobsPath() });
      expect(plain.status).toBe(200);
      const { formatSymDate, contentMd5, signature, stringToSign } = await import('@sml/core');
      const date = formatSymDate(new Date(), 42);
      const sts = stringToSign({ method: 'GET', contentMd5: contentMd5(undefined), secret: alice.secret, symDate: date, customerId: alice.user, resource: jobsPath() });
      const bearer = await fetch(sys.url + jobsPath(), { headers: { 'Customer-ID': alice.user, 'Sym-date': date, 'Content-MD5': '', Authorization: `Bearer ${signature(alice.secret, sts)}` } });
      expect(bearer.status).toBe(200);
      const full = await call({ method: 'GET', path: jobsPath(), signedResource: `${sys.url}${jobsPath()}` });
      expect(full.status).toBe(200);
    });

    it.each([
      ['no Authorization', { headers: { Authorization: null } }, 400, 'Authentication header is null'],
      ['no Sym-date', { headers: { 'Sym-date': null } }, 400, 'sym-date header is null'],
      ['a malformed Sym-date', { headers: { 'Sym-date': '2024/01/02 03:04:05' } }, 400, 'Invalid Date Format'],
      ['a date 6 minutes behind', { dateOffsetMs: -6 * 60_000 }, 400, 'Please update your server time, it is likely out of sync with UTC'],
      ['a date 2 minutes ahead', { dateOffsetMs: 2 * 60_000 }, 400, 'Please update your server time, it is likely out of sync with UTC'],
      ['an unknown customer', { user: 'nobody', secret: 'VLmAm+WkpnA5zp2wXiSYkw==' }, 401, 'Invalid User'],
      ['both Authorization and Sym-date missing (first check wins)', { headers: { Authorization: null, 'Sym-date': null } }, 400, 'Authentication header is null'],
    ])('rejects %s', async (_what, change, status, message) => {
      const r = await call({ method: 'GET', path: jobsPath(), ...(change as Partial<RawCall>) });
      expect(r.status).toBe(status);
      expect(r.body).toEqual({ statusCode: status, statusString: message, values: {} });
    });

    it("a Customer-ID that is not the path's user → 401, even with a valid signature", async () => {
      const r = await call({ method: 'GET', path: `${sys.basePath}/${bob.user}/jobs` });
      expect(r.status).toBe(401);
      expect(r.body.statusCode).toBe(401);
    });

    it('a body changed after signing → 400 Md5 do not match', async () => {
      const r = await call({ method: 'POST', path: `${sys.basePath}/${alice.user}/users`, query: 'cid=x', body: '{"tampered":1}', signedBody: '{}' });
      expect(r).toEqual(expect.objectContaining({ status: 400, body: { statusCode: 400, statusString: 'Md5 do not match', values: {} } }));
    });

    it('a wrong signature → 401 Invalid Signature with the server string to sign, secret redacted', async () => {
      const r = await call({ method: 'GET', path: jobsPath(), query: 'all=false', headers: { Authorization: 'A'.repeat(43) + '=' } });
      expect(r.status).toBe(401);
      expect(r.body.statusString).toBe('Invalid Signature');
      const sts: string = r.body.values.stringToSign;
      expect(sts.split('\n')).toEqual(['GET', '', 'SECRETKEY', expect.any(String), alice.user, jobsPath(), 'all=false', '']);
      expect(sts).not.toContain(alice.secret);
    });

    it('a large body is hashed on a body thread with the same answers: tampered → 400 Md5, a wrong signature → 401, signed → served', async () => {
      const digests = async () => Number(/sml_gateway_body_thread_tasks_total\{kind="digest"\} (\d+)/.exec(await (await fetch(`${sys.url}/metrics`)).text())?.[1] ?? 0);
      const before = await digests();
      const big = JSON.stringify({ pad: 'x'.repeat(20_000) });
      const tampered = await call({ method: 'POST', path: `${sys.basePath}/${alice.user}/users`, query: 'cid=x', body: big.replace('x', 'y'), signedBody: big });
      expect(tampered).toEqual(expect.objectContaining({ status: 400, body: { statusCode: 400, statusString: 'Md5 do not match', values: {} } }));
      const wrong = await call({ method: 'POST', path: `${sys.basePath}/${alice.user}/users`, query: 'cid=x', body: big, headers: { Authorization: 'A'.repeat(43) + '=' } });
      expect(wrong.status).toBe(401);
      expect(wrong.body.values.stringToSign.split('\n')).toEqual(['POST', expect.any(String), 'SECRETKEY', expect.any(String), alice.user, big, `${sys.basePath}/${alice.user}/users`, 'cid=x', '']);
      const served = await rawCall(sys.url, { user: sys.rootUser, secret: sys.rootSecret, method: 'POST', path: `${sys.basePath}/${sys.rootUser}/users`, query: 'cid=erin-large-body', body: big });
      expect(served.status).toBe(201);
      expect(await digests()).toBe(before + 3);
    });

    it('the same signed request twice → 401 Replayed request', async () => {
      const { formatSymDate, contentMd5, signature, stringToSign } = await import('@sml/core');
      const date = formatSymDate(new Date(), 7);
      const sts = stringToSign({ method: 'GET', contentMd5: contentMd5(undefined), secret: alice.secret, symDate: date, customerId: alice.user, resource: jobsPath() });
      const headers = { 'Customer-ID': alice.user, 'Sym-date': date, 'Content-MD5': '', Authorization: signature(alice.secret, sts) };
      expect((await fetch(sys.url + jobsPath(), { headers })).status).toBe(200);
      const again = await fetch(sys.url + jobsPath(), { headers });
      expect(again.status).toBe(401);
      expect(((await again.json()) as { statusString: string }).statusString).toBe('Replayed request');
    });
  });

  describe('users', () => {
    it('root creates and deletes customers; others get 401; a deleted customer is an Invalid User', async () => {
      const carol = await customer('carol');
      expect((await carol.sdk.listJobs()).status).toBe(200);
      const dup = await root.addUser('carol');
      expect(dup.status).toBe(409);
      const notRoot = await alice.sdk.request('POST', '/users', { query: 'cid=mallory' });
      expect(notRoot.status).toBe(401);
      expect((await root.deleteUser('carol')).status).toBe(200);
      const gone = await carol.sdk.listJobs();
      expect(gone.status).toBe(401);
      expect(gone.body.statusString).toBe('Invalid User');
    });

    it('an invalid customer name → 400 naming the problem', async () => {
      const r = await root.request('POST', '/users', { query: 'cid=a..b' });
      expect(r.status).toBe(400);
      expect(r.body.statusString).toMatch(/cid.*Invalid customer name \[a\.\.b\]/);
    });

    it('a control character in a name in the path or the query → 400 showing it escaped and naming it, never raw', async () => {
      const inPath = await alice.sdk.request('GET', '/projects/Iris_virginica%0D/info');
      expect(inPath.status).toBe(400);
      expect(inPath.body.statusString).toBe('Invalid request: path.pid: Invalid project name [Iris_virginica\\r]: character 15 is the control character U+000D (a carriage return: a Windows line ending left in the value?); '
        + 'names are 1-128 characters of [A-Za-z0-9_.-], not starting with "." and without ".."');
      const inQuery = await root.request('POST', '/users', { query: 'cid=a%00b' });
      expect(inQuery.status).toBe(400);
      expect(inQuery.body.statusString).toContain('query.cid: Invalid customer name [a\\u0000b]: character 2 is the control character U+0000;');
      for (const r of [inPath, inQuery]) expect([...r.body.statusString].filter((c) => c.charCodeAt(0) < 0x20)).toEqual([]);
    });
  });

  describe('jobs REST contract', () => {
    it('all=true by a non-root customer → the exact seed 500 without values; root may', async () => {
      const r = await alice.sdk.listJobs({ all: true });
      expect(r.status).toBe(500);
      expect(r.body).toEqual({ statusCode: 500, statusString: 'Generic Exception [java.lang.Exception: Cannot specify all=true for non root user]' });
      expect((await root.listJobs({ all: true })).status).toBe(200);
    });

    it('an unknown job → 400 No such job; a non-numeric id → 400 naming the parameter', async () => {
      expect((await alice.sdk.getJob(987654)).body).toEqual({ statusCode: 400, statusString: 'No such job', values: {} });
      const bad = await alice.sdk.request('GET', '/jobs/abc');
      expect(bad.status).toBe(400);
      expect(bad.body.statusString).toMatch(/path\.id/);
    });
  });

  describe('operations', () => {
    it('unknown route → 404 envelope', async () => {
      const r = await call({ method: 'GET', path: `${sys.basePath}/${alice.user}/nothing/here` });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ statusCode: 404, statusString: `No route for GET ${sys.basePath}/${alice.user}/nothing/here`, values: {} });
    });

    it('a body over the limit → 413 envelope', async () => {
      const r = await call({ method: 'POST', path: `${sys.basePath}/${alice.user}/users`, query: 'cid=x', body: JSON.stringify({ pad: 'x'.repeat(70_000) }) });
      expect(r.status).toBe(413);
      expect(r.body).toEqual({ statusCode: 413, statusString: 'Request body larger than the limit of 65536 bytes', values: {} });
    });

    it('/livez, /readyz, /metrics and /openapi.json answer without authentication', async () => {
      expect((await fetch(`${sys.url}/livez`)).status).toBe(200);
      const ready = await fetch(`${sys.url}/readyz`);
      expect(ready.status).toBe(200);
      const metrics = await (await fetch(`${sys.url}/metrics`)).text();
      expect(metrics).toMatch(/sml_http_request_duration_seconds_bucket\{.*route="\/:user\/jobs"/);
      const doc = (await (await fetch(`${sys.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
      expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining([`${sys.basePath}/{user}/jobs`, `${sys.basePath}/{user}/jobs/{id}`]));
    });

    it('the OpenAPI document serves the error catalogue and the parameter bounds (their content is pinned by catalogue.test.ts against API.md)', async () => {
      const doc = (await (await fetch(`${sys.url}/openapi.json`)).json()) as Record<string, Record<string, unknown> & Array<{ code: string }>>;
      expect(doc['x-sml-error-catalogue'].map((e: { code: string }) => e.code)).toEqual(Object.keys(catalogue));
      expect(doc['x-sml-parameter-bounds'].hba_bins).toEqual({ integer: true, min: 1, max: 10_000, limit: 'SML_MAX_HISTOGRAM_BINS' });
    });

    it('every running service answers $SRV.PING discovery', async () => {
      const nc = await connect({ servers: sys.nats.url, ...sys.nats.connectOptions('gateway') });
      const names = new Set<string>();
      for await (const p of await nc.services.client().ping()) names.add(p.name);
      await nc.close();
      expect([...names].sort()).toEqual(['jobs', 'users']);
    });

    it('a service down → 503 naming it within the timeout; other routes keep working; back when it returns', async () => {
      await sys.kill('jobs');
      const t0 = Date.now();
      const r = await alice.sdk.listJobs();
      expect(Date.now() - t0).toBeLessThan(3000);
      expect(r.status).toBe(503);
      expect(r.body).toEqual({ statusCode: 503, statusString: 'Service [jobs] is unavailable', values: {} });
      expect((await root.addUser('dave')).status).toBe(201);
      const ready = await fetch(`${sys.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { missing: string[] }).missing).toEqual(['jobs']);
      await sys.start('jobs');
      expect((await alice.sdk.listJobs()).status).toBe(200);
    });
  });
});

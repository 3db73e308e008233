import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, contentMd5, decryptDsInfo, generateSecret, parseSymDate, signature, stringToSign, verifySignature } from '@sml/core';
import { encryptDsInfo, JobTimeoutError, SmlClient, UnexpectedResponseError } from '@sml/sdk';

interface Seen {
  method: string;
  path: string;
  query: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
  signatureValid: boolean;
}

type Handler = (seen: Seen, res: ServerResponse) => void;

const secret = generateSecret();
const user = 'c1';

function envelope(res: ServerResponse, status: number, statusString: string, values: unknown = {}, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ statusCode: status, statusString, values }));
}

/**
 * A stand-in gateway that verifies each request with core's signing functions from the
 * raw request line, as the real gateway does, and answers through `handler`.
 */
async function startGateway(handler: Handler = (_s, res) => envelope(res, 200, 'OK')) {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const [path = '', query = ''] = (req.url ?? '').split('?', 2) as [string, string?];
      const body = Buffer.concat(chunks);
      const expected = signature(secret, stringToSign({
        method: req.method!, contentMd5: contentMd5(body), secret, symDate: String(req.headers['sym-date']),
        customerId: String(req.headers['customer-id']), body, resource: path, query,
      }));
      const s = {
        method: req.method!, path, query, headers: req.headers, body,
        signatureValid: verifySignature(expected, String(req.headers.authorization)) && req.headers['content-md5'] === contentMd5(body),
      };
      seen.push(s);
      handler(s, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  running.push(server);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    client: new SmlClient({ url, user, secret }),
  };
}

const running: Server[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

let gw: Awaited<ReturnType<typeof startGateway>>;

describe('SmlClient request signing', () => {
  it('signs a GET without body so that the gateway recomputes the same signature', async () => {
    gw = await startGateway();
    const res = await gw.client.request('GET', '/jobs/7');
    expect(res).toMatchObject({ status: 200, body: { statusCode: 200, statusString: 'OK', values: {} } });
    expect(gw.seen[0]).toMatchObject({ method: 'GET', path: '/symetry/rest/c1/jobs/7', query: '', signatureValid: true });
    expect(gw.seen[0].headers).toMatchObject({ 'customer-id': 'c1', 'content-md5': '', 'sym-version': expect.any(String) });
  });

  it('signs a JSON body and query, with the Content-MD5 of the exact bytes sent', async () => {
    gw = await startGateway();
    const frame = { attributeNames: ['x', 'ü'], attributeTypes: ['C', 'C'], data: [['1', '2']] };
    await gw.client.request('POST', '/projects/p1/learn', { query: { async: 'true' }, json: frame });
    const s = gw.seen[0];
    expect(s).toMatchObject({ path: '/symetry/rest/c1/projects/p1/learn', query: 'async=true', signatureValid: true });
    expect(JSON.parse(s.body.toString('utf8'))).toEqual(frame);
    expect(s.headers['content-md5']).toBe(contentMd5(s.body));
    expect(s.headers['content-type']).toBe('application/json');
  });

  it('signs the query exactly as it goes on the wire, escaping included', async () => {
    gw = await startGateway();
    await gw.client.request('GET', '/encoders', { query: { name: 'a b&c=d', u: 'é' } });
    await gw.client.request('GET', '/encoders', { query: 'x=1 2&y' });
    expect(gw.seen.map((s) => s.signatureValid)).toEqual([true, true]);
    expect(gw.seen[0].query).toBe('name=a+b%26c%3Dd&u=%C3%A9');
  });

  it('sends a raw body verbatim (an encrypted DSInfo decrypts on the other side)', async () => {
    gw = await startGateway();
    const dsInfo = { type: 'localfile', name: 'f', info: { path: 'a.csv' }, extra: ['C'] };
    await gw.client.request('POST', '/dss/f', { raw: encryptDsInfo(dsInfo, secret) });
    const s = gw.seen[0];
    expect(s.signatureValid).toBe(true);
    expect(s.body.toString().startsWith('v2:')).toBe(true);
    expect(decryptDsInfo(s.body.toString(), secret)).toEqual(dsInfo);
    expect(s.headers['content-type']).toBe('text/plain');
  });

  it('dates each request now, in UTC, and never repeats a signature for identical requests', async () => {
    gw = await startGateway();
    const before = Date.now();
    await Promise.all(Array.from({ length: 20 }, () => gw.client.request('GET', '/projects')));
    const dates = gw.seen.map((s) => String(s.headers['sym-date']));
    for (const d of dates) expect(parseSymDate(d)).toBeGreaterThanOrEqual(before - 1);
    for (const d of dates) expect(parseSymDate(d)).toBeLessThanOrEqual(Date.now());
    expect(new Set(gw.seen.map((s) => s.headers.authorization)).size).toBe(20);
  });

  it('a wrong secret produces a signature the gateway rejects', async () => {
    gw = await startGateway();
    await new SmlClient({ url: gw.url, user, secret: generateSecret() }).request('GET', '/projects');
    expect(gw.seen[0].signatureValid).toBe(false);
  });

  it('honours a custom base path and a trailing slash on the URL', async () => {
    gw = await startGateway();
    await new SmlClient({ url: `${gw.url}/`, user, secret, basePath: '/api/' }).request('GET', '/projects');
    expect(gw.seen[0]).toMatchObject({ path: '/api/c1/projects', signatureValid: true });
  });

  it('returns non-2xx envelopes as responses, with lower-cased headers', async () => {
    gw = await startGateway((_s, res) => envelope(res, 400, 'No such job', {}, { 'X-Extra': 'y' }));
    const res = await gw.client.getJob(99);
    expect(res).toMatchObject({ status: 400, body: { statusString: 'No such job' }, headers: { 'x-extra': 'y' } });
  });

  it.each([
    ['a non-JSON body', (res: ServerResponse) => res.writeHead(502).end('<html>bad gateway</html>')],
    ['JSON that is not an envelope', (res: ServerResponse) => res.writeHead(200).end('{"ok":true}')],
  ])('throws UnexpectedResponseError on %s', async (_what, answer) => {
    gw = await startGateway((_s, res) => answer(res));
    await expect(gw.client.listProjects()).rejects.toBeInstanceOf(UnexpectedResponseError);
  });
});

describe('SmlClient helpers', () => {
  const frame = { attributeNames: ['x'], attributeTypes: ['C'], data: [['1']] };

  it.each<[string, (c: SmlClient) => Promise<unknown>, Partial<Seen>, unknown]>([
    ['listJobs', (c) => c.listJobs(), { method: 'GET', path: '/symetry/rest/c1/jobs', query: '' }, undefined],
    ['listJobs all', (c) => c.listJobs({ all: true }), { method: 'GET', path: '/symetry/rest/c1/jobs', query: 'all=true' }, undefined],
    ['getJob', (c) => c.getJob(7), { method: 'GET', path: '/symetry/rest/c1/jobs/7' }, undefined],
    ['cancelJob', (c) => c.cancelJob('7'), { method: 'DELETE', path: '/symetry/rest/c1/jobs/7' }, undefined],
    ['addUser', (c) => c.addUser('c2'), { method: 'POST', path: '/symetry/rest/c1/users', query: 'cid=c2' }, undefined],
    ['deleteUser', (c) => c.deleteUser('c2'), { method: 'DELETE', path: '/symetry/rest/c1/users/c2' }, undefined],
    ['createProject', (c) => c.createProject('p1'), { method: 'POST', path: '/symetry/rest/c1/projects', query: 'pid=p1' }, undefined],
    ['createProject with options', (c) => c.createProject('p1', {
      type: 'sequence', persist: false, enableHistogram: true, histogramType: 'exact', params: { sml_project_order: '2' },
    }), {
      method: 'POST', path: '/symetry/rest/c1/projects', query: 'pid=p1&type=sequence&persist=false&enableHistogram=true&histogramType=exact',
    }, { sml_project_order: '2' }],
    ['projectInfo', (c) => c.projectInfo('p1'), { method: 'GET', path: '/symetry/rest/c1/projects/p1/info', query: '' }, undefined],
    ['projectInfo async hash', (c) => c.projectInfo('p1', { async: true, hash: true }), { query: 'async=true&hash=1' }, undefined],
    ['listProjects', (c) => c.listProjects(), { method: 'GET', path: '/symetry/rest/c1/projects' }, undefined],
    ['deleteProject', (c) => c.deleteProject('p1'), { method: 'DELETE', path: '/symetry/rest/c1/projects/p1' }, undefined],
    ['learn', (c) => c.learn('p1', frame), { method: 'POST', path: '/symetry/rest/c1/projects/p1/learn', query: '' }, frame],
    ['learn async', (c) => c.learn('p1', frame, { async: true }), { query: 'async=true' }, frame],
    ['forget', (c) => c.forget('p1', frame), { method: 'POST', path: '/symetry/rest/c1/projects/p1/forget' }, frame],
    ['listDataSources', (c) => c.listDataSources(), { method: 'GET', path: '/symetry/rest/c1/dss', query: '' }, undefined],
    ['getDataSource', (c) => c.getDataSource('d 1'), { method: 'GET', path: '/symetry/rest/c1/dss/d%201' }, undefined],
    ['deleteDataSource', (c) => c.deleteDataSource('d1'), { method: 'DELETE', path: '/symetry/rest/c1/dss/d1' }, undefined],
    ['sampleDataSource', (c) => c.sampleDataSource('d1'), { method: 'GET', path: '/symetry/rest/c1/dss/d1/sample' }, undefined],
    ['learnDataSource', (c) => c.learnDataSource('p1', 'd1', { errorHandling: 1 }), { method: 'POST', path: '/symetry/rest/c1/projects/p1/dss/d1/learn' }, { errorHandling: 1 }],
    ['learnDataSource forget', (c) => c.learnDataSource('p1', 'd1', {}, { forget: true }), { method: 'POST', path: '/symetry/rest/c1/projects/p1/dss/d1/forget' }, {}],
    ['attachDataSource', (c) => c.attachDataSource('p1', 'd1'), { method: 'GET', path: '/symetry/rest/c1/projects/p1/addds/d1' }, undefined],
    ['attachDataSource detach', (c) => c.attachDataSource('p1', 'd1', { detach: true }), { method: 'GET', path: '/symetry/rest/c1/projects/p1/detachds/d1' }, undefined],
    ['dataSourceLog', (c) => c.dataSourceLog('p1'), { method: 'GET', path: '/symetry/rest/c1/projects/p1/getDsLog' }, undefined],
  ])('%s sends the documented request', async (_name, call, expected, body) => {
    gw = await startGateway();
    await call(gw.client);
    expect(gw.seen).toHaveLength(1);
    expect(gw.seen[0]).toMatchObject({ ...expected, signatureValid: true });
    expect(gw.seen[0].body.length === 0 ? undefined : JSON.parse(gw.seen[0].body.toString())).toEqual(body);
  });
});

describe('SmlClient DSInfo bodies', () => {
  const dsInfo = { type: 's3', name: 'd1', info: { path: 'k.csv', s3bucket: 'b', s3accessKey: 'a', s3secretKey: 's' }, extra: ['C'] };

  it.each<[string, (c: SmlClient) => Promise<unknown>, Partial<Seen>]>([
    ['createDataSource', (c) => c.createDataSource(dsInfo), { method: 'POST', path: '/symetry/rest/c1/dss/create' }],
    ['updateDataSource', (c) => c.updateDataSource(dsInfo), { method: 'PUT', path: '/symetry/rest/c1/dss/d1' }],
    ['previewDataSource', (c) => c.previewDataSource(dsInfo), { method: 'POST', path: '/symetry/rest/c1/dss/sample/preview' }],
    ['browseDataSource', (c) => c.browseDataSource(dsInfo), { method: 'POST', path: '/symetry/rest/c1/projects/dsbrowse' }],
  ])('%s sends the DSInfo encrypted (v2) with the secret', async (_name, call, expected) => {
    gw = await startGateway();
    await call(gw.client);
    expect(gw.seen[0]).toMatchObject({ ...expected, signatureValid: true });
    expect(gw.seen[0].body.toString().startsWith('v2:')).toBe(true);
    expect(decryptDsInfo(gw.seen[0].body.toString(), secret)).toEqual(dsInfo);
  });
});

describe('waitForJob', () => {
  /** Job 42 answers 202 `polls` times, then 200 'Job is finished'. */
  function jobGateway(polls: number): Handler {
    let remaining = polls;
    return (s, res) => {
      if (s.path.endsWith('/learn')) return envelope(res, 202, 'Job Created', {}, { 'sym-job-id': '42' });
      if (s.path.endsWith('/jobs/42') && remaining-- > 0) return envelope(res, 202, 'Job still running', { jobinfo: { jobId: 42, isDone: false } });
      if (s.path.endsWith('/jobs/42')) return envelope(res, 200, 'Job is finished', { result: 1 });
      return envelope(res, 400, 'No such job');
    };
  }

  it('polls the job named by the 202 response until it is no longer running', async () => {
    gw = await startGateway(jobGateway(3));
    const created = await gw.client.learn('p1', { attributeNames: ['x'], attributeTypes: ['C'], data: [['1']] }, { async: true });
    const done = await gw.client.waitForJob(created, { intervalMs: 5 });
    expect(done).toMatchObject({ status: 200, body: { statusString: 'Job is finished', values: { result: 1 } } });
    expect(gw.seen.filter((s) => s.path === '/symetry/rest/c1/jobs/42')).toHaveLength(4);
  });

  it("hands onRunning each running answer's jobinfo, not the final one", async () => {
    gw = await startGateway(jobGateway(2));
    const seen: unknown[] = [];
    await gw.client.waitForJob(42, { intervalMs: 5, onRunning: (info) => seen.push(info) });
    expect(seen).toEqual([{ jobId: 42, isDone: false }, { jobId: 42, isDone: false }]);
  });

  it('returns a failure status as the final answer, without retrying it', async () => {
    gw = await startGateway((_s, res) => envelope(res, 500, 'boom'));
    expect(await gw.client.waitForJob(42)).toMatchObject({ status: 500 });
    expect(gw.seen).toHaveLength(1);
  });

  it('gives up with JobTimeoutError while the job is still running', async () => {
    gw = await startGateway(jobGateway(Number.POSITIVE_INFINITY));
    await expect(gw.client.waitForJob('42', { timeoutMs: 50, intervalMs: 10 })).rejects.toEqual(expect.objectContaining({
      name: 'JobTimeoutError', jobId: '42',
    }));
    await expect(gw.client.waitForJob('42', { timeoutMs: 0 })).rejects.toBeInstanceOf(JobTimeoutError);
  });

  it('refuses a response that created no job', async () => {
    gw = await startGateway();
    const res = await gw.client.listProjects();
    await expect(gw.client.waitForJob(res)).rejects.toThrow(TypeError);
  });
});

describe('SmlClient.fromEnv', () => {
  it('reads SML_URL, SML_USER, SML_SECRET and SML_BASE_PATH', () => {
    const c = SmlClient.fromEnv({ SML_URL: 'http://h:1', SML_USER: 'u', SML_SECRET: secret, SML_BASE_PATH: '/x' });
    expect(c).toMatchObject({ url: 'http://h:1', user: 'u', basePath: '/x' });
    expect(SmlClient.fromEnv({ SML_URL: 'http://h:1', SML_USER: 'u', SML_SECRET: secret }).basePath).toBe('/symetry/rest');
  });

  it('names every missing variable', () => {
    expect(() => SmlClient.fromEnv({ SML_USER: 'u' })).toThrow(new ConfigError('Missing environment variable(s): SML_URL, SML_SECRET'));
  });
});

describe('maxAnswerBytes', () => {
  it('reads an answer up to the bound and closes a longer one unread, with AnswerTooLargeError', async () => {
    const big = 'x'.repeat(64 * 1024);
    const gw = await startGateway((_s, res) => envelope(res, 200, 'OK', { big }));
    const answer = JSON.stringify({ statusCode: 200, statusString: 'OK', values: { big } }).length;
    const fits = new SmlClient({ url: gw.url, user, secret, maxAnswerBytes: answer });
    expect((await fits.listJobs()).status).toBe(200);
    const bounded = new SmlClient({ url: gw.url, user, secret, maxAnswerBytes: answer - 1 });
    await expect(bounded.listJobs()).rejects.toEqual(expect.objectContaining({ name: 'AnswerTooLargeError', maxBytes: answer - 1 }));
    fits.close();
    bounded.close();
  });
});

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SmlClient } from '@sml/sdk';
import { newCustomer, sharedSystem, type SharedSystem } from '@sml/testkit';
import { readCsv, SummaryReader } from './helpers';

// Issue 11: an http data source through the gateway: a CSV behind Basic authorization,
// streamed in small chunks, learns as a job exactly like the same rows inline; wrong
// credentials and an unreachable server fail the job naming the cause, learning nothing.

describe('data sources (http) end to end', () => {
  let sys: SharedSystem;
  let server: Server;
  let base: string;
  let alice: SmlClient;
  let reader: SummaryReader;
  const { names, rows } = readCsv('Iris_rtlm.csv');
  const csv = [names.join(','), ...rows.map((r) => r.join(','))].join('\r\n');

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.headers.authorization !== `Basic ${Buffer.from('reader:s3cret').toString('base64')}`) {
        res.writeHead(401).end();
        return;
      }
      if (req.url !== '/data/iris.csv') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/csv', 'content-length': Buffer.byteLength(csv) });
      // Small chunks: records cut anywhere.
      const bytes = Buffer.from(csv);
      for (let at = 0; at < bytes.length; at += 777) res.write(bytes.subarray(at, at + 777));
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    sys = await sharedSystem();
    alice = (await newCustomer(sys, 'alice')).sdk;
    reader = await SummaryReader.open(sys.nats);
  }, 60_000);
  afterAll(async () => {
    await reader?.close();
    alice?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('learns a CSV over http as the same rows inline; the password is never answered', async () => {
    const types = names.map((_, i) => (i < 4 ? 'C' : 'B'));
    expect((await alice.createDataSource({ type: 'http', name: 'iris', info: { path: `${base.replace('//', '//reader:s3cret@')}/data/iris.csv` } })).status).toBe(201);
    const got = await alice.request<{ dsInfo: { info: Record<string, string> } }>('GET', '/dss/iris');
    expect(JSON.stringify(got.body)).not.toContain('s3cret');
    await alice.createProject('ds');
    await alice.createProject('inline');
    expect((await alice.learn('inline', { attributeNames: names, attributeTypes: types, data: rows })).status).toBe(200);
    const done = await alice.waitForJob(await alice.learnDataSource('ds', 'iris', { attributeNames: names, attributeTypes: types }));
    expect(done.status).toBe(200);
    const [a, b] = [await reader.full(alice.user, 'ds'), await reader.full(alice.user, 'inline')];
    expect(a.rowCount).toBe(rows.length);
    for (const n of names) expect(a.mean(n)).toBeCloseTo(b.mean(n), 12);
  });

  it('wrong credentials, a missing file, an unreachable server: the job fails naming why; nothing learned', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const cases: [string, string, RegExp][] = [
      ['wrong', `${base.replace('//', '//reader:nope@')}/data/iris.csv`, /access denied \(HTTP 401\)/],
      ['missing', `${base.replace('//', '//reader:s3cret@')}/data/none.csv`, /not found \(HTTP 404\)/],
      ['dead', `http://127.0.0.1:${deadPort}/x.csv`, /unreachable/],
    ];
    await alice.createProject('fail');
    for (const [name, path, why] of cases) {
      expect((await alice.createDataSource({ type: 'http', name, info: { path } })).status).toBe(201);
      const done = await alice.waitForJob(await alice.learnDataSource('fail', name));
      expect(done.status).toBeGreaterThanOrEqual(400);
      expect(JSON.stringify(done.body)).toMatch(why);
      expect(JSON.stringify(done.body)).not.toMatch(/s3cret|nope/);
    }
    expect((await reader.full(alice.user, 'fail')).rowCount).toBe(0);
  });
});

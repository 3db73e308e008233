import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { encryptDsInfo, nameToken } from '@sml/core';
import { SmlClient } from '@sml/sdk';
import { startSystem, type RunningSystem } from '@sml/testkit';

// Issue 29, items 5, 6 and 12: a source that trickles fails its job naming it and frees its
// job slot (SML_SOURCE_MIN_BYTES_PER_S over SML_SOURCE_RATE_WINDOW_MS); a silent or trickling
// source answers a preview 400 naming it within SML_SOURCE_TIMEOUT_MS, not the gateway's 503
// 'did not answer'; a failed job reads 500 with its message; cluster_num_centroids over its
// bound and a 1 MB encoder key answer 400 naming the bound.

const SOURCE_TIMEOUT_MS = 3000;

describe('slow and silent data sources; failed jobs; bounds', () => {
  let sys: RunningSystem;
  let server: Server;
  let base: string;
  let alice: SmlClient;
  let secret: string;
  /** Requests the test server holds open now, by path. */
  const open = new Map<string, number>();
  const held = new Set<ServerResponse>();

  const pathOf = (req: IncomingMessage) => new URL(req.url ?? '/', 'http://x').pathname;
  const hold = (req: IncomingMessage, res: ServerResponse) => {
    const path = pathOf(req);
    open.set(path, (open.get(path) ?? 0) + 1);
    held.add(res);
    res.once('close', () => {
      open.set(path, open.get(path)! - 1);
      held.delete(res);
    });
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = pathOf(req);
      if (path === '/trickle.csv' && req.method === 'HEAD') {
        res.writeHead(200, { 'content-type': 'text/csv' }).end();
      } else if (path === '/trickle.csv') {
        // A header, then one byte every 2 s, for ever: each byte restarts a silence timer.
        hold(req, res);
        res.writeHead(200, { 'content-type': 'text/csv' });
        res.write('x,y\n');
        const timer = setInterval(() => res.write('1'), 2000);
        res.once('close', () => clearInterval(timer));
      } else if (path === '/silent.csv') {
        hold(req, res); // never answers
      } else if (path === '/ok.csv') {
        res.writeHead(200, { 'content-type': 'text/csv' }).end('x,y\n1,2\n3,4\n');
      } else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    sys = await startSystem({
      services: ['users', 'jobs', 'projects', 'encoders'],
      env: {
        // One job slot: the job queued behind the trickling one runs only once that slot is free.
        SML_EXECUTOR_CONCURRENCY: '1', SML_EXECUTOR_PER_CUSTOMER: '2',
        SML_SOURCE_TIMEOUT_MS: String(SOURCE_TIMEOUT_MS), SML_SOURCE_MIN_BYTES_PER_S: '100', SML_SOURCE_RATE_WINDOW_MS: '3000',
      },
    });
    const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
    const r = await root.addUser('alice');
    secret = String((r.body.values as { secretKey: string }).secretKey);
    alice = new SmlClient({ url: sys.url, user: 'alice', secret });
  }, 60_000);
  afterAll(async () => {
    await sys?.stop();
    for (const res of held) res.destroy();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('a trickling source fails its learn job naming the source and the bound; the slot goes to the next job', async () => {
    expect((await alice.createDataSource({ type: 'http', name: 'trickle', info: { path: `${base.replace('//', '//reader:s3cret@')}/trickle.csv?token=t0ps3cret` } })).status).toBe(201);
    expect((await alice.createDataSource({ type: 'http', name: 'ok', info: { path: `${base}/ok.csv` } })).status).toBe(201);
    expect((await alice.createProject('slow')).status).toBe(201);
    expect((await alice.createProject('next')).status).toBe(201);
    const t0 = Date.now();
    const slow = await alice.learnDataSource('slow', 'trickle', { attributeNames: ['x', 'y'], attributeTypes: ['C', 'C'] });
    expect(slow.status).toBe(202);
    // Queued behind the trickling job (one slot).
    const next = await alice.learnDataSource('next', 'ok', { attributeNames: ['x', 'y'], attributeTypes: ['C', 'C'] });
    expect(next.status).toBe(202);
    const failed = await alice.waitForJob(slow, { timeoutMs: 30_000 });
    const took = Date.now() - t0;
    expect(failed.status).toBe(500);
    expect(failed.body.statusString).toContain(`Data source [trickle] cannot be read: ${base}/trickle.csv: sent `);
    expect(failed.body.statusString).toMatch(/under the least rate of 100 bytes\/s \(SML_SOURCE_MIN_BYTES_PER_S/);
    // Never the credentials nor the URL's query.
    expect(failed.body.statusString).not.toMatch(/s3cret|t0ps3cret/);
    expect(took).toBeLessThan(20_000);
    const done = await alice.waitForJob(next, { timeoutMs: 30_000 });
    expect(done.status).toBe(200);
    // The trickling connection was closed by the reader.
    for (let i = 0; i < 50 && (open.get('/trickle.csv') ?? 0) > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(open.get('/trickle.csv')).toBe(0);

    // An encoder's learnds reads under the same bounds.
    expect((await alice.request('POST', '/encoders/create', { query: { encodername: 'et', targetName: 'y' } })).status).toBe(201);
    const learnds = await alice.request('POST', '/encoders/et/learnds', { raw: encryptDsInfo({ type: 'http', name: 'tr', info: { path: `${base}/trickle.csv` }, extra: ['S', 'B'] }, secret) });
    expect(learnds.status).toBe(202);
    const encoderJob = await alice.waitForJob(learnds, { timeoutMs: 30_000 });
    expect([encoderJob.status, encoderJob.body.statusString]).toEqual([500, expect.stringMatching(/^Generic Exception \[java\.lang\.Exception: Data source \[tr\]: http:\/\/127\.0\.0\.1:\d+\/trickle\.csv: sent \d+ bytes in .* \(SML_SOURCE_MIN_BYTES_PER_S/)]);
  }, 90_000);

  it('a silent or trickling source answers a preview 400 naming it within SML_SOURCE_TIMEOUT_MS, not 503 for the service', async () => {
    for (const path of ['/silent.csv', '/trickle.csv']) {
      const t0 = Date.now();
      const r = await alice.previewDataSource({ type: 'http', name: 'p', info: { path: `${base}${path}` } });
      const took = Date.now() - t0;
      expect([r.status, r.body.statusString]).toEqual([400, expect.stringContaining(`Data source [p] cannot be read: ${base}${path}: `)]);
      expect(r.body.statusString).toContain('(SML_SOURCE_TIMEOUT_MS)');
      expect(r.body.statusString).not.toMatch(/did not answer within 30000/);
      expect(took).toBeGreaterThanOrEqual(SOURCE_TIMEOUT_MS - 100);
      expect(took).toBeLessThan(SOURCE_TIMEOUT_MS + 10_000);
    }
    // The registered source's sample too.
    expect((await alice.createDataSource({ type: 'http', name: 'silent', info: { path: `${base}/silent.csv` } })).status).toBe(201);
    const sample = await alice.sampleDataSource('silent');
    expect([sample.status, sample.body.statusString]).toEqual([400, expect.stringContaining(`Data source [silent] cannot be read: ${base}/silent.csv: `)]);
  }, 60_000);

  it('a strict learn failing at line 30 001 reads 500 with the file, line and column at GET /jobs/{id}', async () => {
    const dir = join(sys.dataDir, 'files', nameToken('alice'));
    mkdirSync(dir, { recursive: true });
    const lines = ['x,y'];
    for (let i = 1; i < 30_000; i++) lines.push(`${i},${i * 2}`);
    lines.push('7,seven');
    writeFileSync(join(dir, 'bad.csv'), `${lines.join('\n')}\n`);
    expect((await alice.createDataSource({ type: 'localfile', name: 'bad', info: { path: 'bad.csv' } })).status).toBe(201);
    expect((await alice.createProject('strict')).status).toBe(201);
    const failed = await alice.waitForJob(await alice.learnDataSource('strict', 'bad', { attributeNames: ['x', 'y'], attributeTypes: ['C', 'C'] }));
    expect(failed.status).toBe(500);
    expect(failed.body.statusCode).toBe(500);
    expect(failed.body.statusString).toMatch(/^Learning from data source \[bad\] failed, nothing was learned: \[bad\.csv\] line 30001, column \[y\]: /);
  }, 60_000);

  it('cluster_num_centroids over SML_MAX_CENTROIDS answers 400 naming it (not the warm-up rule\'s 500); a 1 MB encoder key answers 400 naming the bound', async () => {
    const r = await alice.createProject('k', { params: { cluster_features: 'x:y', cluster_num_centroids: '10001' } });
    expect([r.status, r.body.statusString]).toEqual([400, expect.stringContaining('(SML_MAX_CENTROIDS)')]);
    // The seed's own 500 stays for a warm-up not greater than the centroids, inside the bound.
    expect((await alice.createProject('k2', { params: { cluster_features: 'x:y', cluster_num_centroids: '50', cluster_warmup_period: '50' } })).status).toBe(500);

    expect((await alice.request('POST', '/encoders/create', { query: { encodername: 'e', targetName: 't' } })).status).toBe(201);
    const key = 'k'.repeat(1 << 20);
    const learn = await alice.request('POST', '/encoders/e/learn', { json: { attributeNames: [key, 't'], attributeTypes: ['S', 'B'], data: [['a', '1']] } });
    expect([learn.status, learn.body.statusString]).toEqual([400, expect.stringContaining('over the limit of 256 (SML_MAX_NAME_LENGTH)')]);
    expect(learn.body.statusString.length).toBeLessThan(1000);
    const created = await alice.request('POST', '/encoders/create', { query: { encodername: 'e2', targetName: key.slice(0, 4000) } });
    expect([created.status, created.body.statusString]).toEqual([400, expect.stringContaining('SML_MAX_NAME_LENGTH')]);
    const keys = await alice.request('POST', '/encoders/e/createKeyValues', { json: { attributeNames: ['Key', 'Value', 'Count', 'Sum'], attributeTypes: ['S', 'S', 'C', 'C'], data: [[key, 'v', '1', '1']] } });
    expect([keys.status, keys.body.statusString]).toEqual([400, expect.stringContaining('SML_MAX_NAME_LENGTH')]);
    // A key within the bound is learned.
    expect((await alice.request('POST', '/encoders/e/learn', { json: { attributeNames: ['k'.repeat(256), 't'], attributeTypes: ['S', 'B'], data: [['a', '1']] } })).status).toBe(200);
  }, 60_000);
});

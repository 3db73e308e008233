import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encryptDsInfo, nameToken } from '@sml/core';
import { SmlClient } from '@sml/sdk';
import { startSystem, type RunningSystem } from '@sml/testkit';
import { SummaryReader } from './helpers';

// Issue 11: a projects service killed (SIGKILL) in the middle of learning a data source never
// counts rows twice: the interrupted learn left nothing (its rows were only in the staging
// summary), and learning the source again counts every row exactly once.
describe('data-source learn and a crash mid-file', () => {
  let sys: RunningSystem;
  let reader: SummaryReader;
  beforeAll(async () => {
    sys = await startSystem({ services: ['users', 'jobs', 'projects'] });
    reader = await SummaryReader.open(sys.nats);
  });
  afterAll(async () => {
    await reader?.close();
    await sys?.stop();
  });

  it('SIGKILL while the job reads: nothing learned; the next learn counts each row once', async () => {
    const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
    const secret = String(((await root.addUser('alice')).body.values as { secretKey: string }).secretKey);
    const alice = new SmlClient({ url: sys.url, user: 'alice', secret });
    const files = join(sys.dataDir, 'files', nameToken('alice'));
    mkdirSync(files, { recursive: true });
    const ROWS = 500_000;
    const lines = ['x,y'];
    for (let i = 0; i < ROWS; i++) lines.push(`${i % 97},${i % 13}`);
    writeFileSync(join(files, 'big.csv'), lines.join('\n'));
    expect((await alice.request('POST', '/dss/create', { raw: encryptDsInfo({ type: 'localfile', name: 'big', info: { path: 'big.csv' } }, secret) })).status).toBe(201);
    expect((await alice.createProject('p')).status).toBe(201);
    const frame = { attributeNames: ['x', 'y'], attributeTypes: ['C', 'C'] };

    const job = await alice.request('POST', '/projects/p/dss/big/learn', { json: frame });
    expect(job.status).toBe(202);
    // Kill once the job has read part of the file (progress events reach the job record).
    const id = job.headers['sym-job-id'];
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
      const info = (await alice.request<{ jobinfo?: { current: number; maximum: number } }>('GET', `/jobs/${id}`)).body.values?.jobinfo;
      if (info && info.current > 0) {
        expect(info.current).toBeLessThan(info.maximum); // still reading
        break;
      }
    }
    await sys.kill('projects', 'SIGKILL');
    await sys.start('projects');

    expect((await reader.full('alice', 'p')).rowCount).toBe(0);
    const again = await alice.waitForJob(await alice.request('POST', '/projects/p/dss/big/learn', { json: frame }), { timeoutMs: 120_000 });
    expect(again.status).toBe(200);
    const parts = await reader.parts('alice', 'p', { attributeNames: ['x'], moments: true });
    expect(Number(parts.rowCount)).toBe(ROWS);
    let sum = 0;
    for (let i = 0; i < ROWS; i++) sum += i % 97;
    expect(parts.moments[0].sum).toBe(sum);
  }, 180_000);
});

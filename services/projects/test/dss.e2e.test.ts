import { connect } from 'nats';
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { encryptDsInfo, nameToken, type DsInfoFormat } from '@sml/core';
import { SmlClient } from '@sml/sdk';
import { dataFile, newCustomer, sharedSystem, type SharedSystem } from '@sml/testkit';
import { readCsv, SummaryReader } from './helpers';

// Issue 11: data sources through the gateway against the real processes: registry,
// samples, dsbrowse, addds, and learning/forgetting a localfile source as a job that either
// learns every row or changes nothing.

interface Customer { client: SmlClient; user: string; secret: string; files: string }

describe('data sources (localfile) end to end', () => {
  let sys: SharedSystem;
  let alice: Customer;
  let bob: Customer;
  let reader: SummaryReader;

  async function customer(user: string): Promise<Customer> {
    const c = await newCustomer(sys, user);
    const files = join(sys.dataDir, 'files', nameToken(c.user));
    mkdirSync(files, { recursive: true });
    return { client: c.sdk, user: c.user, secret: c.secret, files };
  }
  const enc = (c: Customer, ds: unknown, format: DsInfoFormat = 'v2') => encryptDsInfo(ds, c.secret, { format });
  const create = (c: Customer, ds: unknown, format?: DsInfoFormat) => c.client.request('POST', '/dss/create', { raw: enc(c, ds, format) });

  beforeAll(async () => {
    sys = await sharedSystem('limits');
    alice = await customer('alice');
    bob = await customer('bob');
    reader = await SummaryReader.open(sys.nats);
    copyFileSync(dataFile('Iris_rtlm.csv'), join(alice.files, 'iris.csv'));
    writeFileSync(join(alice.files, 'iris.csv.gz'), gzipSync(Buffer.from(readCsvText('Iris_rtlm.csv'))));
    copyFileSync(dataFile('activity_rtlm_no_lag.csv'), join(alice.files, 'activity.csv'));
    writeFileSync(join(alice.files, 'bad.csv'), 'x,y\n1,2\n3,4\n5,oops\n7,8\n');
    writeFileSync(join(alice.files, 'short.csv'), 'x,y\n1,2\n3\n5,6\n');
    writeFileSync(join(alice.files, 'open.csv'), 'x,y\n1,2\n3,"4\n');
    writeFileSync(join(bob.files, 'secret.csv'), 'x,y\n1,2\n');
    symlinkSync(join(bob.files, 'secret.csv'), join(alice.files, 'link.csv'));
    mkdirSync(join(alice.files, 'sub'));
    const big = ['x,y'];
    for (let i = 0; i < 1_000_000; i++) big.push(`${i % 97},${i % 13}`);
    writeFileSync(join(alice.files, 'big.csv'), big.join('\n'));
  }, 60_000);
  afterAll(async () => {
    await reader?.close();
    alice?.client.close();
    bob?.client.close();
  });

  function readCsvText(name: string): string {
    const { names, rows } = readCsv(name);
    return [names.join(','), ...rows.map((r) => r.join(','))].join('\n');
  }

  it('create (v2 and v1 bodies), 409, list, get without secrets, update, delete', async () => {
    expect((await alice.client.createDataSource({ type: 'localfile', name: 'iris', info: { path: 'iris.csv', rspasswd: 'hunter2' } })).status).toBe(201);
    const again = await create(alice, { type: 'localfile', name: 'iris', info: { path: 'iris.csv' } }, 'v1');
    expect([again.status, again.body.statusString]).toEqual([409, "DS 'iris' already exists"]);
    expect((await create(alice, { type: 'localfile', name: 'irisgz', info: { path: 'iris.csv.gz' } }, 'v1')).status).toBe(201);
    const list = await alice.client.request<{ stringList: { values: string[] } }>('GET', '/dss');
    expect(list.body.values!.stringList.values).toEqual(['iris:localfile', 'irisgz:localfile']);
    expect((await bob.client.request<{ stringList?: { values?: string[] } }>('GET', '/dss')).body.values?.stringList?.values ?? []).toEqual([]);
    const got = await alice.client.request<{ dsInfo: { info: Record<string, string> } }>('GET', '/dss/iris');
    expect(got.status).toBe(200);
    expect(got.body.values!.dsInfo.info).toEqual({ path: 'iris.csv' });
    expect(JSON.stringify(got.body)).not.toContain('hunter2');
    expect((await bob.client.request('GET', '/dss/iris')).body.statusString).toBe("DS 'iris' not found");
    const put = await alice.client.request('PUT', '/dss/irisgz', { raw: enc(alice, { type: 'localfile', name: 'whatever', info: { path: 'iris.csv.gz' }, extra: [] }) });
    expect(put.status).toBe(200);
    expect((await create(alice, { type: 'localfile', name: 'tmp', info: { path: 'x.csv' } })).status).toBe(201);
    expect((await alice.client.request('DELETE', '/dss/tmp')).status).toBe(200);
    expect((await alice.client.request('DELETE', '/dss/tmp')).status).toBe(400);
  });

  it.each([
    [{ type: 'ftp', name: 'a', info: { path: 'x' } }, /^Unknown data source type \[ftp\]/],
    [{ type: 'localfile', name: 'a', info: {} }, /info.path is required/],
    [{ type: 'localfile', name: 'a', info: { path: '../x' } }, /must not contain '..'/],
    [{ type: 'localfile', name: 'a', info: { path: '/etc/passwd' } }, /must be relative/],
    [{ type: 'localfile', name: '../a', info: { path: 'x' } }, /Invalid data source name/],
    [{ type: 'localfile', name: 'a', info: { path: 'x', csv_entry_separator: ';;' } }, /one character/],
  ])('refuses %j with a 400', async (ds, message) => {
    const r = await create(alice, ds);
    expect(r.status).toBe(400);
    expect(r.body.statusString).toMatch(message);
  });

  it('refuses bodies that are not an encrypted DSInfo of this customer', async () => {
    const r = await alice.client.request('POST', '/dss/create', { raw: enc(bob, { type: 'localfile', name: 'b', info: { path: 'x' } }) });
    expect([r.status, r.body.statusString]).toEqual([400, 'Invalid encrypted payload']);
    expect((await alice.client.request('POST', '/dss/create', { raw: 'not base64!' })).status).toBe(400);
    expect((await alice.client.request('POST', '/dss/create', { raw: enc(alice, null) })).status).toBe(500);
  });

  it('a customer has at most SML_MAX_DATA_SOURCES_PER_CUSTOMER data sources; a DSInfo is at most 64 KiB', async () => {
    const carol = await customer('carol');
    for (let i = 0; i < 20; i++) expect((await create(carol, { type: 'localfile', name: `d${i}`, info: { path: 'x.csv' } })).status).toBe(201);
    const over = await create(carol, { type: 'localfile', name: 'd20', info: { path: 'x.csv' } });
    expect([over.status, over.body.statusString]).toEqual([400, `Customer [${carol.user}] already has 20 data sources, the limit (SML_MAX_DATA_SOURCES_PER_CUSTOMER); delete one first`]);
    const huge = await create(alice, { type: 'localfile', name: 'huge', info: { path: 'x.csv', note: 'x'.repeat(70_000) } });
    expect(huge.status).toBe(400);
    expect(huge.body.statusString).toMatch(/^Data source \[huge\]: the DSInfo is \d+ bytes, more than 65536$/);
    // Deleting the customer purges its data sources.
    const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
    expect((await root.deleteUser(carol.user)).status).toBe(200);
    const nc = await connect({ servers: sys.nats.url, ...sys.nats.connectOptions('projects') });
    try {
      const kv = await nc.jetstream().views.kv('sml_dss');
      const left = async () => {
        const keys: string[] = [];
        for await (const k of await kv.keys(`${nameToken(carol.user)}.*`)) keys.push(k);
        return keys.length;
      };
      for (let i = 0; i < 50 && (await left()) > 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(await left()).toBe(0);
    } finally {
      await nc.close();
    }
  });

  it('preview: ≤ 128 rows with guessed types, creates nothing; escapes are 400s', async () => {
    const r = await alice.client.request<{ dataframe: { attributeNames: string[]; attributeTypes: string[]; data: string[][] } }>('POST', '/dss/sample/preview',
      { raw: enc(alice, { type: 'localfile', name: 'pv', info: { path: 'activity.csv' } }) });
    expect(r.status).toBe(200);
    expect(r.body.values!.dataframe.attributeNames).toEqual(['SensorLocation', 'Type', 'Place', 'Activity']);
    expect(r.body.values!.dataframe.attributeTypes).toEqual(['T', 'T', 'T', 'T']);
    expect(r.body.values!.dataframe.data).toHaveLength(128);
    expect((await alice.client.request('GET', '/dss/pv')).status).toBe(400);
    for (const path of ['link.csv', `../${nameToken(bob.user)}/secret.csv`, '/etc/passwd', 'nope.csv']) {
      const bad = await alice.client.request('POST', '/dss/sample/preview', { raw: enc(alice, { type: 'localfile', name: 'pv', info: { path } }) });
      expect(bad.status).toBe(400);
      expect(JSON.stringify(bad.body)).not.toContain('root:');
    }
    const sample = await alice.client.request<{ dataframe: { attributeTypes: string[]; data: string[][] } }>('GET', '/dss/irisgz/sample');
    expect(sample.status).toBe(200);
    expect(sample.body.values!.dataframe.attributeTypes.slice(0, 5)).toEqual(['C', 'C', 'C', 'C', 'B']);
  });

  it('dsbrowse lists the customer\'s own files', async () => {
    const r = await alice.client.request<{ dsdirectoryListing: { ok: boolean; dirs: string[]; files: string[]; path: string } }>('POST', '/projects/dsbrowse',
      { raw: enc(alice, { type: 'localfile', name: 'b', info: { path: '' } }) });
    expect(r.status).toBe(200);
    expect(r.body.values!.dsdirectoryListing).toMatchObject({ ok: true, dirs: ['sub'], path: '' });
    expect(r.body.values!.dsdirectoryListing.files).toContain('iris.csv');
    expect(r.body.values!.dsdirectoryListing.files).not.toContain('link.csv');
    const up = await alice.client.request('POST', '/projects/dsbrowse', { raw: enc(alice, { type: 'localfile', name: 'b', info: { path: '..' } }) });
    expect(up.status).toBe(400);
  });

  it('addds / detachds keep the project\'s dsList', async () => {
    await alice.client.createProject('p0');
    expect((await alice.client.request('GET', '/projects/p0/addds/iris')).status).toBe(200);
    expect((await alice.client.request('GET', '/projects/p0/addds/nope')).body.statusString).toBe("DS 'nope' not found");
    expect((await alice.client.projectInfo('p0')).body.values).toMatchObject({ smlInfo: { dsList: ['iris'] } });
    expect((await alice.client.request('GET', '/projects/p0/detachds/iris')).status).toBe(200);
    expect((await alice.client.projectInfo('p0')).body.values).not.toMatchObject({ smlInfo: { dsList: ['iris'] } });
  });

  it('learn from a data source = learning the same rows inline; forget undoes it; log and stats', async () => {
    await alice.client.createProject('ds');
    await alice.client.createProject('inline');
    const { names, rows } = readCsv('Iris_rtlm.csv');
    const types = names.map((_, i) => (i < 4 ? 'C' : 'B'));
    expect((await alice.client.learn('inline', { attributeNames: names, attributeTypes: types, data: rows })).status).toBe(200);
    const job = await alice.client.learnDataSource('ds', 'irisgz', { attributeNames: names, attributeTypes: types });
    expect([job.status, job.body.statusString]).toEqual([202, 'Job Created']);
    const done = await alice.client.waitForJob(job);
    expect(done.status).toBe(200);
    const [a, b] = [await reader.full(alice.user, 'ds'), await reader.full(alice.user, 'inline')];
    expect(a.rowCount).toBe(rows.length);
    expect(a.attributeNames).toEqual(b.attributeNames);
    for (const n of names) expect(a.mean(n)).toBeCloseTo(b.mean(n), 12);
    const log = await alice.client.request<{ dsLog: Array<{ ds: string; op: string; state: string; rowsLearned: number }> }>('GET', '/projects/ds/getDsLog');
    expect(log.body.values!.dsLog).toMatchObject([{ ds: 'irisgz', op: 'learn', state: 'done', rowsLearned: rows.length }]);
    const forget = await alice.client.waitForJob(await alice.client.learnDataSource('ds', 'iris', { attributeNames: names, attributeTypes: types }, { forget: true }));
    expect(forget.status).toBe(200);
    expect((await reader.full(alice.user, 'ds')).rowCount).toBe(0);
    const stats = await alice.client.request<{ lfStats: Record<string, number> }>('GET', '/projects/ds/getLFStats');
    expect(stats.body.values!.lfStats).toMatchObject({ learnJobs: 1, forgetJobs: 1, rowsLearned: rows.length, rowsForgotten: rows.length });
    // The learned state is durable: it survives an unload.
    await alice.client.waitForJob(await alice.client.request('POST', '/projects/ds/dss/iris/learn', { json: {} }));
    expect((await alice.client.request('GET', '/projects/ds/unload')).status).toBe(200);
    expect((await reader.full(alice.user, 'ds')).rowCount).toBe(rows.length);
  });

  it('a CR-only file with categorical columns learns every row', async () => {
    await create(alice, { type: 'localfile', name: 'act', info: { path: 'activity.csv' }, extra: ['T', 'T', 'T', 'T'] });
    await alice.client.createProject('act');
    const done = await alice.client.waitForJob(await alice.client.request('POST', '/projects/act/dss/act/learn', { json: {} }));
    expect(done.status).toBe(200);
    expect((await reader.full(alice.user, 'act')).rowCount).toBe(readCsv('activity_rtlm_no_lag.csv').rows.length);
  });

  it('strict: a bad cell or a short row fails the job naming file and line, nothing learned; lenient skips and counts', async () => {
    await alice.client.createProject('strict');
    await alice.client.learn('strict', { attributeNames: ['x', 'y'], attributeTypes: ['C', 'C'], data: [['10', '20']] });
    for (const [name, path, line] of [['bad', 'bad.csv', 'line 4'], ['short', 'short.csv', 'line 3'], ['open', 'open.csv', 'line 3']]) {
      await create(alice, { type: 'localfile', name, info: { path } });
      const failed = await alice.client.waitForJob(await alice.client.request('POST', `/projects/strict/dss/${name}/learn`, { json: { attributeNames: ['x', 'y'], attributeTypes: ['C', 'C'] } }));
      expect(failed.status).toBe(500);
      expect(failed.body.statusString).toContain(path);
      expect(failed.body.statusString).toContain(line);
      expect((await reader.full(alice.user, 'strict')).rowCount).toBe(1);
    }
    const lenient = await alice.client.waitForJob<{ learnReport: { rowsLearned: number; rowsSkipped: number } }>(
      await alice.client.request('POST', '/projects/strict/dss/bad/learn', { json: { attributeNames: ['x', 'y'], attributeTypes: ['C', 'C'], errorHandling: 1 } }));
    expect(lenient.status).toBe(200);
    expect(lenient.body.values!.learnReport).toMatchObject({ rowsLearned: 3, rowsSkipped: 1 });
    expect((await reader.full(alice.user, 'strict')).rowCount).toBe(4);
    const log = await alice.client.request<{ dsLog: Array<{ state: string; error: string }> }>('GET', '/projects/strict/getDsLog');
    expect(log.body.values!.dsLog.map((e) => e.state)).toEqual(['failed', 'failed', 'failed', 'done']);
  });

  it('a symlink out of the root, a missing file and an unknown source fail clearly; nothing learned', async () => {
    await create(alice, { type: 'localfile', name: 'link', info: { path: 'link.csv' } });
    await create(alice, { type: 'localfile', name: 'missing', info: { path: 'missing.csv' } });
    await alice.client.createProject('esc');
    for (const ds of ['link', 'missing']) {
      const r = await alice.client.waitForJob(await alice.client.request('POST', `/projects/esc/dss/${ds}/learn`, { json: {} }));
      expect(r.status).toBe(500);
      expect(JSON.stringify(r.body)).not.toContain('bob');
    }
    const unknown = await alice.client.request('POST', '/projects/esc/dss/never/learn', { json: {} });
    expect([unknown.status, unknown.body.statusString]).toEqual([400, "DS 'never' not found"]);
    expect((await reader.full(alice.user, 'esc')).rowCount).toBe(0);
  });

  it('a cancelled job leaves the project as it was', async () => {
    await create(alice, { type: 'localfile', name: 'big', info: { path: 'big.csv' } });
    await alice.client.createProject('big');
    const job = await alice.client.request('POST', '/projects/big/dss/big/learn', { json: { attributeNames: ['x', 'y'], attributeTypes: ['C', 'C'] } });
    await new Promise((r) => setTimeout(r, 50));
    await alice.client.cancelJob(job.headers['sym-job-id']);
    const r = await alice.client.waitForJob(job);
    expect(r.status).toBe(500);
    expect((await reader.full(alice.user, 'big')).rowCount).toBe(0);
  });
});

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encryptDsInfo, nameToken } from '@sml/core';
import { SmlClient } from '@sml/sdk';
import { newCustomer, sharedSystem, type SharedSystem } from '@sml/testkit';

// Every API.md §3 endpoint through the gateway, against the built encoders process and a
// real nats-server (rebuild first: `npx turbo run build`).
/** A new customer (a unique name from `user`), its secret kept by its name for the DSInfo it encrypts. */
async function customer(sys: SharedSystem, user: string): Promise<SmlClient> {
  const c = await newCustomer(sys, user);
  secrets.set(c.user, c.secret);
  return c.sdk;
}
const secrets = new Map<string, string>();

const frame = (names: string[], types: string[], data: unknown[][]) => ({ attributeNames: names, attributeTypes: types, data });
type FrameValues = { dataframe: { attributeNames: string[]; data: string[][] }; encoderInfo?: Record<string, string> };

describe('encoders end to end', () => {
  let sys: SharedSystem;
  beforeAll(async () => {
    sys = await sharedSystem('limits');
  });

  const job = async (a: SmlClient, r: { headers: Record<string, string> }) => {
    for (;;) {
      const j = await a.request('GET', `/jobs/${r.headers['sym-job-id']}`);
      if (j.status !== 202) return j;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it('learnds: a CSV data source learned as a job; a missing file or target fails the job whole; Spark checks answer 400 first', async () => {
    const a = await customer(sys, 'enc7');
    const dir = join(sys.dataDir, 'files', nameToken(a.user));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'clicks.csv'), 'site,tags,clicked\r\na,x|y,1\r\na,x,0\r\nb,y,1\r\n');
    writeFileSync(join(dir, 'notarget.csv'), 'site,other\na,1\n');
    const ds = (info: Record<string, string>, extra: string[], type = 'localfile') => ({ raw: encryptDsInfo({ type, name: 'd', info, extra }, secrets.get(a.user)!) });
    await a.request('POST', '/encoders/create', { query: 'encodername=e&targetName=clicked' });
    let r = await a.request('POST', '/encoders/e/learnds', ds({ path: 'clicks.csv' }, ['S', 'L', 'B']));
    expect([r.status, r.body.statusString, Boolean(r.headers['sym-job-id'])]).toEqual([202, 'Job Created', true]);
    let j = await job(a, r);
    expect([j.status, j.body.statusString]).toEqual([200, 'Job is finished']);
    r = await a.request('GET', '/encoders/e/keyvals/site');
    expect((r.body.values as FrameValues).dataframe.data).toEqual([['a', '2', '1.0'], ['b', '1', '1.0']]);
    for (const [info, extra] of [[{ path: 'missing.csv' }, ['S', 'B']], [{ path: 'notarget.csv' }, ['S', 'C']]] as const) {
      r = await a.request('POST', '/encoders/e/learnds', ds(info, [...extra]));
      expect(r.status).toBe(202);
      j = await job(a, r);
      expect(j.status).toBe(500);
    }
    r = await a.request('GET', '/encoders/e/keyvals/site');
    expect((r.body.values as FrameValues).dataframe.data).toEqual([['a', '2', '1.0'], ['b', '1', '1.0']]);
    r = await a.request('POST', '/encoders/e/learnds', ds({ sparkdf: 'site,tags' }, [], 'spark'));
    expect([r.status, r.body.statusString]).toEqual([400, 'Invalid Spark data source: info.sparkdf does not name the target column [clicked]']);
    r = await a.request('POST', '/encoders/nope/learnds', ds({ path: 'clicks.csv' }, ['S', 'L', 'B']));
    expect([r.status, r.body.statusString]).toEqual([400, 'Unknown Encoder [nope]']);
    r = await a.request('POST', '/encoders/e/learnds', { raw: encryptDsInfo(null, secrets.get(a.user)!) });
    expect(r.status).toBe(500);
  });

  it('create: 201 naming encoder, target and customer; 409 when it exists; 400 for a bad name or type', async () => {
    const a = await customer(sys, 'enc1');
    let r = await a.request('POST', '/encoders/create', { query: 'encodername=e1&targetName=clicked&encoderType=B', json: { values: [{ minTrimSize: '2' }] } });
    expect([r.status, r.body.statusString, r.body.values]).toEqual([201, `Encoder[e1] with Target[clicked] created for Customer[${a.user}]`, {}]);
    r = await a.request('POST', '/encoders/create', { query: 'encodername=e1&targetName=clicked' });
    expect([r.status, r.body.statusString]).toEqual([409, `Customer [${a.user}] already has an encoder named [e1]`]);
    r = await a.request('POST', '/encoders/create', { query: 'encodername=&targetName=clicked' });
    expect(r.status).toBe(400);
    r = await a.request('POST', '/encoders/create', { query: 'encodername=e2&targetName=clicked&encoderType=Q' });
    expect([r.status, r.body.statusString]).toEqual([400, 'Invalid encoderType [Q]: expected B (binary target) or C (continuous target)']);
    r = await a.request('GET', '/encoders');
    expect(r.body.values).toEqual({ stringList: { values: ['e1'] } });
  });

  it('learn, stats, keyvals, setValues, createKeyValues', async () => {
    const a = await customer(sys, 'enc2');
    await a.request('POST', '/encoders/create', { query: 'encodername=e&targetName=clicked', json: { values: [{ minTrimSize: '2' }] } });
    let r = await a.request('POST', '/encoders/e/learn', { json: frame(['site', 'tags', 'price', 'clicked'], ['S', 'L', 'C', 'B'], [['a', 'x|y', 1, 1], ['a', 'x', 2, 0], ['b', 'y', 3, 1], ['a', 'z', 4, 1]]) });
    expect([r.status, r.body.statusString, r.body.values]).toEqual([200, 'OK', {}]);
    r = await a.request('GET', '/encoders/e/stats');
    const stats = r.body.values as FrameValues;
    expect(stats.dataframe.attributeNames).toEqual(['key', 'type', 'count', 'mean', 'stddev', 'variance']);
    // site: a ×3, b ×1 → 2 values, counts mean 2, sample variance 2; tags: x 2, y 2, z 1.
    expect(stats.dataframe.data).toEqual([
      ['price', 'C', '0.0', '0.0', '0.0', '0.0'],
      ['site', 'S', '2.0', '2.0', String(Math.SQRT2), '2.0'],
      ['tags', 'L', '3.0', String(5 / 3), String(Math.sqrt(1 / 3)), String(1 / 3)],
    ]);
    expect(stats.encoderInfo).toEqual({ target: 'clicked', minTrimSize: '2', encoderType: 'B' });
    r = await a.request('GET', '/encoders/e/keyvals/site');
    expect((r.body.values as FrameValues).dataframe).toEqual({ attributeNames: ['Value', 'Count', 'Sum'], attributeTypes: ['S', 'C', 'C'], data: [['a', '3', '2.0'], ['b', '1', '1.0']], errorHandling: 0 });
    r = await a.request('POST', '/encoders/e/keyvals/site/setValues', { json: frame(['Value', 'Type', 'Count', 'Sum'], ['S', 'S', 'C', 'C'], [['b', 'S', '10', '4']]) });
    expect(r.status).toBe(200);
    r = await a.request('POST', '/encoders/e/createKeyValues', { json: frame(['Key', 'Value', 'Count', 'Sum'], ['S', 'S', 'C', 'C'], [['site', 'b', '2', '1'], ['device', 'ios', '5', '5']]) });
    expect(r.status).toBe(200);
    r = await a.request('GET', '/encoders/e/keyvals/site');
    expect((r.body.values as FrameValues).dataframe.data).toEqual([['a', '3', '2.0'], ['b', '12', '5.0']]);
    r = await a.request('GET', '/encoders/e/keyvals/device');
    expect((r.body.values as FrameValues).dataframe.data).toEqual([['ios', '5', '5.0']]);
    r = await a.request('GET', '/encoders/e/keyvals/nope');
    expect([r.status, r.body.statusString]).toEqual([400, 'Encoder [e] has no key [nope]']);
    r = await a.request('POST', '/encoders/e/keyvals/site/setValues', { json: frame(['Value', 'Sum'], ['S', 'C'], [['b', '4']]) });
    expect([r.status, r.body.statusString]).toEqual([400, 'the DataFrame needs the columns Value, Count, Sum; [Count] is missing']);
  });

  it('learn needs the target column and valid targets; unknown encoders answer the seed messages', async () => {
    const a = await customer(sys, 'enc3');
    await a.request('POST', '/encoders/create', { query: 'encodername=e&targetName=clicked' });
    let r = await a.request('POST', '/encoders/e/learn', { json: frame(['site'], ['S'], [['a']]) });
    expect([r.status, r.body.statusString]).toEqual([400, 'Invalid DataFrame at column [clicked]: the DataFrame has no target column [clicked]']);
    r = await a.request('POST', '/encoders/e/learn', { json: frame(['site', 'clicked'], ['S', 'B'], [['a', '1'], ['a', '7']]) });
    expect([r.status, r.body.statusString]).toEqual([400, 'Invalid DataFrame at row 2, column [clicked]: binary target [7] is not 0 or 1']);
    r = await a.request('GET', '/encoders/e/keyvals/site');
    expect(r.status).toBe(400); // nothing of the refused batch was kept
    for (const [method, path] of [['POST', '/encoders/nope/learn'], ['GET', '/encoders/nope/stats'], ['GET', '/encoders/nope/keyvals/k'], ['DELETE', '/encoders/nope']]) {
      r = await a.request(method, path, method === 'POST' ? { json: frame(['clicked'], ['B'], [[1]]) } : {});
      expect([path, r.status, r.body.statusString]).toEqual([path, 400, `Cannot Find Encoder[nope] for Customer[${a.user}].`]);
    }
  });

  it('bounded: distinct values per encoder and encoders per customer; a batch over the limit is refused whole', async () => {
    const a = await customer(sys, 'enc4');
    await a.request('POST', '/encoders/create', { query: 'encodername=e&targetName=y&encoderType=C' });
    const rows = (from: number, n: number) => Array.from({ length: n }, (_, i) => [`v${from + i}`, String(i / 2)]);
    let r = await a.request('POST', '/encoders/e/learn', { json: frame(['k', 'y'], ['S', 'C'], rows(0, 15)) });
    expect(r.status).toBe(200);
    r = await a.request('POST', '/encoders/e/learn', { json: frame(['k', 'y'], ['S', 'C'], rows(10, 11)) });
    expect([r.status, r.body.statusString]).toEqual([400, 'Encoder [e]: learning this batch would keep 21 distinct key values, over the limit of 20 (SML_MAX_ENCODER_VALUES); nothing was learned']);
    r = await a.request('GET', '/encoders/e/stats');
    expect((r.body.values as FrameValues).dataframe.data[0].slice(0, 3)).toEqual(['k', 'S', '15.0']);
    for (const e of ['f', 'g']) expect((await a.request('POST', '/encoders/create', { query: `encodername=${e}&targetName=y` })).status).toBe(201);
    r = await a.request('POST', '/encoders/create', { query: 'encodername=h&targetName=y' });
    expect([r.status, r.body.statusString]).toEqual([400, `Customer [${a.user}] already has 3 encoders, the limit (SML_MAX_ENCODERS_PER_CUSTOMER); delete one first`]);
    r = await a.request('DELETE', '/encoders/f');
    expect([r.status, r.body.statusString]).toEqual([200, 'Encoder[f] deleted']);
    expect((await a.request('GET', '/encoders')).body.values).toEqual({ stringList: { values: ['e', 'g'] } });
  });

  it('encoderAssign: the project learns S/L columns encoded; the encoder cannot be deleted while assigned', async () => {
    const a = await customer(sys, 'enc8');
    await a.request('POST', '/encoders/create', { query: 'encodername=e&targetName=clicked' });
    await a.request('POST', '/encoders/e/learn', { json: frame(['site', 'tags', 'clicked'], ['S', 'L', 'B'], [['a', 'x', 1], ['a', 'x|y', 0], ['a', 'y', 1], ['b', 'y', 0]]) });
    expect((await a.createProject('p')).status).toBe(201);
    let r = await a.request('GET', '/projects/p/encoderAssign', { query: 'encoderName=nope' });
    expect([r.status, r.body.statusString]).toEqual([400, `Cannot Find Encoder[nope] for Customer[${a.user}].`]);
    r = await a.request('GET', '/projects/p/encoderAssign', { query: 'encoderName=e' });
    expect([r.status, r.body.statusString]).toEqual([200, 'Encoder[e] assigned to project [p]']);
    // site a → 2/3, b → 0, unseen zz → the overall mean 1/2; tags x → 1/2, y → 1/3, x|y → (1/2 + 1/3)/2.
    r = await a.request('POST', '/projects/p/learn', { json: frame(['site', 'tags', 'clicked'], ['S', 'L', 'B'], [['a', 'x', 1], ['b', 'x|y', 0], ['zz', 'y', 1]]) });
    expect(r.status).toBe(200);
    r = await a.request('GET', '/projects/p/info');
    const info = (r.body.values as { smlInfo: { attributeNames: string[]; attributeTypes: string[] } }).smlInfo;
    expect([info.attributeNames, info.attributeTypes]).toEqual([['site', 'tags', 'clicked'], ['C', 'C', 'B']]);
    r = await a.request('POST', '/projects/p/explore', { query: { metric: 'uni', returnProjectInfo: 'false' }, json: { values: [{ inputAttributeNames: ['site'], extraParameters: {} }, { inputAttributeNames: ['tags'], extraParameters: {} }] } });
    const maps = (r.body.values as { KSVDMap: { values: Array<Record<string, number>> } }).KSVDMap.values;
    expect(maps[0].mean).toBeCloseTo((2 / 3 + 0 + 1 / 2) / 3, 12);
    expect(maps[1].mean).toBeCloseTo((1 / 2 + (1 / 2 + 1 / 3) / 2 + 1 / 3) / 3, 12);
    r = await a.request('DELETE', '/encoders/e');
    expect([r.status, r.body.statusString]).toEqual([409, 'Encoder [e] is used by project(s) [p]; delete them first']);
    expect((await a.request('DELETE', '/projects/p')).status).toBe(200);
    expect((await a.request('DELETE', '/encoders/e')).status).toBe(200);
  });

  it('a project with an encoder predicts its S columns encoded, as it learned them', async () => {
    const a = await customer(sys, 'enc9');
    await a.request('POST', '/encoders/create', { query: 'encodername=e&targetName=y&encoderType=C' });
    await a.request('POST', '/encoders/e/learn', { json: frame(['site', 'y'], ['S', 'C'], [['a', 9], ['a', 11], ['b', 20], ['c', 30]]) });
    expect((await a.createProject('q')).status).toBe(201);
    await a.request('GET', '/projects/q/encoderAssign', { query: 'encoderName=e' });
    // y = site's encoding (a 10, b 20, c 30) + 2·x, exactly: mlr finds 1 and 2.
    const rows = Array.from({ length: 30 }, (_, i) => { const site = 'abc'[i % 3]; const x = (i * 7) % 11; return [site, x, { a: 10, b: 20, c: 30 }[site]! + 2 * x]; });
    expect((await a.request('POST', '/projects/q/learn', { json: frame(['site', 'x', 'y'], ['S', 'C', 'C'], rows) })).status).toBe(200);
    const r = await a.request('POST', '/projects/q/build', { query: { modelid: 'm', algo: 'mlr' }, json: { inputAttributeNames: ['site', 'x'], targetAttributeNames: ['y'], extraParameters: {} } });
    expect(r.status).toBe(202);
    expect((await job(a, r)).status).toBe(200);
    const p = await a.request('POST', '/projects/q/predict/m', { json: frame(['site', 'x'], ['S', 'C'], [['b', 1], ['zz', 0]]) });
    const predictions = (p.body.values as { KSVSMap: { values: Array<Record<string, string>> } }).KSVSMap.values.map((m) => Object.values(m).map(Number));
    // zz was never seen: the overall mean of the encoder's target, (9 + 11 + 20 + 30) / 4.
    expect(predictions[0].some((n) => Math.abs(n - 22) < 1e-6) && predictions[1].some((n) => Math.abs(n - 17.5) < 1e-6)).toBe(true);
    // A frame of C columns only travels as columns; with an encoder the projects service reads it
    // as rows again: the same answer as the same rows sent with a text column (which go as rows).
    const asColumns = await a.request('POST', '/projects/q/predict/m', { json: frame(['x'], ['C'], [[1], [0]]) });
    const asRows = await a.request('POST', '/projects/q/predict/m', { json: frame(['x', 'note'], ['C', 'X'], [[1, 'n'], [0, 'n']]) });
    expect(asColumns.status).toBe(200);
    expect(asColumns.body).toEqual(asRows.body);
  });

  it("a customer never sees another's encoders", async () => {
    const a = await customer(sys, 'enc5');
    const b = await customer(sys, 'enc6');
    await a.request('POST', '/encoders/create', { query: 'encodername=shared&targetName=y' });
    expect((await b.request('GET', '/encoders')).body.values).toEqual({ stringList: { values: [] } });
    expect((await b.request('GET', '/encoders/shared/stats')).status).toBe(400);
    expect((await b.request('POST', '/encoders/create', { query: 'encodername=shared&targetName=y' })).status).toBe(201);
  });
});

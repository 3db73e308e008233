import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SmlClient } from '@sml/sdk';
import { newCustomer, sharedSystem } from '@sml/testkit';
import { expectClose, readCsv } from '../../projects/test/helpers';

// Expected values: numpy on the same file (services/projects/test/fixtures/gen_iris_moments.py).
const iris = JSON.parse(readFileSync(join(__dirname, '../../projects/test/fixtures/iris_moments.json'), 'utf8'));
const IRIS_TYPES = ['C', 'C', 'C', 'C', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B'];
const ctx = (inputs: (string | number)[], targets: (string | number)[] = [], extra: Record<string, string> = {}) =>
  ({ inputAttributes: inputs.map(String), targets: targets.map(String), extraParameters: extra });
type Maps = Array<Record<string, number | string>>;

describe('explore end to end', () => {
  let alice: SmlClient;
  const explore = (metric: string, values: unknown[], query: Record<string, string> = {}) =>
    alice.request('POST', '/projects/iris/explore', { query: { metric, ...query }, json: { values } });

  beforeAll(async () => {
    alice = (await newCustomer(await sharedSystem(), 'alice')).sdk;
    await alice.createProject('iris', { enableHistogram: true });
    const { names, rows } = readCsv('Iris_rtlm.csv');
    const r = await alice.learn('iris', { attributeNames: names, attributeTypes: IRIS_TYPES, data: rows, errorHandling: 0 });
    expect(r.status).toBe(200);
  });
  afterAll(() => alice?.close());

  it('uni and bi match numpy on Iris, by index and by name; smlInfo comes along unless returnProjectInfo=false', async () => {
    const r = await explore('uni', [ctx([0]), { inputAttributeNames: ['petal_width'], extraParameters: {} }]);
    expect(r.status).toBe(200);
    const [sepal, petal] = (r.body.values as { KSVDMap: { values: Maps } }).KSVDMap.values;
    expect(sepal.count).toBe(150);
    expectClose(Number(sepal.mean), iris.moments.sepal_length.sum / 150);
    expectClose(Number(sepal.variance), iris.populationCovariance[0][0]);
    expectClose(Number(petal.variance), iris.populationCovariance[3][3]);
    expect((r.body.values as { smlInfo: { pid: string } }).smlInfo.pid).toBe('iris');

    const bi = await explore('bi', [ctx([0, 2])], { returnProjectInfo: 'false' });
    const m = (bi.body.values as { KSVDMap: { values: Maps } }).KSVDMap.values[0];
    expectClose(Number(m.covar), iris.populationCovariance[0][2]);
    expectClose(Number(m.linCorr), iris.populationCovariance[0][2] / Math.sqrt(iris.populationCovariance[0][0] * iris.populationCovariance[2][2]));
    expect('smlInfo' in (bi.body.values as object)).toBe(false);
  });

  it('a cached summary is never stale: learning, forgetting and reloading show up in the next explore', async () => {
    await alice.createProject('fresh');
    const count = async () => Number(((await alice.request('POST', '/projects/fresh/explore', { query: { metric: 'uni', returnProjectInfo: 'false' }, json: { values: [{ inputAttributeNames: ['x'], extraParameters: {} }] } })).body.values as { KSVDMap: { values: Maps } }).KSVDMap.values[0].count);
    const x = (rows: number[]) => ({ attributeNames: ['x'], attributeTypes: ['C'], data: rows.map((v) => [String(v)]), errorHandling: 0 });
    await alice.learn('fresh', x([1, 2, 3]));
    expect(await count()).toBe(3);
    expect(await count()).toBe(3);
    await alice.learn('fresh', x([4]));
    expect(await count()).toBe(4);
    await alice.forget('fresh', x([1, 2]));
    expect(await count()).toBe(2);
    await alice.request('GET', '/projects/fresh/unload');
    expect(await count()).toBe(2);
    await alice.deleteProject('fresh');
    await alice.createProject('fresh');
    await alice.learn('fresh', x([9]));
    expect(await count()).toBe(1);
  });

  it('async explore is a job with the same result', async () => {
    const sync = await explore('ttest', [ctx([0, 1])], { returnProjectInfo: 'false' });
    const job = await alice.waitForJob(await explore('ttest', [ctx([0, 1])], { returnProjectInfo: 'false', async: 'true' }));
    expect(job.body.statusString).toBe('Job is finished');
    expect(job.body.values).toEqual(sync.body.values);
  });

  it.each([
    ['an unknown metric', 'median', [ctx([0])], 'bad metric:[median]'],
    ['a metric with a control character (shown escaped)', 'uni\r', [ctx([0])], 'bad metric:[uni\\r]'],
    ['a missing known value', 'ztestmu', [ctx([0])], 'Metric ztestmu needs extraParameters.sml_explore_ztest_known_mu'],
    ['an unknown attribute name', 'uni', [{ inputAttributeNames: ['nope'], extraParameters: {} }], 'Unknown attribute [nope] in project [iris]'],
    ['an unknown attribute index', 'uni', [ctx([99])], 'Unknown attribute [99] in project [iris]'],
  ])('%s → 400 naming it', async (_what, metric, values, message) => {
    const r = await explore(metric, values);
    expect(r.body).toEqual({ statusCode: 400, statusString: message, values: {} });
  });

  it('an empty ExploreContext answers an empty list; a non-numeric known value is a 400 naming the key', async () => {
    const empty = await explore('uni', [], { returnProjectInfo: 'false' });
    expect(empty.body).toEqual({ statusCode: 200, statusString: 'OK', values: { KSVDMap: { values: [] } } });
    const bad = await explore('ttestmu', [ctx([0], [], { sml_explore_ttest_known_mu: 'five' })]);
    expect(bad.status).toBe(400);
    expect(bad.body.statusString).toContain('sml_explore_ttest_known_mu');
  });

  it('a flat MLContext (not under values) → 400 saying to wrap it, on explore, densityEstimate and the matrix routes; another unknown key too', async () => {
    const flat = { inputAttributeNames: ['sepal_length'], extraParameters: {} };
    for (const path of ['/projects/iris/explore', '/projects/iris/densityEstimate', '/projects/iris/explorepca']) {
      const r = await alice.request('POST', path, { query: { metric: 'uni' }, json: flat });
      expect({ path, body: r.body }).toEqual({ path, body: {
        statusCode: 400, values: {},
        statusString: expect.stringContaining('body: an ExploreContext is {"values": [MLContext, …]}; unknown keys "inputAttributeNames", "extraParameters" (inputAttributeNames, extraParameters are keys of an MLContext: wrap the MLContext as {"values": [{…}]})'),
      } });
    }
    const typo = await alice.request('POST', '/projects/iris/explore', { query: { metric: 'uni' }, json: { value: [flat] } });
    expect(typo.status).toBe(400);
    expect(typo.body.statusString).toContain('unknown key "value"');
    expect(typo.body.statusString).not.toContain('wrap');
  });

  it('too few attributes and a continuous attribute where a binary is required → 400', async () => {
    expect((await explore('bi', [ctx([0])])).status).toBe(400);
    expect((await explore('ztestp', [ctx([0, 1])])).status).toBe(400);
  });

  it('densityEstimate bins the whole attribute; missing values → empty list; histograms off → exact 400', async () => {
    const r = await alice.request('POST', '/projects/iris/densityEstimate', { query: { tps: '2' }, json: { values: [{ inputAttributeNames: ['sepal_length'], extraParameters: { hist_bins: '10' } }] } });
    expect(r.status).toBe(200);
    const d = (r.body.values as { densityList: { values: Array<{ attrName: string; min: number; max: number; width: number; histogram: number[] }> } }).densityList.values[0];
    expect(d.attrName).toBe('sepal_length');
    expect(d.histogram).toHaveLength(10);
    expect(d.histogram.reduce((a, b) => a + b, 0)).toBe(150);
    expectClose(d.min, iris.moments.sepal_length.min);
    expectClose(d.max, iris.moments.sepal_length.max);
    const empty = await alice.request('POST', '/projects/iris/densityEstimate', { json: {} });
    expect(empty.body).toEqual({ statusCode: 200, statusString: 'OK', values: { densityList: { values: [] } } });

    await alice.request('POST', '/projects/iris/histogramEnable', { query: { enable: 'false' } });
    const off = await alice.request('POST', '/projects/iris/densityEstimate', { json: { values: [{ inputAttributeNames: ['sepal_length'], extraParameters: {} }] } });
    expect(off.body).toEqual({ statusCode: 400, statusString: `Histograms for project id[iris] for Customer id [${alice.user}] are not enabled`, values: {} });
    await alice.request('POST', '/projects/iris/histogramEnable', { query: { enable: 'true' } });
  });

  it('tps spreads entries over worker threads with the same results as inline', async () => {
    const values = ['sepal_length', 'sepal_width', 'petal_length', 'petal_width'].map((n) => ({ inputAttributeNames: [n], extraParameters: { hist_bins: '7' } }));
    const inline = await alice.request('POST', '/projects/iris/densityEstimate', { query: { tps: '1' }, json: { values } });
    const pooled = await alice.request('POST', '/projects/iris/densityEstimate', { query: { tps: '4' }, json: { values } });
    expect(inline.status).toBe(200);
    expect(pooled.body).toEqual(inline.body);
    const bad = await alice.request('POST', '/projects/iris/densityEstimate', { query: { tps: '4' }, json: { values: [...values, { inputAttributeNames: ['nope'], extraParameters: {} }] } });
    expect(bad.body.statusString).toBe('Unknown attribute [nope] in project [iris]');
  });

  it('conditional density: conditional_pair naming; 3 names → the seed 500', async () => {
    const r = await alice.request('POST', '/projects/iris/conditionalDensityEstimate', { json: { values: [{ inputAttributeNames: ['Iris_setosa', 'sepal_length'], extraParameters: { hist_bins: '5' } }] } });
    expect(r.status).toBe(200);
    const d = (r.body.values as { densityList: { values: Array<{ attrName: string; histogram: number[] }> } }).densityList.values[0];
    expect(d.attrName).toBe('conditional_pair[Iris_setosa,sepal_length]');
    expect(d.histogram.reduce((a, b) => a + b, 0)).toBe(50);
    const three = await alice.request('POST', '/projects/iris/conditionalDensityEstimate', { json: { values: [{ inputAttributeNames: ['a', 'b', 'c'], extraParameters: {} }] } });
    expect(three.body.statusString).toBe('Generic Exception [java.lang.Exception: There should be 2 and only 2 attributes specified [3]]');
    expect(three.status).toBe(500);
  });

  it('matrix explorations run as jobs', async () => {
    const noTarget = await alice.request('POST', '/projects/iris/exploresvdfs', { json: { values: [ctx([0, 1])] } });
    expect(noTarget.body).toEqual({ statusCode: 400, statusString: 'Less than 1 target for svd', values: {} });
    const fs = await alice.waitForJob(await alice.request('POST', '/projects/iris/exploresvdfs', { json: { values: [ctx([0, 1, 2, 3], [12])] } }));
    const kept = (fs.body.values as { KSVSMap: { values: Array<Record<string, string>> } }).KSVSMap.values[0];
    expect(Object.values(kept).every((n) => iris.names.slice(0, 4).includes(n))).toBe(true);
    const bad = await alice.waitForJob(await alice.request('POST', '/projects/iris/exploresvdfs', { json: { values: [{ inputAttributeNames: ['zz1', 'zz2'], targetAttributeNames: ['zz3'], extraParameters: {} }] } }));
    expect(bad.status).toBe(500);
    const pca = await alice.waitForJob(await alice.request('POST', '/projects/iris/explorepca', { json: { values: [ctx([0, 1, 2, 3])] } }));
    const p = (pca.body.values as { pcaList: Array<{ pcaValues: number[]; pcaVectors: number[][] }> }).pcaList[0];
    expect(p.pcaValues).toHaveLength(4);
    expect(p.pcaVectors).toHaveLength(4);
    const vif = await alice.waitForJob(await alice.request('POST', '/projects/iris/vif', { json: { values: [ctx([0, 1, 2, 3])] } }));
    const v = (vif.body.values as { KSVDMap: { values: Maps } }).KSVDMap.values[0];
    expect(Object.keys(v).sort()).toEqual(iris.names.slice(0, 4).sort());
  });

  it('Kaplan-Meier and cumulative incidence on a survival project', async () => {
    await alice.createProject('surv', { params: { km_time_column: 't', km_event_column: 'e', km_group_column: 'g' } });
    const rows = Array.from({ length: 40 }, (_, k) => [String(k + 1), String((k + 1) % 3), k % 2 ? 'A' : 'b']);
    await alice.learn('surv', { attributeNames: ['t', 'e', 'g'], attributeTypes: ['C', 'C', 'T'], data: rows, errorHandling: 0 });
    const km = await alice.request('POST', '/projects/surv/km/kaplanmeier', { json: { values: [{ type: 'survival', times: [5, 10, 20] }] } });
    expect(km.status).toBe(200);
    const res = (km.body.values as { kmResultList: { values: Array<Record<string, { attributeNames: string[]; data: string[][] }>> } }).kmResultList.values[0];
    expect(Object.keys(res).sort()).toEqual(['Total', 'a', 'b']);
    expect(res.Total.attributeNames).toEqual(['time', 'survival', 'lower', 'upper', 'atRisk', 'events']);
    const s = res.Total.data.map((r) => Number(r[1]));
    expect(s[0]).toBeGreaterThanOrEqual(s[1]);
    expect(s[1]).toBeGreaterThanOrEqual(s[2]);
    for (const [alpha, type] of [[0, 'survival'], [1, 'survival'], [0.05, 'cumhaz']] as const) {
      expect((await alice.request('POST', '/projects/surv/km/kaplanmeier', { json: { values: [{ type, times: [5], alpha }] } })).status).toBe(400);
    }
    expect((await alice.request('POST', '/projects/iris/km/kaplanmeier', { json: { values: [{ type: 'survival', times: [5] }] } })).status).toBe(400);
    const negative = await alice.request('POST', '/projects/surv/km/kaplanmeier', { json: { values: [{ type: 'survival', times: [-1] }] } });
    expect(negative.status).toBe(400);

    const cif = await alice.request('POST', '/projects/surv/cif/predictEvent', { json: { values: [{ k: 1, group: 'a', times: [5, 10] }, { k: 2, group: 'b', times: [7] }] } });
    expect(cif.status).toBe(200);
    const v = (cif.body.values as { cifPredictionList: { values: Array<{ sdfmap: Record<string, { attributeNames: string[]; data: string[][] }> }> } }).cifPredictionList.values;
    expect(v[0].sdfmap.a.attributeNames).toEqual(['time', 'event_1']);
    expect(v[0].sdfmap.a.data).toHaveLength(2);
    expect(v[1].sdfmap.b.attributeNames).toEqual(['time', 'event_2']);
  });
});

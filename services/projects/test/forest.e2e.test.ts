import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nameToken } from '@sml/core';
import { SmlClient } from '@sml/sdk';
import { newCustomer, sharedSystem, type SharedSystem } from '@sml/testkit';
import { frame } from './helpers';

// rf_classifier, rf_regressor and rf_anomaly through the gateway (issue 13): a project created
// with rf_* parameters (SymetryML's names) keeps an online Mondrian forest while it learns;
// each model is built from it (build and selectModel) and predicts its keys; the forest is part
// of the project's persisted summary, so an unload (snapshot + log replay) and a rebuild give
// the same predictions; forget leaves the forest as it is. Accuracy against scikit-learn is
// checked in packages/stats/test/models/forest.

describe('online forests end to end', () => {
  let sys: SharedSystem;
  let sdk: SmlClient;

  // label = 1 inside the disc of radius 1.2 (13 % of the rows), y a smooth function; outliers: the 8 corners of [-10, 10]³.
  const names = ['x1', 'x2', 'x3', 'label', 'y'];
  const types = ['C', 'C', 'C', 'B', 'C'];
  const rows = Array.from({ length: 900 }, (_, i) => {
    const [x1, x2, x3] = [Math.sin(i * 12.9898) * 2, Math.cos(i * 78.233) * 2, Math.sin(i * 3.7) * 2];
    return [x1, x2, x3, x1 * x1 + x2 * x2 < 1.44 ? 1 : 0, 3 * Math.sin(x1) + x2 * x2 + 0.1 * x3];
  });
  const outliers = Array.from({ length: 8 }, (_, i) => [i & 1 ? 10 : -10, i & 2 ? 10 : -10, i & 4 ? 10 : -10, 0, 0]);
  const probe = frame(['x1', 'x2', 'x3'], ['C', 'C', 'C'], [[0, 0.1, 0], [1.9, 1.9, 0], [-0.5, 0.4, 1], [1, -1.5, -1]]);

  const job = async (pending: Promise<{ status: number }>) => {
    const r = await pending;
    expect(r.status).toBe(202);
    const done = await sdk.waitForJob(r as Parameters<SmlClient['waitForJob']>[0]);
    expect({ status: done.status, message: done.body.statusString }).toEqual({ status: 200, message: 'Job is finished' });
    return done.body.values as { modelInfo: { info: Record<string, string>; inputAttributeNames: string[]; assessment?: Record<string, number> } };
  };
  const build = (pid: string, modelid: string, algo: string, mlcontext: Record<string, unknown> = {}) =>
    job(sdk.request('POST', `/projects/${pid}/build`, { query: { modelid, algo }, json: { extraParameters: {}, ...mlcontext } }));
  const predict = async (pid: string, modelid: string, body = probe) => {
    const r = await sdk.request('POST', `/projects/${pid}/predict/${modelid}`, { json: body });
    expect(r.status).toBe(200);
    return (r.body.values as { KSVSMap: { values: Array<Record<string, string>> } }).KSVSMap.values;
  };
  const learn = async (pid: string, data: number[][]) => {
    for (let b = 0; b < data.length; b += 300) expect((await sdk.learn(pid, frame(names, types, data.slice(b, b + 300)))).status).toBe(200);
  };

  beforeAll(async () => {
    sys = await sharedSystem();
    sdk = (await newCustomer(sys, 'forester')).sdk;
  });
  afterAll(() => sdk?.close());

  it('create checks the rf_* parameters: 400 naming the parameter', async () => {
    for (const [params, name] of [
      [{ rf_type: 'rf_tree', rf_target_name: 'y' }, 'rf_type'],
      [{ rf_type: 'rf_regressor' }, 'rf_target_name'],
      [{ rf_type: 'rf_regressor', rf_target_name: 'y', rf_num_trees: '1000' }, 'rf_num_trees'],
      [{ rf_type: 'rf_classifier', rf_target_name: 'label', rf_features: 'x1:label' }, 'rf_features'],
    ] as const) {
      const r = await sdk.request('POST', '/projects', { query: { pid: 'bad' }, json: params });
      expect(r.status).toBe(400);
      expect(r.body.statusString).toContain(name);
    }
  });

  it('rf_classifier: learns, builds, predicts res and p_<class>; selectModel assesses it; unload + rebuild predicts the same; forget leaves the forest', async () => {
    expect((await sdk.createProject('rfc', { params: { rf_type: 'rf_classifier', rf_target_name: 'label', rf_features: 'x1:x2:x3', rf_num_trees: '10' } })).status).toBe(201);
    await learn('rfc', rows);
    const built = await build('rfc', 'c1', 'rf_classifier', { targetAttributeNames: ['label'] });
    expect(built.modelInfo.inputAttributeNames).toEqual(['x1', 'x2', 'x3']);
    expect(built.modelInfo.info).toMatchObject({ n: '900', rf_num_trees: '10' });
    const before = await predict('rfc', 'c1');
    for (const p of before) {
      expect(Object.keys(p).sort()).toEqual(['p_0', 'p_1', 'res']);
      expect(Number(p.p_0) + Number(p.p_1)).toBeCloseTo(1, 9);
    }
    expect(before.map((p) => p.res)).toEqual(['1', '0', '1', '0']);

    const selected = await job(sdk.request('POST', '/projects/rfc/selectModel', {
      query: { modelid: 'c2', algo: 'rf_classifier' },
      json: { mlcontext: { inputAttributeNames: ['x1', 'x2', 'x3'], targetAttributeNames: ['label'], extraParameters: {} }, dataframe: frame(names, types, rows.slice(0, 300)) },
    }));
    expect(selected.modelInfo.assessment!.accuracy).toBeGreaterThan(0.9);

    expect((await sdk.request('GET', '/projects/rfc/unload')).status).toBe(200);
    expect(await predict('rfc', 'c1')).toEqual(before);
    await build('rfc', 'c3', 'rf_classifier');
    expect(await predict('rfc', 'c3')).toEqual(before);

    expect((await sdk.forget('rfc', frame(names, types, rows.slice(0, 300)))).status).toBe(200);
    await build('rfc', 'c4', 'rf_classifier');
    expect(await predict('rfc', 'c4')).toEqual(before);
  });

  it('rf_regressor: builds and predicts res close to the function learned', async () => {
    expect((await sdk.createProject('rfr', { params: { rf_type: 'rf_regressor', rf_target_name: 'y', rf_features: 'x1:x2:x3' } })).status).toBe(201);
    await learn('rfr', rows);
    await build('rfr', 'r1', 'rf_regressor');
    const p = await predict('rfr', 'r1', frame(['x1', 'x2', 'x3'], ['C', 'C', 'C'], rows.slice(0, 50).map((r) => r.slice(0, 3))));
    expect(p.every((q) => Object.keys(q).join() === 'res')).toBe(true);
    const error = p.reduce((s, q, i) => s + (Number(q.res) - rows[i][4]) ** 2, 0) / p.length;
    const spread = rows.slice(0, 50).reduce((s, r) => s + r[4] ** 2, 0) / 50;
    expect(error).toBeLessThan(0.1 * spread);
  });

  it('rf_anomaly: builds without a target and scores the planted outliers above every other row', async () => {
    expect((await sdk.createProject('rfa', { params: { rf_type: 'rf_anomaly', rf_features: 'x1:x2:x3' } })).status).toBe(201);
    await learn('rfa', [...rows.slice(0, 600), ...outliers]);
    await build('rfa', 'a1', 'rf_anomaly');
    const p = await predict('rfa', 'a1', frame(['x1', 'x2', 'x3'], ['C', 'C', 'C'], [...rows.slice(0, 100), ...outliers].map((r) => r.slice(0, 3))));
    const scores = p.map((q) => Number(q.score));
    for (const s of scores) expect(s >= 0 && s <= 1).toBe(true);
    expect(Math.min(...scores.slice(100))).toBeGreaterThan(Math.max(...scores.slice(0, 100)));
  });

  it('a forest at its node cap builds and stores its model (≈ 5.3 MB of state: under NATS\' max_payload) and its snapshot', async () => {
    const wide = Array.from({ length: 20 }, (_, j) => `f${j}`);
    expect((await sdk.createProject('rfcap', { params: { rf_type: 'rf_regressor', rf_target_name: 't', rf_features: wide.join(':') } })).status).toBe(201);
    const data = Array.from({ length: 6000 }, (_, i) => [...wide.map((_, j) => Math.sin(i * (j + 1) * 1.618) * 3), Math.cos(i * 0.37)]);
    for (let b = 0; b < data.length; b += 3000) {
      expect((await sdk.learn('rfcap', frame([...wide, 't'], [...wide.map(() => 'C'), 'C'], data.slice(b, b + 3000)))).status).toBe(200);
    }
    const built = await build('rfcap', 'cap', 'rf_regressor');
    // The regressor splits on every row outside a leaf's box: every tree reaches its cap.
    expect(Number(built.modelInfo.info.nodes)).toBe(10 * Number(built.modelInfo.info.max_nodes_per_tree));
    const probeWide = frame(wide, wide.map(() => 'C'), data.slice(0, 3).map((r) => r.slice(0, 20)));
    const p = await predict('rfcap', 'cap', probeWide);
    expect(p).toHaveLength(3);
    // Its snapshot (≈ 34 MB of forest) is written and read back: a rebuild predicts the same.
    expect((await sdk.request('GET', '/projects/rfcap/unload')).status).toBe(200);
    await build('rfcap', 'cap2', 'rf_regressor');
    expect(await predict('rfcap', 'cap2', probeWide)).toEqual(p);
  });

  it('a data-source learn into a project with rows reaches its forest: the same forest as learning every row through REST', async () => {
    const params = { rf_type: 'rf_regressor', rf_target_name: 'y', rf_features: 'x1:x2:x3' };
    const files = join(sys.dataDir, 'files', nameToken(sdk.user));
    mkdirSync(files, { recursive: true });
    writeFileSync(join(files, 'rest.csv'), [names.join(','), ...rows.slice(300).map((r) => r.join(','))].join('\n') + '\n');
    expect((await sdk.createDataSource({ type: 'localfile', name: 'rest', info: { path: 'rest.csv' }, extra: types })).status).toBe(201);
    for (const pid of ['rfds', 'rfrest']) expect((await sdk.createProject(pid, { params })).status).toBe(201);
    await learn('rfds', rows.slice(0, 300));
    await job(sdk.learnDataSource('rfds', 'rest'));
    await learn('rfrest', rows);
    const probe50 = frame(['x1', 'x2', 'x3'], ['C', 'C', 'C'], rows.slice(0, 50).map((r) => r.slice(0, 3)));
    const viaSource = await build('rfds', 'm', 'rf_regressor');
    const viaRest = await build('rfrest', 'm', 'rf_regressor');
    expect(viaSource.modelInfo.info.n).toBe('900');
    expect(viaSource.modelInfo.info.nodes).toBe(viaRest.modelInfo.info.nodes);
    expect(await predict('rfds', 'm', probe50)).toEqual(await predict('rfrest', 'm', probe50));
  });

  it('a model of another rf_type than the project\'s forest fails its job with a 400 naming it', async () => {
    const r = await sdk.request('POST', '/projects/rfr/build', { query: { modelid: 'wrong', algo: 'rf_classifier' }, json: { extraParameters: {} } });
    const failed = r.status === 202 ? await sdk.waitForJob(r).catch((e: unknown) => e) : r;
    expect(JSON.stringify((failed as { body?: unknown }).body ?? failed)).toContain('rf_type rf_regressor');
  });
});

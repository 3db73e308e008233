import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nameToken } from '@sml/core';
import { SmlClient } from '@sml/sdk';
import { newCustomer, sharedSystem, startSystem, type RunningSystem } from '@sml/testkit';
import { customer } from './helpers';

// autoSelect (both forms) and learnpredict through the gateway (API.md §12).

type Info = {
  algo: string; inputAttributeNames: string[]; targetAttributeNames: string[]; assessment: Record<string, number>;
  info: Record<string, string>; extra: Record<string, string>; params: Record<string, string>;
};
type Entry = { algo: string; params: Record<string, string>; inputs: string[]; score: number; assessment: Record<string, number> };

/** Iris-like rows: three one-hot classes, four measurements that separate them (with overlap). */
function iris(n: number, offset: number): string[][] {
  return Array.from({ length: n }, (_, k) => {
    const i = k + offset;
    const cls = i % 3;
    const sl = 4.5 + cls * 1.1 + ((i * 7) % 10) / 10;
    const sw = 3.4 - cls * 0.3 + ((i * 3) % 7) / 10;
    const pl = 1.4 + cls * 2.1 + ((i * 5) % 9) / 10;
    const pw = 0.2 + cls * 0.9 + ((i * 11) % 5) / 10;
    return [sl, sw, pl, pw, cls === 0 ? 1 : 0, cls === 1 ? 1 : 0, cls === 2 ? 1 : 0].map((v) => String(Math.round(v * 100) / 100));
  });
}
const NAMES = ['sepal_length', 'sepal_width', 'petal_length', 'petal_width', 'Iris_setosa', 'Iris_versicolor', 'Iris_virginica'];
const TYPES = ['C', 'C', 'C', 'C', 'B', 'B', 'B'];
const train = { attributeNames: NAMES, attributeTypes: TYPES, data: iris(150, 0) };
const score = { attributeNames: NAMES, attributeTypes: TYPES, data: iris(60, 1000) };

const TASKS = [
  { task: 'regression', inputs: ['sepal_length', 'sepal_width', 'petal_width'], targets: ['petal_length'], criterion: 'rmse' },
  { task: 'binary_classifier', inputs: ['sepal_length', 'sepal_width', 'petal_length', 'petal_width'], targets: ['Iris_virginica'], criterion: 'auc' },
  { task: 'binary_classification', inputs: ['sepal_length', 'sepal_width', 'petal_length', 'petal_width'], targets: ['Iris_virginica'], criterion: 'auc' },
  { task: 'multiclass_classifier', inputs: ['sepal_length', 'sepal_width', 'petal_length', 'petal_width'], targets: ['Iris_setosa', 'Iris_versicolor', 'Iris_virginica'], criterion: 'mf1_w' },
];
const ctxOf = (c: (typeof TASKS)[number], extra: Record<string, string> = {}) => ({ inputAttributeNames: c.inputs, targetAttributeNames: c.targets, extraParameters: { rnd_seed: '1', ...extra } });

describe('autoSelect and learnpredict end to end', () => {
  let sdk: SmlClient;

  const finished = async (r: Awaited<ReturnType<SmlClient['request']>>) => {
    expect(r.status).toBe(202);
    const done = await sdk.waitForJob<{ modelInfo: Info }>(r, { timeoutMs: 170_000 });
    expect({ status: done.status, message: done.body.statusString }).toEqual({ status: 200, message: 'Job is finished' });
    return done.body.values!.modelInfo;
  };
  const leaderboard = (m: Info): Entry[] => JSON.parse(m.extra.leaderboard) as Entry[];
  const results = new Map<string, Info>();

  beforeAll(async () => {
    const sys = await sharedSystem();
    sdk = (await newCustomer(sys, 'auto')).sdk;
    const files = join(sys.dataDir, 'files', nameToken(sdk.user));
    mkdirSync(files, { recursive: true });
    writeFileSync(join(files, 'score.csv'), [NAMES.join(','), ...score.data.map((r) => r.join(','))].join('\n') + '\n');
    expect((await sdk.createDataSource({ type: 'localfile', name: 'score', info: { path: 'score.csv' }, extra: TYPES })).status).toBe(201);
    for (const pid of ['p', 'q']) {
      expect((await sdk.createProject(pid)).status).toBe(201);
      expect((await sdk.learn(pid, train)).status).toBe(200);
    }
  }, 120_000);
  afterAll(() => sdk?.close());

  it.each(TASKS)('$task: the winner is the best of the leaderboard and what selectModel reports for its algorithm and parameters', async (c) => {
    const r = await sdk.autoSelect('p', `auto_${c.task}`, c.task, ctxOf(c), score);
    expect(r.body.statusString).toBe('Job Created');
    const m = await finished(r);
    results.set(c.task, m);
    const board = leaderboard(m);
    // multiclass: mlda only (mqda needs a partition project: counted as failed).
    if (c.task === 'multiclass_classifier') expect([board.length, m.info.autoselect_failed]).toEqual([1, '1']);
    else expect(board.length).toBeGreaterThan(1);
    expect(board.length).toBeLessThanOrEqual(20);
    expect(m.algo).toBe(board[0].algo);
    expect(m.info).toMatchObject({ autoselect_task: c.task, autoselect_grid_type: 'autoselect_grid_type_tiny', selector_type: 'selector_type_fw_bw', sml_model_assessment_type: c.criterion });
    expect(m.assessment[c.criterion]).toBe(board[0].score);
    expect(m.inputAttributeNames).toEqual(board[0].inputs);
    const lower = c.criterion === 'rmse';
    for (const e of board) expect(lower ? e.score >= board[0].score : e.score <= board[0].score).toBe(true);
    // selectModel with the winning algorithm and its parameters (the grid point included).
    const alone = await finished(await sdk.request('POST', '/projects/p/selectModel', {
      query: { modelid: `alone_${c.task}`, algo: m.algo },
      json: { mlcontext: { ...ctxOf(c), extraParameters: { ...m.params, selector_type: 'selector_type_fw_bw', sml_model_assessment_type: c.criterion } }, dataframe: score },
    }));
    expect(alone.assessment).toEqual(m.assessment);
    expect(alone.inputAttributeNames).toEqual(m.inputAttributeNames);
    // The winner is stored and predicts.
    const p = await sdk.request<{ KSVSMap: { values: Array<Record<string, string>> } }>('POST', `/projects/p/predict/auto_${c.task}`, { json: score });
    expect(p.status).toBe(200);
    expect(p.body.values!.KSVSMap.values).toHaveLength(score.data.length);
  }, 180_000);

  it('the same seed gives the same winner and leaderboard', async () => {
    const c = TASKS[1];
    const again = await finished(await sdk.autoSelect('p', 'auto_again', c.task, ctxOf(c), score));
    const first = results.get(c.task)!;
    expect(again.algo).toBe(first.algo);
    expect(again.assessment).toEqual(first.assessment);
    expect(leaderboard(again)).toEqual(leaderboard(first));
  }, 180_000);

  it('the data-source form gives what the inline form gives on the same rows', async () => {
    const c = TASKS[3];
    const r = await sdk.autoSelectOnDataSource('p', 'score', 'auto_ds', c.task, ctxOf(c));
    const viaDs = await finished(r);
    const inline = results.get(c.task)!;
    expect(viaDs.algo).toBe(inline.algo);
    expect(viaDs.assessment).toEqual(inline.assessment);
    expect(viaDs.inputAttributeNames).toEqual(inline.inputAttributeNames);
    expect(leaderboard(viaDs)).toEqual(leaderboard(inline));
  }, 180_000);

  it('answers 400 for a bad task, an unknown data source, a missing modelid, an unknown grid', async () => {
    const bad = await sdk.autoSelect('p', 'm', 'clustering', ctxOf(TASKS[0]), score);
    expect(bad.status).toBe(400);
    expect(bad.body.statusString).toBe('Unknown task [clustering]: expected binary_classification, binary_classifier, regression or multiclass_classifier');
    const ds = await sdk.autoSelectOnDataSource('p', 'zz', 'm', 'regression', ctxOf(TASKS[0]));
    expect(ds.status).toBe(400);
    expect(ds.body.statusString).toBe("DS 'zz' not found");
    const noModel = await sdk.request('POST', '/projects/p/autoSelect', { query: { task: 'regression' }, json: { mlcontext: ctxOf(TASKS[0]), dataframe: score } });
    expect(noModel.status).toBe(400);
    expect(noModel.body.statusString).toMatch(/modelid/);
    const grid = await sdk.autoSelect('p', 'm', 'regression', ctxOf(TASKS[0], { autoselect_grid_type: 'autoselect_grid_type_huge' }), score);
    expect(grid.status).toBe(400);
    expect(grid.body.statusString).toMatch(/autoselect_grid_type/);
  });

  it('learnpredict learns the frame (the count grows by its rows) and answers what a separate learn + predict answers', async () => {
    const ctx = { inputAttributeNames: ['sepal_length', 'sepal_width'], targetAttributeNames: ['petal_length'], extraParameters: {} };
    for (const pid of ['p', 'q']) await finished(await sdk.request('POST', `/projects/${pid}/build`, { query: { modelid: 'lin', algo: 'ridge' }, json: ctx }));
    const count = async (pid: string) => Number((await finished(await sdk.request('POST', `/projects/${pid}/build`, { query: { modelid: 'count', algo: 'ridge' }, json: ctx }))).info.n);
    const before = await count('p');
    const frame = { attributeNames: NAMES, attributeTypes: TYPES, data: iris(25, 5000) };
    const lp = await sdk.learnPredict('p', 'lin', frame);
    expect(lp.status).toBe(200);
    expect(lp.body.statusString).toBe('OK');
    expect(await count('p')).toBe(before + 25);
    expect((await sdk.learn('q', frame)).status).toBe(200);
    const separate = await sdk.request<{ KSVSMap: { values: Array<Record<string, string>> } }>('POST', '/projects/q/predict/lin', { json: frame });
    expect(lp.body.values!.KSVSMap.values).toEqual(separate.body.values!.KSVSMap.values);
    expect(await count('q')).toBe(before + 25);
    // Learn first, then predict; keepColumns copies columns into each row.
    const after = await sdk.learnPredict('p', 'lin', frame, { predictBeforeLearn: false, keepColumns: ['petal_length'] });
    expect(after.body.values!.KSVSMap.values).toEqual(separate.body.values!.KSVSMap.values.map((v, r) => ({ petal_length: frame.data[r][2], ...v })));
    expect(await count('p')).toBe(before + 50);
    const unknown = await sdk.learnPredict('p', 'nope', frame);
    expect(unknown.status).toBe(400);
    expect(await count('p')).toBe(before + 50);
  }, 120_000);
});

describe('autoSelect within its time budget', () => {
  let sys: RunningSystem;
  afterAll(() => sys?.stop());

  it('fails the job naming the budget', async () => {
    sys = await startSystem({ services: ['users', 'jobs', 'projects'], env: { SML_SELECTION_TIME_BUDGET_MS: '1' } });
    const sdk = await customer(sys, 'hurried');
    expect((await sdk.createProject('p')).status).toBe(201);
    expect((await sdk.learn('p', train)).status).toBe(200);
    const r = await sdk.autoSelect('p', 'm', 'regression', ctxOf(TASKS[0]), score);
    expect(r.status).toBe(202);
    const done = await sdk.waitForJob(r, { timeoutMs: 60_000 });
    expect(done.status).toBe(500);
    expect(done.body.statusString).toMatch(/^autoSelect stopped after \d+ candidate models: over its time budget of 1 ms \(SML_SELECTION_TIME_BUDGET_MS\)/);
  }, 120_000);
});

import {
  ALGORITHMS, AUTOSELECT_GRIDS, assess, autoSelect, checkAutoSelect, candidateParams, ModelInputError, type ModelSpec, type PredictFrame, resolveAttributes, selectFeatures, Summary,
} from '@sml/stats';

// Iris-like data from a fixed generator: three classes (one-hot), a binary target and a
// continuous one; learned rows and scoring rows differ.
function rows(n: number, offset: number): string[][] {
  return Array.from({ length: n }, (_, k) => {
    const i = k + offset;
    const cls = i % 3;
    const a = 4.5 + cls * 1.1 + ((i * 7) % 10) / 10;
    const b = 3.4 - cls * 0.3 + ((i * 3) % 7) / 10;
    const c = 1.4 + cls * 2.1 + ((i * 5) % 9) / 10;
    const d = 0.2 + cls * 0.9 + ((i * 11) % 5) / 10;
    const noise = ((i * 13) % 17) / 17;
    return [a, b, c, d, noise, cls === 0 ? 1 : 0, cls === 1 ? 1 : 0, cls === 2 ? 1 : 0].map(String);
  });
}
const names = ['sl', 'sw', 'pl', 'pw', 'noise', 'setosa', 'versicolor', 'virginica'];
const summary = new Summary();
summary.learn({ attributeNames: names, attributeTypes: ['C', 'C', 'C', 'C', 'C', 'B', 'B', 'B'], data: rows(150, 0) });
const frame: PredictFrame = { names, rows: rows(60, 1000) };
const ids = (n: string[]) => resolveAttributes(summary, n);
const inputs = ids(['sl', 'sw', 'pw', 'noise']);

const cases = [
  { task: 'regression', targets: ['pl'], criterion: 'rmse' },
  { task: 'binary_classifier', targets: ['virginica'], criterion: 'auc' },
  { task: 'binary_classification', targets: ['virginica'], criterion: 'auc' },
  { task: 'multiclass_classifier', targets: ['setosa', 'versicolor', 'virginica'], criterion: 'mf1_w' },
];

describe('autoSelect', () => {
  it.each(cases)('$task: the winner is the best of the leaderboard and what selectFeatures gives for its algorithm and parameters', async ({ task, targets, criterion }) => {
    const base = { inputs, targets: ids(targets), params: { rnd_seed: '3' } };
    const got = await autoSelect(summary, base, frame, { task, selection: {} });
    expect(got.criterion).toBe(criterion);
    expect(got.leaderboard[0].algo).toBe(got.algo);
    expect(got.leaderboard[0].score).toBe(got.assessment[criterion]);
    const lower = criterion === 'rmse';
    for (const e of got.leaderboard) expect(lower ? e.score >= got.leaderboard[0].score : e.score <= got.leaderboard[0].score).toBe(true);
    const spec: ModelSpec = { ...base, algo: got.algo, params: got.params };
    const alone = await selectFeatures(ALGORITHMS[got.algo], summary, spec, frame, { selector: 'selector_type_fw_bw', criterion });
    expect(alone.assessment).toEqual(got.assessment);
    expect([...alone.model.inputNames]).toEqual([...got.model.inputNames]);
    expect(assess(ALGORITHMS[got.algo].task, got.model, frame)).toEqual(got.assessment);
    // Deterministic.
    const again = await autoSelect(summary, base, frame, { task, selection: {} });
    expect(again.leaderboard).toEqual(got.leaderboard);
  });

  it('candidates: the algorithms of the task this build implements × the grid', () => {
    const tiny = checkAutoSelect({ task: 'regression', selection: {} });
    const g = AUTOSELECT_GRIDS.autoselect_grid_type_tiny;
    const count = (algo: string) => tiny.candidates.filter((c) => c.algo === algo).length;
    expect(count('elasticnet')).toBe(g.eta.length * g.lambda.length);
    expect(count('ridge')).toBe(g.lambda.length);
    expect(count('mlr')).toBe(1);
    expect(tiny.candidates.every((c) => ALGORITHMS[c.algo]?.task === 'regression')).toBe(true);
    const large = checkAutoSelect({ task: 'regression', gridType: 'autoselect_grid_type_large', selection: {} });
    expect(large.candidates.filter((c) => c.algo === 'elasticnet')).toHaveLength(6 * 13);
    expect(checkAutoSelect({ task: 'binary_classifier', selection: {} }).candidates.map((c) => c.algo)).toEqual(expect.arrayContaining(['lr', 'lda', 'bayes', 'lsvm']));
    expect(candidateParams({ alpha: '2', q: '1' }, { lambda: '0.1' })).toEqual({ q: '1', lambda: '0.1' });
  });

  it('refuses an unknown task, grid or criterion', () => {
    expect(() => checkAutoSelect({ task: 'clustering', selection: {} })).toThrow(ModelInputError);
    expect(() => checkAutoSelect({ task: 'regression', gridType: 'autoselect_grid_type_huge', selection: {} })).toThrow(/autoselect_grid_type/);
    expect(() => checkAutoSelect({ task: 'regression', selection: { criterion: 'auc' } })).toThrow(/sml_model_assessment_type/);
  });

  it('the checkpoint sees every subset built and can stop the search', async () => {
    const seen: number[] = [];
    const base = { inputs, targets: ids(['pl']), params: {} };
    const got = await autoSelect(summary, base, frame, { task: 'regression', selection: {}, checkpoint: (n) => void seen.push(n) });
    expect(seen.at(-1)).toBe(got.tried);
    await expect(autoSelect(summary, base, frame, { task: 'regression', selection: {}, checkpoint: (n) => {
      if (n > 5) throw new Error('budget');
    } })).rejects.toThrow('budget');
  });
});

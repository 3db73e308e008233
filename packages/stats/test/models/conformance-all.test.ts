// One generic conformance suite over every algorithm of the registry (STYLE.md: "one
// generic conformance suite runs against every model"). A summary-built model is a function
// of the summary, so it is deterministic and blind to how the rows were chunked, to the
// order of its inputs and of the learned columns; it imputes a missing input with its mean,
// survives a JSON round trip of its state, and predicts exactly the keys STATS.md §4 lists.
// The family suites (linear-family/conformance.test.ts, classifiers, anomaly) add the laws
// specific to each family; this one makes sure no registered algorithm escapes the common ones.
import {
  ALGORITHM_NAMES, ALGORITHMS, type DataFrame, forestOptionsOf, type Model, type PredictFrame, type Prediction, RESTRICTABLE_ALGORITHMS, resolveAttributes, restrictedBuild, rowsFromColumns, Summary,
  type SummaryOptions,
} from '@sml/stats';
import { random } from '../helpers';

/** Prediction keys per algorithm, STATS.md §4 (`classes`: the model's class names, its targets or, for rf_classifier, extra.classes). */
const KEYS: Record<(typeof ALGORITHM_NAMES)[number], (classes: readonly string[]) => string[]> = {
  mlr: () => ['res'],
  ridge: () => ['res'],
  lasso: () => ['res'],
  elasticnet: () => ['res'],
  pcr: () => ['res'],
  plsq: () => ['res'],
  powerreg: () => ['res', 'power'],
  lsvr: () => ['res'],
  lsvm: () => ['res', 'score'],
  lr: () => ['res', 'prob'],
  lda: () => ['res', 'resZ', 'z0', 'normZ'],
  mlda: (classes) => ['res', ...classes],
  mqda: (classes) => ['res', ...classes],
  bayes: () => ['res', 'Prob'],
  covest: () => ['res', 'score'],
  repca: () => ['res', 'score'],
  oospca: () => ['res', 'score'],
  hba: () => ['res', 'score'],
  ecod: () => ['res', 'ecodscore'],
  evt: () => ['evt_is_anomaly', 'evt_threshold', 'evt_anomaly_confidence'],
  kmeans: () => ['cluster', 'distance'],
  rf_classifier: (classes) => ['res', ...classes.map((c) => `p_${c}`)],
  rf_regressor: () => ['res'],
  rf_anomaly: () => ['score'],
  km: () => [],
  mc: () => ['next', 'next.p', 'seq.like'],
  // §7 (one map per row: `state` and `seq`) is more precise than §4's table (`seq`).
  hmm: () => ['state', 'seq'],
};

/** Algorithms this suite cannot build from a plain project, and why; each has its own suite. */
const SKIPPED: Record<string, string> = {
  mqda: 'needs a partition project (per-class covariances come from per-partition summaries, STATS.md §1)',
  mc: 'needs a sequence project (STATS.md §7)',
  hmm: 'needs a sequence project (STATS.md §7)',
  km: 'needs a survival project (km_* create parameters, STATS.md §6) and predicts nothing',
  evt: 'stateful: each prediction depends on the rows predicted before it (STATS.md §5)',
};

const INPUTS = ['x1', 'x2', 'x3', 'x4'];
// Tight tolerances so that another coordinate order (permuted inputs) reaches the same optimum to 1e-9.
const TIGHT = { tol: '1e-13', max_iter: '1000000' };
type Target = 'y' | 'label' | 'classes' | 'none';
const SETUPS: Record<string, { target: Target; params?: Record<string, string>; options?: SummaryOptions }> = {
  mlr: { target: 'y' },
  ridge: { target: 'y', params: { lambda: '2' } },
  lasso: { target: 'y', params: { lambda: '0.05', ...TIGHT } },
  elasticnet: { target: 'y', params: { lambda: '0.1', eta: '0.7', ...TIGHT } },
  pcr: { target: 'y', params: { q: '3' } },
  plsq: { target: 'y' },
  lsvr: { target: 'y' },
  lsvm: { target: 'label' },
  lr: { target: 'label' },
  lda: { target: 'label' },
  bayes: { target: 'label' },
  mlda: { target: 'classes' },
  covest: { target: 'none' },
  repca: { target: 'none' },
  oospca: { target: 'none' },
  hba: { target: 'none' },
  ecod: { target: 'none' },
  // Micro-centroids over the four inputs, seeded after 30 rows (the project's cluster_* parameters).
  kmeans: { target: 'none', params: { kmeans_k: '3' }, options: { clusters: { features: ['x1', 'x2', 'x3', 'x4'], centroids: 20, warmup: 30 } } },
  // An online Mondrian forest over the four inputs, of the model's rf_type (the project's rf_* parameters).
  rf_classifier: { target: 'label', options: { forest: forestOptionsOf({ rf_type: 'rf_classifier', rf_target_name: 'label', rf_features: 'x1:x2:x3:x4' })! } },
  rf_regressor: { target: 'y', options: { forest: forestOptionsOf({ rf_type: 'rf_regressor', rf_target_name: 'y', rf_features: 'x1:x2:x3:x4' })! } },
  rf_anomaly: { target: 'none', options: { forest: forestOptionsOf({ rf_type: 'rf_anomaly', rf_features: 'x1:x2:x3:x4' })! } },
  // The project tracks the Yeo-Johnson power columns pt_y^<p> of the target (sml_project_power_* parameters).
  powerreg: { target: 'y', options: { power: { column: 'y', min: -2, max: 2, steps: 20 } } },
};
const TARGETS: Record<Target, string[]> = { y: ['y'], label: ['label'], classes: ['k1', 'k2', 'k3'], none: [] };
// Exact histograms: hba and ecod need them, and they are exactly additive (chunks).
const OPTIONS: SummaryOptions = { histogram: 'exact' };

/**
 * Four C inputs (x2 correlated with x1), a continuous target y, a binary target label and
 * three one-hot classes k1..k3, from a seeded generator.
 */
function generate(rows: number, seed: number): DataFrame {
  const next = random(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
  const fixed = (v: number) => v.toFixed(4);
  const data = Array.from({ length: rows }, () => {
    const x1 = normal();
    const x2 = 0.5 * x1 + normal();
    const x3 = 2 + normal();
    const x4 = 0.3 * normal() - 1;
    const y = 1 + 2 * x1 - x2 + 0.5 * x3 + 0.4 * normal();
    const label = x1 - 0.5 * (x3 - 2) + 0.5 * normal() > 0 ? 1 : 0;
    const scores = [x1, x2 + 0.3, 2 * (x4 + 1)].map((s) => s + 0.5 * normal());
    const k = scores.indexOf(Math.max(...scores));
    return [...[x1, x2, x3, x4, y].map(fixed), String(label), ...[0, 1, 2].map((c) => (c === k ? '1' : '0'))];
  });
  return { attributeNames: ['x1', 'x2', 'x3', 'x4', 'y', 'label', 'k1', 'k2', 'k3'], attributeTypes: ['C', 'C', 'C', 'C', 'C', 'B', 'B', 'B', 'B'], data };
}

const LEARN = generate(150, 11);
const ROWS = LEARN.data;
const PREDICT: PredictFrame = { names: LEARN.attributeNames, rows: generate(30, 12).data };

function learn(frames: DataFrame[], options: SummaryOptions = OPTIONS): Summary {
  const s = new Summary(options);
  for (const f of frames) s.learn(f);
  return s;
}

/** The same frame with its columns in another order. */
function reorderColumns(frame: DataFrame, order: number[]): DataFrame {
  return {
    attributeNames: order.map((k) => frame.attributeNames[k]),
    attributeTypes: order.map((k) => frame.attributeTypes[k]),
    data: (frame.data).map((r) => order.map((k) => r[k])),
  };
}

/** Equal texts, or numbers (also inside JSON arrays) within 1e-9 relative at scale 1. */
function sameValue(actual: string, expected: string): boolean {
  if (actual === expected) return true;
  const a = Number(actual);
  const e = Number(expected);
  if (expected.trim() !== '' && !Number.isNaN(e)) return Math.abs(a - e) <= 1e-9 * Math.max(1, Math.abs(e));
  if (expected.startsWith('[')) {
    const flat = (text: string) => (JSON.parse(text) as unknown[]).flat(Infinity).map(String);
    const [x, y] = [flat(actual), flat(expected)];
    return x.length === y.length && x.every((v, k) => sameValue(v, y[k]));
  }
  return false;
}

function expectSameMaps(actual: Record<string, string>, expected: Record<string, string>, what: string): void {
  expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
  for (const [key, want] of Object.entries(expected)) {
    if (!sameValue(actual[key], want)) throw new Error(`${what} ${key}: ${actual[key]} instead of ${want}`);
  }
}

function expectSamePredictions(actual: Prediction[], expected: Prediction[], what: string): void {
  expect(actual).toHaveLength(expected.length);
  expected.forEach((p, r) => expectSameMaps(actual[r], p, `${what}: row ${r}`));
}

const covered = Object.keys(ALGORITHMS).filter((name) => !(name in SKIPPED));

it('every registered algorithm has a conformance setup or a stated reason to be skipped', () => {
  expect(covered.filter((name) => !(name in SETUPS))).toEqual([]);
  for (const name of Object.keys(SETUPS)) expect(ALGORITHMS[name]).toBeDefined();
});

it('the table of prediction keys documents every algorithm of the API', () => {
  expect(Object.keys(KEYS).sort()).toEqual([...ALGORITHM_NAMES].sort());
  expect(Object.keys(ALGORITHMS).filter((name) => !(name in KEYS))).toEqual([]);
});

describe.each(covered)('%s', (algo) => {
  const algorithm = ALGORITHMS[algo];
  const setup = SETUPS[algo];
  const build = (summary: Summary, inputs: string[] = INPUTS): Model => algorithm.build(summary, {
    algo,
    inputs: resolveAttributes(summary, inputs),
    targets: resolveAttributes(summary, TARGETS[setup.target]),
    params: setup.params ?? {},
  });
  const options = { ...OPTIONS, ...setup.options };
  const summary = learn([LEARN], options);
  const model = build(summary);
  const predictions = model.predict(PREDICT);

  it('is registered under its own name', () => {
    expect([algorithm.name, model.algo]).toEqual([algo, algo]);
  });

  if (RESTRICTABLE_ALGORITHMS.has(algo)) {
    it('built from the sub-summary of its attributes (restrictedBuild), it is the same model', () => {
      const spec = { algo, inputs: resolveAttributes(summary, INPUTS), targets: resolveAttributes(summary, TARGETS[setup.target]), params: setup.params ?? {} };
      const restricted = restrictedBuild(summary, spec);
      expect(restricted.summary.attributeNames.length).toBeLessThan(summary.attributeNames.length);
      expect(JSON.stringify(algorithm.build(restricted.summary, restricted.spec).state())).toBe(JSON.stringify(model.state()));
    });
  }

  it('predicts the frame as numeric columns (the gateway\'s fast reader) exactly as its rows; a model that reads rows gets them back', () => {
    // One missing cell per column, so imputation is compared too.
    const rows = PREDICT.rows.map((r, i) => r.map((cell, k) => (i === k ? '' : cell)));
    const columns = { rowCount: rows.length, values: new Map(PREDICT.names.map((n, k) => [n, Float64Array.from(rows, (r) => (r[k] === '' ? NaN : Number(r[k])))])) };
    const asColumns: PredictFrame = { names: PREDICT.names, rows: [], columns };
    const expected = build(summary).predict({ names: PREDICT.names, rows });
    const parsed = (r: string[][]) => r.map((cells) => cells.map((c) => (c === '' ? '' : Number(c))));
    expect(parsed(rowsFromColumns(asColumns).rows)).toEqual(parsed(rows)); // the same numbers, in their shortest text
    const fresh = build(summary); // a stateful model's answer depends on what it predicted before
    expect(fresh.readsColumns ? fresh.predict(asColumns) : fresh.predict(rowsFromColumns(asColumns))).toEqual(expected);
  });

  it('building twice from the same summary gives the same model', () => {
    const again = build(summary);
    expect(JSON.stringify(again.state())).toBe(JSON.stringify(model.state()));
    expect(again.predict(PREDICT)).toEqual(predictions);
  });

  it('permuting the input attributes gives the same predictions', () => {
    for (const inputs of [[...INPUTS].reverse(), ['x3', 'x1', 'x4', 'x2']]) {
      expectSamePredictions(build(summary, inputs).predict(PREDICT), predictions, `inputs ${inputs.join(',')}`);
    }
  });

  it('learning the columns in another order gives the same predictions', () => {
    const reordered = learn([reorderColumns(LEARN, [8, 5, 3, 0, 7, 4, 2, 6, 1])], options);
    expectSamePredictions(build(reordered).predict(PREDICT), predictions, 'columns reordered');
  });

  it('learning the same rows in chunks gives the same model', () => {
    const cuts = [0, 37, 90, ROWS.length];
    const chunked = learn(cuts.slice(1).map((to, k) => ({ ...LEARN, data: ROWS.slice(cuts[k], to) })), options);
    const rebuilt = build(chunked);
    expectSamePredictions(rebuilt.predict(PREDICT), predictions, 'chunks');
    expectSameMaps(rebuilt.extra(), model.extra(), 'chunks: extra');
    expectSameMaps(rebuilt.info(), model.info(), 'chunks: info');
  });

  it('predicts every row with missing inputs, as if the input were its mean', () => {
    const rows = PREDICT.rows.slice(0, 6);
    for (const input of INPUTS) {
      const column = PREDICT.names.indexOf(input);
      const meanFilled = model.predict({ names: PREDICT.names, rows: rows.map((r) => r.map((v, k) => (k === column ? String(summary.mean(input)) : v))) });
      for (const missing of ['', 'NA']) {
        expect(model.predict({ names: PREDICT.names, rows: rows.map((r) => r.map((v, k) => (k === column ? missing : v))) })).toEqual(meanFilled);
      }
      const absent = { names: PREDICT.names.filter((_, k) => k !== column), rows: rows.map((r) => r.filter((_, k) => k !== column)) };
      expect(model.predict(absent)).toEqual(meanFilled);
    }
    const allMissing = model.predict({ names: ['unrelated'], rows: [['1'], ['2']] });
    expect(allMissing).toHaveLength(2);
    expect(allMissing[1]).toEqual(allMissing[0]);
  });

  it('the JSON state restores a model with the same predictions and modelInfo', () => {
    const restored = algorithm.restore(JSON.parse(JSON.stringify(model.state())));
    expect(restored.predict(PREDICT)).toEqual(predictions);
    expect([restored.algo, restored.inputNames, restored.targetNames, restored.info(), restored.extra()])
      .toEqual([model.algo, model.inputNames, model.targetNames, model.info(), model.extra()]);
  });

  it('predictions have exactly the keys STATS.md §4 lists', () => {
    const classes = algo === 'rf_classifier' ? JSON.parse(model.extra().classes) as string[] : model.targetNames;
    const keys = KEYS[algo as keyof typeof KEYS](classes).sort();
    for (const p of predictions) expect(Object.keys(p).sort()).toEqual(keys);
    for (const p of predictions) for (const v of Object.values(p)) expect(typeof v).toBe('string');
  });
});

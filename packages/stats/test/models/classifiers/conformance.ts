import { readFileSync } from 'node:fs';
import { type Algorithm, type DataFrame, type Model, type PredictFrame, type Prediction, resolveAttributes, Summary, type SummaryOptions } from '@sml/stats';
import { random, dataFile } from '../../helpers';

/**
 * The laws every summary-built model obeys, whatever the algorithm: the same summary builds
 * the same model; row order, chunking and input order do not change predictions; a missing
 * input predicts as the input's mean; the state survives JSON; the prediction keys are
 * exactly the documented ones.
 */
export interface ConformanceCase {
  name: string;
  algorithm: Algorithm;
  options?: SummaryOptions;
  learn: DataFrame;
  inputs: string[];
  targets: string[];
  params?: Record<string, string>;
  predict: PredictFrame;
  /** Exactly the keys of every prediction. */
  keys: string[];
}

const IRIS_CSV = dataFile('Iris_rtlm.csv');
export const IRIS_TYPES = ['C', 'C', 'C', 'C', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B'];
const SPECIES = ['setosa', 'versicolor', 'virginica'];

/** Iris_rtlm.csv plus a `species` column (T) made from its one-hot columns, for partitions. */
export function irisFrame(): DataFrame {
  const lines = readFileSync(IRIS_CSV, 'utf8').trim().split(/\r?\n/).map((l) => l.split(','));
  const rows = lines.slice(1).map((r) => [...r, SPECIES[[12, 13, 14].findIndex((c) => r[c] === '1')]]);
  return { attributeNames: [...lines[0], 'species'], attributeTypes: [...IRIS_TYPES, 'T'], data: rows };
}

export function learnAll(frame: DataFrame, options: SummaryOptions = {}): Summary {
  const s = new Summary(options);
  s.learn(frame);
  return s;
}

export function build(c: Pick<ConformanceCase, 'algorithm' | 'inputs' | 'targets' | 'params'>, summary: Summary, inputs = c.inputs): Model {
  return c.algorithm.build(summary, {
    algo: c.algorithm.name,
    inputs: resolveAttributes(summary, inputs),
    targets: resolveAttributes(summary, c.targets),
    params: c.params ?? {},
  });
}

/** Same labels (non-numeric values equal) and numbers within `rel` (relative, scale 1). */
export function expectSamePredictions(actual: Prediction[], expected: Prediction[], rel = 1e-9): void {
  expect(actual.length).toBe(expected.length);
  actual.forEach((row, r) => {
    expect(Object.keys(row).sort()).toEqual(Object.keys(expected[r]).sort());
    for (const [key, want] of Object.entries(expected[r])) {
      const got = row[key];
      const a = Number(got);
      const e = Number(want);
      if (key === 'res' || Number.isNaN(e)) {
        if (got !== want) throw new Error(`row ${r} ${key}: ${got} instead of ${want}`);
      } else if (!(Math.abs(a - e) <= rel * Math.max(1, Math.abs(e)))) {
        throw new Error(`row ${r} ${key}: ${got} differs from ${want} beyond ${rel}`);
      }
    }
  });
}

/** Fisher-Yates with the deterministic generator of test/helpers. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const next = random(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

export function conformance(c: ConformanceCase): void {
  describe(`${c.name}: model laws`, () => {
    const summary = learnAll(c.learn, c.options);
    const model = build(c, summary);
    const predictions = model.predict(c.predict);

    it('building twice from the same summary gives the same model', () => {
      const again = build(c, summary);
      expect(again.state()).toEqual(model.state());
      expect(again.predict(c.predict)).toEqual(predictions);
    });

    it('learning the rows in another order gives the same predictions', () => {
      const permuted = learnAll({ ...c.learn, data: shuffled(c.learn.data as unknown[][], 7) as string[][] }, c.options);
      expectSamePredictions(build(c, permuted).predict(c.predict), predictions);
    });

    it('learning in chunks gives the same predictions as learning at once', () => {
      const rows = c.learn.data;
      const chunked = new Summary(c.options);
      for (const [from, to] of [[0, 17], [17, Math.floor(rows.length / 2)], [Math.floor(rows.length / 2), rows.length]]) {
        chunked.learn({ ...c.learn, data: rows.slice(from, to) });
      }
      expectSamePredictions(build(c, chunked).predict(c.predict), predictions);
    });

    it('the order of the inputs does not change predictions', () => {
      expectSamePredictions(build(c, summary, [...c.inputs].reverse()).predict(c.predict), predictions);
    });

    it('a missing or absent input predicts as its mean', () => {
      const column = c.predict.names.indexOf(c.inputs[0]);
      const mean = String(summary.mean(c.inputs[0]));
      const rows = c.predict.rows.slice(0, 5);
      const missing = model.predict({ names: c.predict.names, rows: rows.map((r) => r.map((v, k) => (k === column ? 'NA' : v))) });
      const filled = model.predict({ names: c.predict.names, rows: rows.map((r) => r.map((v, k) => (k === column ? mean : v))) });
      expect(missing).toEqual(filled);
      const absent = model.predict({ names: c.predict.names.filter((_, k) => k !== column), rows: rows.map((r) => r.filter((_, k) => k !== column)) });
      expect(absent).toEqual(filled);
    });

    it('a summary with missing input cells still builds and predicts every row', () => {
      const column = c.learn.attributeNames.indexOf(c.inputs[0]);
      const data = (c.learn.data).map((r, i) => (i % 7 === 3 ? r.map((v, k) => (k === column ? 'NA' : v)) : r));
      const withMissing = build(c, learnAll({ ...c.learn, data }, c.options)).predict(c.predict);
      expect(withMissing.length).toBe(c.predict.rows.length);
      for (const p of withMissing) expect(Object.keys(p).sort()).toEqual([...c.keys].sort());
    });

    it('the state survives a JSON round trip', () => {
      const restored = c.algorithm.restore(JSON.parse(JSON.stringify(model.state())));
      expect(restored.predict(c.predict)).toEqual(predictions);
      expect(restored.info()).toEqual(model.info());
      expect(restored.extra()).toEqual(model.extra());
      expect([restored.algo, restored.inputNames, restored.targetNames]).toEqual([model.algo, model.inputNames, model.targetNames]);
    });

    it(`predictions have exactly the keys ${c.keys.join(', ')}`, () => {
      for (const p of predictions) expect(Object.keys(p).sort()).toEqual([...c.keys].sort());
    });
  });
}

/** |actual − expected| ≤ rel · max(scale, |expected|). */
export function close(actual: number, expected: number, rel: number, scale = 1, what = ''): void {
  if (!(Math.abs(actual - expected) <= rel * Math.max(scale, Math.abs(expected)))) {
    throw new Error(`${what}: ${actual} differs from ${expected} by ${Math.abs(actual - expected)} (tolerance ${rel} relative)`);
  }
}

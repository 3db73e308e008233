import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Model, type ModelSpec, type PredictFrame, resolveAttributes, Summary } from '@sml/stats';
import { expectClose, dataFile } from '../../helpers';

/** One scikit-learn reference fit of fixtures/gen_linear_family.py. */
export interface ReferenceCase {
  name: string;
  algo: string;
  data: string;
  inputs: string[];
  target: string;
  params: Record<string, string>;
  predict_rows: number[][];
  coef: Record<string, number>;
  predictions: number[];
  /** Lasso, ElasticNet: coordinate-descent sweeps (n_iter_). */
  iterations?: number;
  /** RidgeClassifier decision values. */
  scores?: number[];
  components?: number;
  explained_variance_ratio?: number[];
  /** lr: scikit-learn LogisticRegression(penalty=None) and the AUCs of both on the training rows. */
  sklearn_coef?: Record<string, number>;
  sklearn_auc?: number;
  auc?: number;
  /** lr: a case outside the approximation's guarantee (README "Known gaps"). */
  known_gap?: boolean;
}

export interface Dataset {
  names: string[];
  types: string[];
  rows: string[][];
}

const fixture = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'linear_family.json'), 'utf8')) as {
  datasets: Record<string, { names: string[]; types: string[]; rows: number[][] }>;
  cases: ReferenceCase[];
};

const iris = readFileSync(dataFile('Iris_rtlm.csv'), 'utf8').trim().split(/\r?\n/).map((l) => l.split(','));

export const DATASETS: Record<string, Dataset> = {
  iris: { names: iris[0], types: ['C', 'C', 'C', 'C', ...Array<string>(11).fill('B')], rows: iris.slice(1) },
  ...Object.fromEntries(Object.entries(fixture.datasets).map(([k, d]) => [k, { names: d.names, types: d.types, rows: d.rows.map((r) => r.map(String)) }])),
};

export function referenceCases(algo: string): ReferenceCase[] {
  return fixture.cases.filter((c) => c.algo === algo);
}

export function summaryOf(data: Dataset, rows: string[][] = data.rows): Summary {
  const s = new Summary();
  s.learn({ attributeNames: data.names, attributeTypes: data.types, data: rows });
  return s;
}

export function specOf(summary: Summary, algo: string, inputs: string[], target: string, params: Record<string, string> = {}): ModelSpec {
  return { algo, inputs: resolveAttributes(summary, inputs), targets: resolveAttributes(summary, [target]), params };
}

export function frameOf(names: string[], rows: number[][]): PredictFrame {
  return { names, rows: rows.map((r) => r.map(String)) };
}

/** Coefficients (`coef_const`, `coef_<input>` of modelInfo.extra) and `res` against the reference. */
export function expectReference(model: Model, c: ReferenceCase, tolerance: number): void {
  const extra = model.extra();
  const scale = Math.max(...Object.values(c.coef).map(Math.abs));
  for (const [term, want] of Object.entries(c.coef)) expectClose(Number(extra[`coef_${term}`]), want, tolerance, scale, `${c.name} coef_${term}`);
  model.predict(frameOf(c.inputs, c.predict_rows)).forEach((p, i) => expectClose(Number(p.res), c.predictions[i], tolerance, 1, `${c.name} prediction ${i}`));
}

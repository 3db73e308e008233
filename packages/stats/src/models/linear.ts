import { Matrix } from 'ml-matrix';
import type { Summary } from '../summary';
import { numericRows } from './rows';
import { ModelInputError, type ModelSpec, type PredictFrame, type Prediction } from './types';
import { StateModel } from './base';

/**
 * The moments a linear model of `target` on `inputs` is built from: means, population
 * covariances (pairwise-complete) and the number of rows. With no missing cell this is the
 * exact least-squares information of the rows; with missing cells it is the pairwise
 * estimate (documented in README "Models").
 */
export interface RegressionMoments {
  n: number;
  inputNames: string[];
  targetName: string;
  xMean: number[];
  yMean: number;
  sxx: Matrix;
  sxy: number[];
  syy: number;
}

export function regressionMoments(summary: Summary, spec: ModelSpec): RegressionMoments {
  if (spec.targets.length !== 1) throw new ModelInputError(`${spec.algo} needs exactly one target attribute, got ${spec.targets.length}`);
  if (spec.inputs.length === 0) throw new ModelInputError(`${spec.algo} needs at least one input attribute`);
  const target = spec.targets[0];
  if (spec.inputs.includes(target)) throw new ModelInputError(`the target [${summary.attributeNames[target]}] cannot also be an input`);
  const all = [...spec.inputs, target];
  const cov = summary.covariance(all);
  const p = spec.inputs.length;
  let n = Infinity;
  for (const i of spec.inputs) n = Math.min(n, summary.comoments(i, target).count);
  if (!(n > p)) throw new ModelInputError(`${spec.algo} needs more rows with the target and every input present (${Number.isFinite(n) ? n : 0}) than inputs (${p})`);
  const names = summary.attributeNames;
  return {
    n,
    inputNames: spec.inputs.map((i) => names[i]),
    targetName: names[target],
    xMean: spec.inputs.map((i) => summary.mean(i)),
    yMean: summary.mean(target),
    sxx: cov.subMatrix(0, p - 1, 0, p - 1),
    sxy: cov.subMatrix(0, p - 1, p, p).getColumn(0),
    syy: cov.get(p, p),
  };
}

export interface LinearState {
  algo: string;
  inputNames: string[];
  targetNames: string[];
  coef: number[];
  intercept: number;
  means: number[];
  info: Record<string, string>;
  extra: Record<string, string>;
}

/** A model predicting `res` = intercept + coef·x (the whole linear regression family). */
export class LinearModel extends StateModel<LinearState> {
  readonly readsColumns = true;

  predict(frame: PredictFrame): Prediction[] {
    return numericRows(frame, this.s.inputNames, this.s.means).map((x) => {
      let y = this.s.intercept;
      for (let k = 0; k < x.length; k++) y += this.s.coef[k] * x[k];
      return { res: String(y) };
    });
  }
}

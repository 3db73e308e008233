import { Matrix } from 'ml-matrix';
import type { Summary } from '../../summary';
import { LinearModel, type LinearState, type RegressionMoments, regressionMoments } from '../linear';
import { inverseOrExplain } from '../linalg';
import type { Algorithm, ModelSpec } from '../types';
import { linearState, trainingR2 } from './coefficients';
import { lambdaParam, numberParam, usePseudoInverse } from './params';
import { as, readLinearState } from '../state-read';

/** Default penalty of `ridge` (`lambda`/`alpha`) and of the least-squares SVMs (`sml_model_svm_nu`): scikit-learn's alpha = 1. */
export const DEFAULT_RIDGE_LAMBDA = 1;

/**
 * Ridge coefficients w = (n·Sxx + λI)⁻¹·n·sxy: scikit-learn's objective ‖y − Xw − b‖² + λ‖w‖²
 * penalises the raw (not averaged) sum of squares, and centring leaves the intercept out of
 * the penalty. λ = 0 is least squares, where the singular-matrix rule applies.
 */
export function ridgeCoefficients(m: RegressionMoments, lambda: number, pseudo: boolean): number[] {
  const p = m.inputNames.length;
  const a = m.sxx.clone().mul(m.n);
  for (let i = 0; i < p; i++) a.set(i, i, a.get(i, i) + lambda);
  const inv = inverseOrExplain(a, m.inputNames, pseudo);
  return inv.mmul(Matrix.columnVector(m.sxy.map((v) => v * m.n))).getColumn(0);
}

function ridgeAlgorithm(name: string, penalty: (spec: ModelSpec) => number, penaltyName: string): Algorithm {
  return {
    name,
    task: 'regression',
    build(summary: Summary, spec: ModelSpec) {
      const lambda = penalty(spec);
      const m = regressionMoments(summary, spec);
      const coef = ridgeCoefficients(m, lambda, usePseudoInverse(spec));
      return new LinearModel(linearState(name, m, coef, { [penaltyName]: String(lambda), r2: String(trainingR2(m, coef)) }));
    },
    restore: (state) => new LinearModel(as<LinearState>(readLinearState(state, name))),
  };
}

/** `ridge` (STATS.md §4, = scikit-learn `Ridge(alpha=λ)`): `lambda` (alias `alpha`) ≥ 0, default 1. */
export const ridge = ridgeAlgorithm('ridge', (spec) => lambdaParam(spec, DEFAULT_RIDGE_LAMBDA, { min: 0 }), 'lambda');

/**
 * `lsvr`: linear least-squares support vector regression. With the squared loss the LS-SVM
 * is ridge regression, its regularisation ν = `sml_model_svm_nu` ≥ 0 (default 1) playing λ
 * (= scikit-learn `Ridge(alpha=ν)`).
 */
export const lsvr = ridgeAlgorithm('lsvr', (spec) => numberParam(spec, 'sml_model_svm_nu', DEFAULT_RIDGE_LAMBDA, { min: 0 }), 'sml_model_svm_nu');

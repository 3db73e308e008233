import type { Summary } from '../../summary';
import { regressionMoments } from '../linear';
import type { Algorithm, ModelSpec } from '../types';
import { requireBinaryTarget, signedLabelMoments } from './binary-target';
import { LinearClassifier, type LinearClassifierState } from './classifier';
import { linearState } from './coefficients';
import { numberParam, usePseudoInverse } from './params';
import { DEFAULT_RIDGE_LAMBDA, ridgeCoefficients } from './ridge';
import { readClassifierState } from './classifier';

/**
 * `lsvm` (STATS.md §4): linear least-squares SVM — ridge regression of the ±1 labels
 * t = 2y − 1 of a 0/1 target, regularisation ν = `sml_model_svm_nu` ≥ 0 (default 1);
 * `res` = 1 when the decision value `score` = b + w·x is positive (= scikit-learn
 * `RidgeClassifier(alpha=ν)`).
 */
export const lsvm: Algorithm = {
  name: 'lsvm',
  task: 'binary',
  build(summary: Summary, spec: ModelSpec) {
    const nu = numberParam(spec, 'sml_model_svm_nu', DEFAULT_RIDGE_LAMBDA, { min: 0 });
    const m = signedLabelMoments(regressionMoments(summary, spec));
    requireBinaryTarget(summary, spec);
    const coef = ridgeCoefficients(m, nu, usePseudoInverse(spec));
    const state: LinearClassifierState = { ...linearState('lsvm', m, coef, { sml_model_svm_nu: String(nu) }), output: 'score' };
    return new LinearClassifier(state);
  },
  restore: (state) => new LinearClassifier(readClassifierState(state, 'lsvm')),
};

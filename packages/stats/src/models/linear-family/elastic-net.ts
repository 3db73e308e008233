import type { Summary } from '../../summary';
import { LinearModel, type LinearState, regressionMoments } from '../linear';
import type { Algorithm, ModelSpec } from '../types';
import { linearState, trainingR2 } from './coefficients';
import { DEFAULT_MAX_ITER, DEFAULT_TOL, elasticNetDescent } from './coordinate-descent';
import { lambdaParam, numberParam } from './params';
import { as, readLinearState } from '../state-read';

/** Default penalty (`lambda`/`alpha`) of `lasso` and `elasticnet`, and `eta` of `elasticnet`: scikit-learn's alpha = 1, l1_ratio = 0.5. */
export const DEFAULT_LASSO_LAMBDA = 1;
export const DEFAULT_ETA = 0.5;

function penalised(name: 'lasso' | 'elasticnet'): Algorithm {
  return {
    name,
    task: 'regression',
    build(summary: Summary, spec: ModelSpec) {
      // λ = 0 is least squares (`mlr`), for which coordinate descent is a poor solver.
      const lambda = lambdaParam(spec, DEFAULT_LASSO_LAMBDA, { min: 0, minExclusive: true });
      const eta = name === 'lasso' ? 1 : numberParam(spec, 'eta', DEFAULT_ETA, { min: 0, max: 1 });
      const tol = numberParam(spec, 'tol', DEFAULT_TOL, { min: 0, minExclusive: true });
      const maxIter = numberParam(spec, 'max_iter', DEFAULT_MAX_ITER, { min: 1, integer: true });
      const m = regressionMoments(summary, spec);
      const fit = elasticNetDescent(m, lambda, eta, tol, maxIter);
      const info: Record<string, string> = {
        lambda: String(lambda),
        ...(name === 'elasticnet' ? { eta: String(eta) } : {}),
        r2: String(trainingR2(m, fit.coef)),
        iterations: String(fit.iterations),
        converged: String(fit.converged),
        dual_gap: String(fit.gap),
      };
      return new LinearModel(linearState(name, m, fit.coef, info));
    },
    restore: (state) => new LinearModel(as<LinearState>(readLinearState(state, name))),
  };
}

/**
 * `lasso` (STATS.md §4, = scikit-learn `Lasso(alpha=λ)`): (1/2n)‖y − Xw − b‖² + λ‖w‖₁ by
 * coordinate descent on the Gram matrix. `lambda` (alias `alpha`) > 0, default 1; `tol`
 * (default 1e-12: to the optimum, STATS.md §4) and `max_iter` (default 100 000) mean what
 * they mean in scikit-learn (`tol=1e-4, max_iter=1000` reproduce its defaults sweep for sweep).
 */
export const lasso = penalised('lasso');

/**
 * `elasticnet` (= scikit-learn `ElasticNet(alpha=λ, l1_ratio=η)`):
 * (1/2n)‖y − Xw − b‖² + λη‖w‖₁ + (λ/2)(1 − η)‖w‖². `lambda` (alias `alpha`) > 0, default 1;
 * `eta` ∈ [0, 1], default 0.5; `tol`, `max_iter` as `lasso`.
 */
export const elasticnet = penalised('elasticnet');

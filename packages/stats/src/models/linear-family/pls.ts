import { Matrix, inverse } from 'ml-matrix';
import type { Summary } from '../../summary';
import { LinearModel, type LinearState, regressionMoments } from '../linear';
import type { Algorithm, ModelSpec } from '../types';
import { linearState, trainingR2 } from './coefficients';
import { optionalNumberParam } from './params';
import { standardizedMoments } from './standardize';
import { as, readLinearState } from '../state-read';

/** Without `q`, plsq keeps min(p, 2) components: scikit-learn PLSRegression's n_components = 2. */
export const DEFAULT_PLS_COMPONENTS = 2;

/** A residual covariance below this fraction of the first means y is already explained: no further component. */
const EXHAUSTED = 1e-12;

/**
 * `plsq` (STATS.md §4): PLS regression of one target on standardized inputs (population
 * sd) = scikit-learn `PLSRegression(n_components=q, scale=True)`. For one target NIPALS needs
 * no inner iteration and runs on moments: with C the inputs' correlation matrix and c their
 * covariances with y over their sd, each component takes w = c/‖c‖, score variance
 * τ = wᵀCw, loadings p = Cw/τ, y-loading q = cᵀw/τ, and deflates C ← C − τppᵀ,
 * c ← c − τqp. coef = W(PᵀW)⁻¹q, divided by sd for original units. `q` ∈ [1, p], default
 * min(p, 2); fewer components are kept when y's covariance with the deflated inputs
 * vanishes (scikit-learn warns "Y residual is constant"): info `components`.
 */
export const plsq: Algorithm = {
  name: 'plsq',
  task: 'regression',
  build(summary: Summary, spec: ModelSpec) {
    const m = regressionMoments(summary, spec);
    const p = m.inputNames.length;
    const requested = optionalNumberParam(spec, 'q', { min: 1, max: p, integer: true });
    const q = requested ?? Math.min(p, DEFAULT_PLS_COMPONENTS);
    const { sd, zz, zy } = standardizedMoments('plsq', m);
    let cx = zz;
    let cy = Matrix.columnVector(zy);
    const first = cy.norm();
    const weights: number[][] = [];
    const loadings: number[][] = [];
    const yLoadings: number[] = [];
    while (weights.length < q && cy.norm() > EXHAUSTED * first) {
      const w = cy.clone().div(cy.norm());
      const cw = cx.mmul(w);
      const tau = w.dot(cw);
      const load = cw.clone().div(tau);
      const yLoad = cy.dot(w) / tau;
      cx = cx.sub(load.mmul(load.transpose()).mul(tau));
      cy = cy.sub(load.clone().mul(tau * yLoad));
      weights.push(w.getColumn(0));
      loadings.push(load.getColumn(0));
      yLoadings.push(yLoad);
    }
    let coef = new Array<number>(p).fill(0);
    if (weights.length > 0) {
      const wm = new Matrix(weights).transpose();
      const pm = new Matrix(loadings).transpose();
      // PᵀW is unit upper triangular for PLS1, so the inverse always exists.
      const standardized = wm.mmul(inverse(pm.transpose().mmul(wm))).mmul(Matrix.columnVector(yLoadings)).getColumn(0);
      coef = standardized.map((b, i) => b / sd[i]);
    }
    const info = { q: String(q), components: String(weights.length), r2: String(trainingR2(m, coef)) };
    return new LinearModel(linearState('plsq', m, coef, info));
  },
  restore: (state) => new LinearModel(as<LinearState>(readLinearState(state, 'plsq'))),
};

import { EigenvalueDecomposition, Matrix } from 'ml-matrix';
import type { Summary } from '../../summary';
import { LinearModel, type LinearState, regressionMoments } from '../linear';
import { RCOND_LIMIT } from '../linalg';
import { type Algorithm, ModelInputError, type ModelSpec } from '../types';
import { linearState, trainingR2 } from './coefficients';
import { optionalNumberParam, usePseudoInverse } from './params';
import { standardizedMoments } from './standardize';
import { as, readLinearState } from '../state-read';

/** Without `q`, pcr keeps the fewest components whose explained variance exceeds this fraction. */
export const DEFAULT_PCR_VARIANCE = 0.95;

/**
 * `pcr` (STATS.md §4): principal component regression = scikit-learn
 * StandardScaler + PCA + LinearRegression, from the summary. The inputs are standardized
 * (population sd), so the components are eigenvectors v_k of their correlation matrix R with
 * variances λ_k; the scores are uncorrelated, so least squares on them is γ_k = v_kᵀr/λ_k
 * (r = the inputs' covariances with y over their sd), and in original units
 * coef_j = Σ_k γ_k·v_jk / sd_j. `q` ∈ [1, p] components; default: the fewest whose
 * cumulative explained-variance ratio exceeds 0.95 (scikit-learn's PCA(n_components=0.95)).
 * A kept component of (near) zero variance is the singular-matrix rule's case.
 */
export const pcr: Algorithm = {
  name: 'pcr',
  task: 'regression',
  build(summary: Summary, spec: ModelSpec) {
    const m = regressionMoments(summary, spec);
    const p = m.inputNames.length;
    const requested = optionalNumberParam(spec, 'q', { min: 1, max: p, integer: true });
    const { sd, zz, zy } = standardizedMoments('pcr', m);
    const { values, vectors } = descendingEigen(zz);
    const total = values.reduce((s, v) => s + v, 0);
    const ratios = values.map((v) => v / total);
    const q = requested ?? defaultComponents(ratios);
    const pseudo = usePseudoInverse(spec);
    const standardized = new Array<number>(p).fill(0);
    for (let k = 0; k < q; k++) {
      const v = vectors.getColumn(k);
      if (!(values[k] > RCOND_LIMIT * values[0])) {
        if (pseudo) continue;
        const collinear = m.inputNames.filter((_, i) => Math.abs(v[i]) > 1e-6);
        throw new ModelInputError(
          `pcr: component ${k + 1} of ${q} has no variance (reciprocal condition ${(Math.max(0, values[k]) / values[0]).toExponential(2)}): collinear attributes [${collinear.join(', ')}]; set q < ${k + 1} or matrix_use_pseudoinv=true to drop it`,
        );
      }
      const gamma = v.reduce((s, vi, i) => s + vi * zy[i], 0) / values[k];
      for (let i = 0; i < p; i++) standardized[i] += gamma * v[i];
    }
    const coef = standardized.map((b, i) => b / sd[i]);
    const kept = ratios.slice(0, q).reduce((s, v) => s + v, 0);
    const extra: Record<string, string> = {};
    ratios.forEach((v, k) => {
      extra[`explained_variance_ratio_${k + 1}`] = String(v);
    });
    const info = { q: String(q), explained_variance: String(kept), r2: String(trainingR2(m, coef)) };
    return new LinearModel(linearState('pcr', m, coef, info, extra));
  },
  restore: (state) => new LinearModel(as<LinearState>(readLinearState(state, 'pcr'))),
};

/** scikit-learn's rule: one more than the number of components whose cumulative ratio is ≤ the fraction. */
function defaultComponents(ratios: readonly number[]): number {
  let cumulative = 0;
  let q = 1;
  for (let k = 0; k < ratios.length - 1; k++) {
    cumulative += ratios[k];
    if (cumulative <= DEFAULT_PCR_VARIANCE) q++;
    else break;
  }
  return q;
}

function descendingEigen(a: Matrix): { values: number[]; vectors: Matrix } {
  const evd = new EigenvalueDecomposition(a, { assumeSymmetric: true });
  const order = evd.realEigenvalues.map((_, k) => k).sort((x, y) => evd.realEigenvalues[y] - evd.realEigenvalues[x]);
  const vectors = new Matrix(a.rows, order.length);
  order.forEach((k, c) => vectors.setColumn(c, evd.eigenvectorMatrix.getColumn(k)));
  return { values: order.map((k) => evd.realEigenvalues[k]), vectors };
}

import type { Summary } from '../../summary';
import { symmetricEigen } from '../../matrix/matrices';
import { chiSquare } from '../jstat';
import { flatRows } from '../linalg';
import { num } from '../rows';
import { type Algorithm, ModelInputError, type ModelSpec } from '../types';
import { checkedInputs, integerParam, numberParam, SnapshotModel, type SnapshotState } from '../classifiers/model';
import { as, matrix, number, numbers, readSnapshotState } from '../state-read';

/** Default share of the variance the kept components explain (as pcr), and `repca_quantile`. */
export const REPCA_DEFAULTS = { variance: 0.95, repca_quantile: 0.975 };

interface RepcaState extends SnapshotState {
  sds: number[];
  /** Kept eigenvectors of the correlation matrix: loadings[i][k]. */
  loadings: number[][];
  threshold: number;
}

/**
 * `repca`: PCA reconstruction error (STATS.md §4). Inputs are standardized with their mean
 * and population standard deviation (sklearn StandardScaler); the correlation matrix's
 * eigenvectors span the model. `q` components are kept (default: the fewest whose share of
 * the variance exceeds 95 %, sklearn's PCA(n_components=0.95) rule, at most p − 1 so a
 * residual space remains).
 * - `score` = ‖z − V_qV_qᵀz‖², the squared reconstruction error (SPE, Q statistic) of the
 *   standardized row z;
 * - `res` = 1 when score exceeds the Q-statistic limit at `repca_quantile` (default 0.975):
 *   Box's approximation Q ≈ g·χ²_h with θ₁ = Σλ, θ₂ = Σλ² over the discarded eigenvalues,
 *   g = θ₂/θ₁, h = θ₁²/θ₂ (the exact mean of the learned rows' score is θ₁; the χ² shape
 *   assumes Gaussian scores on the discarded components).
 * Reference: numpy (test/models/anomaly/fixtures/gen_anomaly.py).
 */
export const repca: Algorithm = {
  name: 'repca',
  task: 'anomaly',
  build(summary: Summary, spec: ModelSpec) {
    const inputNames = checkedInputs(summary, spec, 2);
    const p = inputNames.length;
    const quantile = numberParam(spec, 'repca_quantile', REPCA_DEFAULTS.repca_quantile, (v) => v > 0 && v < 1, 'a number in (0, 1)');
    const requested = integerParam(spec, 'q', (v) => v >= 1 && v < p, `an integer in [1, ${p - 1}] (fewer than the ${p} inputs)`);
    const sds = spec.inputs.map((i, k) => {
      const m = summary.moments(i);
      const variance = summary.variance(i);
      if (!(m.count >= 2 && variance > 1e-12 * (m.sumSquares / m.count))) throw new ModelInputError(`repca: [${inputNames[k]}] has zero variance and cannot be standardized`);
      return Math.sqrt(variance);
    });
    const r = summary.correlation(spec.inputs);
    for (let a = 0; a < p; a++) for (let b = a + 1; b < p; b++) {
      if (Number.isNaN(r.get(a, b))) throw new ModelInputError(`repca: correlation of [${inputNames[a]}] and [${inputNames[b]}] is undefined (fewer than 2 rows where both are present)`);
    }
    const { values, vectors } = symmetricEigen(r);
    const total = values.reduce((s, v) => s + v, 0);
    let q = requested ?? 0;
    if (requested === undefined) {
      let cumulative = 0;
      while (q < p && cumulative <= REPCA_DEFAULTS.variance * total) cumulative += values[q++];
      q = Math.min(q, p - 1);
    }
    const discarded = values.slice(q).map((v) => Math.max(0, v));
    const theta1 = discarded.reduce((s, v) => s + v, 0);
    const theta2 = discarded.reduce((s, v) => s + v * v, 0);
    const threshold = theta1 > 0 ? (theta2 / theta1) * chiSquare.inv(quantile, (theta1 * theta1) / theta2) : 0;
    const loadings = Array.from({ length: p }, (_, i) => Array.from({ length: q }, (_, k) => vectors.get(i, k)));
    const extra: Record<string, string> = { eigenvalues: JSON.stringify(values) };
    const state: RepcaState = {
      algo: 'repca',
      inputNames,
      targetNames: spec.targets.map((t) => summary.attributeNames[t]),
      means: spec.inputs.map((i) => summary.mean(i)),
      info: { q: num(q), explained: num(values.slice(0, q).reduce((s, v) => s + v, 0) / total), threshold: num(threshold), repca_quantile: num(quantile) },
      extra,
      sds,
      loadings,
      threshold,
    };
    return repcaModel(state);
  },
  restore(state) {
    const { s, p } = readSnapshotState(state, 'repca');
    numbers(s.sds, 'state.sds', p);
    const loadings = matrix(s.loadings, 'state.loadings', p);
    matrix(loadings, 'state.loadings', p, loadings[0]?.length ?? 0);
    number(s.threshold, 'state.threshold');
    return repcaModel(as<RepcaState>(s));
  },
};

function repcaModel(state: RepcaState) {
  const loadings = flatRows(state.loadings);
  const p = state.inputNames.length;
  const q = state.loadings[0]?.length ?? 0;
  return new SnapshotModel(state, (x, s) => {
    const z = Array.from(x, (v, i) => (v - s.means[i]) / s.sds[i]);
    const t = new Float64Array(q);
    for (let i = 0; i < p; i++) for (let k = 0; k < q; k++) t[k] += loadings[i * q + k] * z[i];
    let score = 0;
    for (let i = 0; i < p; i++) {
      let fit = 0;
      for (let k = 0; k < q; k++) fit += loadings[i * q + k] * t[k];
      score += (z[i] - fit) ** 2;
    }
    return { res: score > s.threshold ? '1' : '0', score: num(score) };
  }, () => 2 * p * q);
}

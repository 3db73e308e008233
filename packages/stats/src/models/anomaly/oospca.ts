import type { Summary } from '../../summary';
import { symmetricEigen } from '../../matrix/matrices';
import { flatRows } from '../linalg';
import { num } from '../rows';
import { type Algorithm, ModelInputError, type ModelSpec } from '../types';
import { checkedInputs, numberParam, SnapshotModel, type SnapshotState } from '../classifiers/model';
import { checkedCovariance } from './moments';
import { as, matrix, number, numbers, readSnapshotState } from '../state-read';

/** Defaults: `oospca_ratio` (Lee et al.) and `oospca_threshold_sd`. */
export const OOSPCA_DEFAULTS = { oospca_ratio: 0.1, oospca_threshold_sd: 3 };

interface OospcaState extends SnapshotState {
  /** Eigenvalues of the covariance, decreasing. */
  values: number[];
  /** Eigenvectors as columns: vectors[i][k]. */
  vectors: number[][];
  /** Weight of the row's rank-one term: Σ̃ ∝ Σ + ρ·ddᵀ. */
  rho: number;
  threshold: number;
}

/**
 * `oospca`: over-sampling PCA (Lee, Yeh & Wang, IEEE TKDE 2013; STATS.md §4). Adding the
 * row x to the learned rows n·r times (r = `oospca_ratio`, default 0.1, > 0) turns the
 * population covariance into Σ̃ = (Σ + ρ·ddᵀ)/(1 + r) with d = x − μ and ρ = r/(1 + r)
 * (exact, not the paper's approximation). `score` = 1 − |cos(u, ũ)|, u and ũ the leading
 * eigenvectors of Σ and Σ̃. ũ comes from the secular equation of the rank-one update in Σ's
 * eigenbasis (z = Vᵀd, gaps g_k = λ₁ − λ_k): ũ ∝ Σ_k z_k/(t + g_k)·v_k with t > 0 the root
 * of 1 = ρ·Σ_k z_k²/(t + g_k), so a row costs O(p²), not an eigen-decomposition.
 * `res` = 1 when score > mean + `oospca_threshold_sd` (default 3) standard deviations of
 * the score of Gaussian rows with the learned covariance, estimated from 4000 rows drawn
 * with a fixed seed (the learned rows' own score distribution would need their fourth
 * moments).
 * The leading eigenvalue must be simple (else u is undefined). Reference: numpy
 * (eigenvectors of the literally over-sampled data's covariance).
 */
export const oospca: Algorithm = {
  name: 'oospca',
  task: 'anomaly',
  build(summary: Summary, spec: ModelSpec) {
    const inputNames = checkedInputs(summary, spec, 2);
    const ratio = numberParam(spec, 'oospca_ratio', OOSPCA_DEFAULTS.oospca_ratio, (v) => v > 0, 'a number > 0');
    const sd = numberParam(spec, 'oospca_threshold_sd', OOSPCA_DEFAULTS.oospca_threshold_sd, (v) => v >= 0, 'a number ≥ 0');
    const cov = checkedCovariance(summary, 'oospca', spec.inputs, inputNames);
    const { values, vectors } = symmetricEigen(cov);
    const lead = values[0];
    if (!(lead > 0) || !(lead - values[1] > 1e-10 * lead)) {
      throw new ModelInputError(`oospca: the largest eigenvalue of the covariance of [${inputNames.join(', ')}] is not simple, so the leading direction is undefined`);
    }
    const rho = ratio / (1 + ratio);
    const { mean, threshold } = gaussianScoreThreshold(values, rho, sd);
    const state: OospcaState = {
      algo: 'oospca',
      inputNames,
      targetNames: spec.targets.map((t) => summary.attributeNames[t]),
      means: spec.inputs.map((i) => summary.mean(i)),
      info: { oospca_ratio: num(ratio), threshold: num(threshold), expected_score: num(mean) },
      extra: { eigenvalues: JSON.stringify(values), leading: JSON.stringify(vectors.getColumn(0)) },
      values,
      vectors: vectors.to2DArray(),
      rho,
      threshold,
    };
    return oospcaModel(state);
  },
  restore(state) {
    const { s, p } = readSnapshotState(state, 'oospca');
    numbers(s.values, 'state.values', p);
    matrix(s.vectors, 'state.vectors', p, p);
    number(s.rho, 'state.rho');
    number(s.threshold, 'state.threshold');
    return oospcaModel(as<OospcaState>(s));
  },
};

/** Rows drawn to estimate the score distribution of Gaussian rows (deterministic). */
const THRESHOLD_SAMPLES = 4000;

/**
 * Mean and `mean + sd·σ` of the score of rows drawn from N(0, diag(λ)) (the learned
 * covariance in its eigenbasis), with a fixed-seed generator so a build is reproducible.
 * A first-order expansion in ρ would be cheaper but breaks down when λ₁ and λ₂ are close,
 * where it exceeds 1, the largest possible score.
 */
function gaussianScoreThreshold(values: readonly number[], rho: number, sd: number): { mean: number; threshold: number } {
  let seed = 0x2545f491;
  const uniform = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return (seed + 0.5) / 4294967296;
  };
  const gaussian = () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  let sum = 0;
  let sumSq = 0;
  for (let i = 0; i < THRESHOLD_SAMPLES; i++) {
    const z = values.map((v) => gaussian() * Math.sqrt(Math.max(0, v)));
    const score = oversampledScore(values, z, rho);
    sum += score;
    sumSq += score * score;
  }
  const mean = sum / THRESHOLD_SAMPLES;
  const sigma = Math.sqrt(Math.max(0, sumSq / THRESHOLD_SAMPLES - mean * mean));
  return { mean, threshold: mean + sd * sigma };
}

/** Newton steps oversampledScore takes at most (each O(p)): they count in the model's predictionSteps. */
const NEWTON_STEPS = 500;

/** 1 − |cos(e₁, ũ)| for the leading eigenvector ũ of diag(λ) + ρ·zzᵀ. */
export function oversampledScore(values: readonly number[], z: readonly number[], rho: number): number {
  const p = values.length;
  const gaps = values.map((v) => values[0] - v);
  const z1 = z[0] * z[0];
  if (z1 === 0) {
    // ũ stays e₁ unless the update lifts another direction above λ₁.
    let lift = 0;
    for (let k = 1; k < p; k++) lift += (rho * z[k] * z[k]) / gaps[k];
    return lift > 1 ? 1 : 0;
  }
  // f(t) = 1 − ρz₁²/t − ρΣ z_k²/(t + g_k) is increasing and concave on t > 0 and f(ρz₁²) ≤ 0,
  // so Newton from ρz₁² climbs monotonically to the root.
  let t = rho * z1;
  for (let iteration = 0; iteration < NEWTON_STEPS; iteration++) {
    let f = 1 - (rho * z1) / t;
    let df = (rho * z1) / (t * t);
    for (let k = 1; k < p; k++) {
      const w = z[k] * z[k];
      const u = t + gaps[k];
      f -= (rho * w) / u;
      df += (rho * w) / (u * u);
    }
    if (f >= 0) break;
    const step = -f / df;
    t += step;
    if (step <= 1e-16 * t) break;
  }
  const w1 = (z[0] / t) ** 2;
  let rest = 0;
  for (let k = 1; k < p; k++) rest += (z[k] / (t + gaps[k])) ** 2;
  const cos = Math.sqrt(w1 / (w1 + rest));
  // 1 − cos = sin²/(1 + cos), without cancellation when ũ is close to u.
  return rest / (w1 + rest) / (1 + cos);
}

function oospcaModel(state: OospcaState) {
  const vectors = flatRows(state.vectors);
  const p = state.inputNames.length;
  return new SnapshotModel(state, (x, s) => {
    const z = new Array<number>(p).fill(0);
    for (let i = 0; i < p; i++) {
      const d = x[i] - s.means[i];
      const at = i * p;
      for (let k = 0; k < p; k++) z[k] += vectors[at + k] * d;
    }
    const score = oversampledScore(s.values, z, s.rho);
    return { res: score > s.threshold ? '1' : '0', score: num(score) };
  }, () => p * p + NEWTON_STEPS * p);
}

import type { Matrix } from 'ml-matrix';
import type { Summary } from '../../summary';
import { chiSquare } from '../jstat';
import { flatRows, inverseOrExplain, quadraticForm } from '../linalg';
import { num } from '../rows';
import type { Algorithm, ModelSpec } from '../types';
import { checkedInputs, choiceParam, numberParam, SnapshotModel, type SnapshotState } from '../classifiers/model';
import { centredFourthMoments, checkedCovariance, commonCount } from './moments';
import { as, matrix, number, readSnapshotState } from '../state-read';

export const ESTIMATE_TYPES = ['empirical', 'ledoit_wolf', 'oas', 'shrunk'] as const;
export type EstimateType = (typeof ESTIMATE_TYPES)[number];
/** Defaults: `estimate_type`, `alpha` (shrunk) and `covest_quantile`. */
export const COVEST_DEFAULTS = { estimate_type: 'ledoit_wolf' as EstimateType, alpha: 0.1, covest_quantile: 0.975 };

/**
 * sklearn's `ledoit_wolf_shrinkage` (assume_centered=False) from the population covariance S
 * and the centred fourth co-moments C (centredFourthMoments):
 * β = (ΣC/n − ‖S‖²_F)/(p·n), δ = ‖S − μI‖²_F/p with μ = tr S/p, shrinkage = min(β, δ)/δ.
 */
function ledoitWolfShrinkage(s: Matrix, fourth: number[][], n: number): number {
  const p = s.rows;
  if (p === 1) return 0;
  const mu = s.trace() / p;
  let beta = 0;
  let squares = 0;
  let delta = 0;
  for (let i = 0; i < p; i++) {
    for (let j = 0; j < p; j++) {
      beta += fourth[i][j];
      squares += s.get(i, j) ** 2;
      delta += (s.get(i, j) - (i === j ? mu : 0)) ** 2;
    }
  }
  beta = (beta / n - squares) / (p * n);
  delta /= p;
  beta = Math.min(beta, delta);
  return beta === 0 ? 0 : beta / delta;
}

/** sklearn's `oas` (Chen et al.'s implementation, sklearn 1.2): min(1, (α + μ²)/((n + 1)(α − μ²/p))), α = mean(S²). */
function oasShrinkage(s: Matrix, n: number): number {
  const p = s.rows;
  const mu = s.trace() / p;
  let alpha = 0;
  for (let i = 0; i < p; i++) for (let j = 0; j < p; j++) alpha += s.get(i, j) ** 2;
  alpha /= p * p;
  const den = (n + 1) * (alpha - (mu * mu) / p);
  return den === 0 ? 1 : Math.min((alpha + mu * mu) / den, 1);
}

interface CovestState extends SnapshotState {
  precision: number[][];
  /** Squared-distance threshold: χ²_p quantile at covest_quantile. */
  threshold: number;
}

/**
 * `covest`: Mahalanobis distance to the mean under a covariance estimate (STATS.md §4),
 * `estimate_type` (default ledoit_wolf):
 * - `empirical`: the population covariance S (sklearn EmpiricalCovariance);
 * - `shrunk`: (1 − α)S + α·(tr S/p)·I, α = `alpha` (default 0.1; sklearn ShrunkCovariance);
 * - `ledoit_wolf`: the same with sklearn LedoitWolf's shrinkage, whose centred fourth
 *   co-moments are exact on the diagonal and approximate off it (centredFourthMoments);
 * - `oas`: the same with sklearn OAS's shrinkage.
 * Predictions: `score` = √((x − μ)ᵀΣ̂⁻¹(x − μ)), the Mahalanobis distance (sklearn's
 * `mahalanobis` is its square); `res` = 1 when score² exceeds the χ²_p quantile at
 * `covest_quantile` (default 0.975), else 0. n is the smallest pairwise co-present count
 * (all rows when no cell is missing).
 */
export const covest: Algorithm = {
  name: 'covest',
  task: 'anomaly',
  build(summary: Summary, spec: ModelSpec) {
    const inputNames = checkedInputs(summary, spec);
    const type = choiceParam(spec, 'estimate_type', ESTIMATE_TYPES, COVEST_DEFAULTS.estimate_type);
    const alpha = numberParam(spec, 'alpha', COVEST_DEFAULTS.alpha, (v) => v >= 0 && v <= 1, 'a number in [0, 1]');
    const quantile = numberParam(spec, 'covest_quantile', COVEST_DEFAULTS.covest_quantile, (v) => v > 0 && v < 1, 'a number in (0, 1)');
    const p = inputNames.length;
    const n = commonCount(summary, spec.inputs);
    const s = checkedCovariance(summary, 'covest', spec.inputs, inputNames);
    const shrinkage =
      type === 'empirical' ? 0
    : type === 'shrunk' ? alpha
      : type === 'oas' ? oasShrinkage(s, n)
      : ledoitWolfShrinkage(s, centredFourthMoments(summary, spec.inputs), n);
    const mu = s.trace() / p;
    const estimate = s.clone().mul(1 - shrinkage);
    for (let i = 0; i < p; i++) estimate.set(i, i, estimate.get(i, i) + shrinkage * mu);
    const precision = inverseOrExplain(estimate, inputNames, spec.params.matrix_use_pseudoinv === 'true');
    const threshold = chiSquare.inv(quantile, p);
    const means = spec.inputs.map((i) => summary.mean(i));
    const extra: Record<string, string> = { covariance: JSON.stringify(estimate.to2DArray()) };
    inputNames.forEach((name, i) => (extra[`mean_${name}`] = num(means[i])));
    const state: CovestState = {
      algo: 'covest',
      inputNames,
      targetNames: spec.targets.map((t) => summary.attributeNames[t]),
      means,
      info: { n: num(n), estimate_type: type, shrinkage: num(shrinkage), covest_quantile: num(quantile), threshold: num(Math.sqrt(threshold)) },
      extra,
      precision: precision.to2DArray(),
      threshold,
    };
    return covestModel(state);
  },
  restore(state) {
    const { s, p } = readSnapshotState(state, 'covest');
    matrix(s.precision, 'state.precision', p, p);
    number(s.threshold, 'state.threshold');
    return covestModel(as<CovestState>(s));
  },
};

function covestModel(state: CovestState) {
  const precision = flatRows(state.precision);
  const p = state.inputNames.length;
  return new SnapshotModel(state, (x, s) => {
    const q = quadraticForm(precision, Array.from(x, (v, i) => v - s.means[i]));
    return { res: q > s.threshold ? '1' : '0', score: num(Math.sqrt(Math.max(0, q))) };
  }, () => p * p);
}

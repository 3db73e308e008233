import type { Summary } from '../../summary';
import { num } from '../rows';
import type { Algorithm, ModelSpec } from '../types';
import { checkedInputs, integerParam, numberParam, SnapshotModel, type SnapshotState } from '../classifiers/model';
import { independentThreshold, lowerBound, marginal, points } from './marginals';
import { as, list, ModelStateError, number, numbers, object, readSnapshotState } from '../state-read';

/** Defaults: pyod HBOS's n_bins, alpha and tol, and the threshold's standard deviations. */
export const HBA_DEFAULTS = { hba_bins: 10, hba_alpha: 0.1, hba_tol: 0.5, hba_threshold_sd: 3 };

interface HbaInput {
  /** bins + 1 edges, numpy linspace over [min, max]. */
  edges: number[];
  /** log₂(density + alpha) per bin. */
  logDensity: number[];
}

interface HbaState extends SnapshotState {
  inputs: HbaInput[];
  tol: number;
  threshold: number;
}

/**
 * numpy.histogram(values, bins, density=True) of weighted points: equal-width bins over
 * [first, last] (widened by ±0.5 when equal) with numpy's edge arithmetic and its
 * correction of the bin index near edges, so exact points bin exactly as numpy bins them.
 */
function numpyHistogram(values: readonly number[], counts: readonly number[], bins: number): { edges: number[]; density: number[] } {
  let first = Math.min(...values);
  let last = Math.max(...values);
  if (first === last) {
    first -= 0.5;
    last += 0.5;
  }
  const step = (last - first) / bins;
  const edges = Array.from({ length: bins + 1 }, (_, k) => (k === bins ? last : k * step + first));
  const norm = bins / (last - first);
  const binCounts = new Array<number>(bins).fill(0);
  values.forEach((v, j) => {
    let k = Math.trunc((v - first) * norm);
    if (k === bins) k--;
    if (v < edges[k]) k--;
    if (v >= edges[k + 1] && k !== bins - 1) k++;
    binCounts[k] += counts[j];
  });
  const total = binCounts.reduce((s, c) => s + c, 0);
  return { edges, density: binCounts.map((c, k) => c / (edges[k + 1] - edges[k]) / total) };
}

/** pyod's per-input outlier term log₂(density + alpha) of x (larger = more normal). */
/** The least value (Math.min(...values) overflows the stack on a long array). */
function smallest(values: readonly number[]): number {
  let m = Infinity;
  for (const v of values) m = Math.min(m, v);
  return m;
}

function term(input: HbaInput, x: number, tol: number): number {
  const { edges, logDensity } = input;
  const bins = logDensity.length;
  // np.digitize(x, edges, right=True): edges[k−1] < x ≤ edges[k].
  const k = lowerBound(edges, x);
  if (k === 0) return edges[0] - x <= (edges[1] - edges[0]) * tol ? logDensity[0] : smallest(logDensity);
  if (k === bins + 1) return x - edges[bins] <= (edges[bins] - edges[bins - 1]) * tol ? logDensity[bins - 1] : smallest(logDensity);
  return logDensity[k - 1];
}

/**
 * `hba`: HBOS, histogram-based outlier score (Goldstein & Dengel 2012; STATS.md §4), as
 * pyod's HBOS (static bins) computes it, from the summary's per-input histograms:
 * per input, `hba_bins` (default 10) equal-width bins over [min, max] with densities
 * count/(width·n) (numpy.histogram density=True); `score` = Σ_i −log₂(density_i(x_i) +
 * `hba_alpha`) (default 0.1), where x_i falls in the bin (edge_{k−1}, edge_k] and a value
 * outside [min, max] takes the edge bin when within `hba_tol` (default 0.5) bin widths, else
 * the smallest log-density of that input. `res` = 1 when score > mean + `hba_threshold_sd`
 * (default 3) standard deviations of the learned rows' score, the mean exact and the
 * variance that of independent inputs (HBOS's own assumption); pyod instead thresholds at
 * the training score's (1 − contamination) quantile, which needs the rows.
 * Exact histograms (and binary inputs) reproduce pyod exactly; a streaming histogram places
 * each of its bins' counts at the bin midpoint (within one streaming bin width).
 * Needs histograms for continuous inputs.
 */
export const hba: Algorithm = {
  name: 'hba',
  task: 'anomaly',
  build(summary: Summary, spec: ModelSpec) {
    const inputNames = checkedInputs(summary, spec);
    const bins = integerParam(spec, 'hba_bins', (v) => v >= 1, 'an integer ≥ 1') ?? HBA_DEFAULTS.hba_bins;
    const alpha = numberParam(spec, 'hba_alpha', HBA_DEFAULTS.hba_alpha, (v) => v > 0, 'a number > 0');
    const tol = numberParam(spec, 'hba_tol', HBA_DEFAULTS.hba_tol, (v) => v >= 0, 'a number ≥ 0');
    const sd = numberParam(spec, 'hba_threshold_sd', HBA_DEFAULTS.hba_threshold_sd, (v) => v >= 0, 'a number ≥ 0');
    const marginals = spec.inputs.map((i) => points(marginal(summary, 'hba', i)));
    const inputs = marginals.map((m): HbaInput => {
      const { edges, density } = numpyHistogram(m.values, m.counts, bins);
      return { edges, logDensity: density.map((d) => Math.log2(d + alpha)) };
    });
    const { mean, threshold } = independentThreshold(
      marginals.map((m) => m.counts),
      marginals.map((m, i) => m.values.map((v) => -term(inputs[i], v, tol))),
      sd,
    );
    const extra: Record<string, string> = {};
    inputNames.forEach((name, i) => {
      extra[`edges_${name}`] = JSON.stringify(inputs[i].edges);
      extra[`density_${name}`] = JSON.stringify(inputs[i].logDensity.map((l) => 2 ** l - alpha));
    });
    const state: HbaState = {
      algo: 'hba',
      inputNames,
      targetNames: spec.targets.map((t) => summary.attributeNames[t]),
      means: spec.inputs.map((i) => summary.mean(i)),
      info: { hba_bins: num(bins), hba_alpha: num(alpha), hba_tol: num(tol), mean_score: num(mean), threshold: num(threshold) },
      extra,
      inputs,
      tol,
      threshold,
    };
    return hbaModel(state);
  },
  restore(state) {
    const { s, p } = readSnapshotState(state, 'hba');
    list(s.inputs, 'state.inputs', p).forEach((input, i) => {
      const o = object(input, `state.inputs[${i}]`);
      const edges = numbers(o.edges, `state.inputs[${i}].edges`);
      if (edges.length < 2) throw new ModelStateError(`state.inputs[${i}].edges has ${edges.length} entries, fewer than 2`);
      numbers(o.logDensity, `state.inputs[${i}].logDensity`, edges.length - 1);
    });
    number(s.tol, 'state.tol');
    number(s.threshold, 'state.threshold');
    return hbaModel(as<HbaState>(s));
  },
};

function hbaModel(state: HbaState) {
  return new SnapshotModel(state, (x, s) => {
    let score = 0;
    s.inputs.forEach((input, i) => (score -= term(input, x[i], s.tol)));
    return { res: score > s.threshold ? '1' : '0', score: num(score) };
  });
}

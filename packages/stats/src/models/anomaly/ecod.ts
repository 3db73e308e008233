import type { Summary } from '../../summary';
import { num } from '../rows';
import type { Algorithm, ModelSpec } from '../types';
import { checkedInputs, numberParam, SnapshotModel, type SnapshotState } from '../classifiers/model';
import { independentThreshold, lowerBound, type Marginal, marginal, points, upperBound } from './marginals';
import { as, choice, list, number, numbers, object, readSnapshotState } from '../state-read';

/** Default `ecod_threshold_sd`. */
export const ECOD_DEFAULTS = { ecod_threshold_sd: 3 };

interface EcodInput {
  marginal: Marginal;
  /** cumulative[j] = counts[0] + … + counts[j]. */
  cumulative: number[];
  /** Learned count, Σx, Σx², Σx³ (for the skewness with the row added). */
  n: number;
  s1: number;
  s2: number;
  s3: number;
}

interface EcodState extends SnapshotState {
  inputs: EcodInput[];
  threshold: number;
}

/** Learned values ≤ x and ≥ x: exact for exact marginals, linear inside a streaming bin. */
function tails(input: EcodInput, x: number): [atMost: number, atLeast: number] {
  const m = input.marginal;
  const cum = input.cumulative;
  const before = (j: number) => (j > 0 ? cum[j - 1] : 0);
  if (m.kind === 'exact') return [before(upperBound(m.values, x)), input.n - before(lowerBound(m.values, x))];
  const j = upperBound(m.lower, x) - 1;
  let below = before(j + 1);
  if (j >= 0 && x < m.upper[j]) below = before(j) + (m.counts[j] * (x - m.lower[j])) / (m.upper[j] - m.lower[j]);
  return [below, input.n - below];
}

/**
 * ECOD's per-input outlier term of x (pyod ECOD.decision_function on the learned rows plus
 * this row): tail probabilities of the empirical CDF with the row included,
 * U_l = −ln((#{≤x} + 1)/(n + 1)), U_r = −ln((#{≥x} + 1)/(n + 1)); the skewness sign of the
 * learned values plus x picks U_l (negative), U_r (positive) or U_l + U_r (zero, as pyod's
 * sign arithmetic gives); the term is max(that, (U_l + U_r)/2).
 */
function term(input: EcodInput, x: number): number {
  const [atMost, atLeast] = tails(input, x);
  const n1 = input.n + 1;
  const left = -Math.log((atMost + 1) / n1);
  const right = -Math.log((atLeast + 1) / n1);
  const mean = (input.s1 + x) / n1;
  const m2 = (input.s2 + x * x) / n1;
  const m3 = (input.s3 + x * x * x) / n1 - 3 * mean * m2 + 2 * mean ** 3;
  const skewed = m3 < 0 ? left : m3 > 0 ? right : left + right;
  return Math.max(skewed, (left + right) / 2);
}

/**
 * `ecod`: empirical-CDF-based outlier detection (Li et al., IEEE TKDE 2022; STATS.md §4)
 * from the summary's histograms and power sums. `ecodscore` = Σ_i term_i(x_i), with term as
 * above, equals pyod's ECOD (n_jobs=1) decision_function for a batch of this one row with
 * exact histograms. Differences from pyod: a batch of several rows is scored row by row
 * (pyod pools the whole batch into the ECDF and the skewness); a streaming histogram
 * interpolates the ECDF linearly inside a bin; the paper's max over the three aggregated
 * sums (left, right, skewness-corrected) is pyod's per-input max with the two-tail average
 * instead, which is what is computed here; a constant input has skewness 0 (pyod: NaN).
 * `res` = 1 when ecodscore > mean + `ecod_threshold_sd` (default 3) standard deviations of
 * the learned rows' ecodscore (each row scored as a prediction), mean exact, variance that
 * of independent inputs. Needs histograms for continuous inputs.
 */
export const ecod: Algorithm = {
  name: 'ecod',
  task: 'anomaly',
  build(summary: Summary, spec: ModelSpec) {
    const inputNames = checkedInputs(summary, spec);
    const sd = numberParam(spec, 'ecod_threshold_sd', ECOD_DEFAULTS.ecod_threshold_sd, (v) => v >= 0, 'a number ≥ 0');
    const inputs = spec.inputs.map((i): EcodInput => {
      const m = marginal(summary, 'ecod', i);
      const moments = summary.moments(i);
      let running = 0;
      return { marginal: m, cumulative: m.counts.map((c) => (running += c)), n: running, s1: moments.sum, s2: moments.sumSquares, s3: moments.sumCubes };
    });
    const pts = inputs.map((input) => points(input.marginal));
    const { mean, threshold } = independentThreshold(
      pts.map((p) => p.counts),
      pts.map((p, i) => p.values.map((v) => term(inputs[i], v))),
      sd,
    );
    const state: EcodState = {
      algo: 'ecod',
      inputNames,
      targetNames: spec.targets.map((t) => summary.attributeNames[t]),
      means: spec.inputs.map((i) => summary.mean(i)),
      info: { mean_score: num(mean), threshold: num(threshold) },
      extra: {},
      inputs,
      threshold,
    };
    return ecodModel(state);
  },
  restore(state) {
    const { s, p } = readSnapshotState(state, 'ecod');
    list(s.inputs, 'state.inputs', p).forEach((input, i) => {
      const path = `state.inputs[${i}]`;
      const o = object(input, path);
      const m = object(o.marginal, `${path}.marginal`);
      const bins = numbers(m.counts, `${path}.marginal.counts`).length;
      const ends = choice(m.kind, `${path}.marginal.kind`, ['exact', 'binned'] as const) === 'exact' ? ['values'] : ['lower', 'upper'];
      for (const k of ends) numbers(m[k], `${path}.marginal.${k}`, bins);
      if (m.kind === 'binned') for (const k of ['min', 'max']) number(m[k], `${path}.marginal.${k}`);
      numbers(o.cumulative, `${path}.cumulative`, bins);
      for (const k of ['n', 's1', 's2', 's3']) number(o[k], `${path}.${k}`);
    });
    number(s.threshold, 'state.threshold');
    return ecodModel(as<EcodState>(s));
  },
};

function ecodModel(state: EcodState) {
  return new SnapshotModel(state, (x, s) => {
    let score = 0;
    s.inputs.forEach((input, i) => (score += term(input, x[i])));
    return { res: score > s.threshold ? '1' : '0', ecodscore: num(score) };
  });
}

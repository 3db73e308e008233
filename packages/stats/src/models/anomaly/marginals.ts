import type { Summary } from '../../summary';
import { ModelInputError } from '../types';

/**
 * One input's learned values: `exact` points (value → count), or `binned` counts over
 * [lower, upper) from a streaming histogram. Binary inputs are always exact, from their
 * moments (n − Σx zeros, Σx ones), with or without histograms.
 */
export type Marginal =
  | { kind: 'exact'; values: number[]; counts: number[] }
  | { kind: 'binned'; lower: number[]; upper: number[]; counts: number[]; min: number; max: number };

export function marginal(summary: Summary, algo: string, input: number): Marginal {
  const name = summary.attributeNames[input];
  if (summary.attributeTypes[input] === 'B') {
    const n = summary.count(input);
    const ones = summary.moments(input).sum;
    const points: Array<[number, number]> = [[0, n - ones], [1, ones]];
    const present = points.filter(([, c]) => c > 0);
    return { kind: 'exact', values: present.map(([v]) => v), counts: present.map(([, c]) => c) };
  }
  const h = summary.histogram(input);
  if (h === undefined) throw new ModelInputError(`${algo} needs histograms: enable them on the project (no histogram for [${name}])`);
  const bins = h.toBins();
  if (h.mode === 'exact') return { kind: 'exact', values: bins.map((b) => b.lower), counts: bins.map((b) => b.count) };
  return { kind: 'binned', lower: bins.map((b) => b.lower), upper: bins.map((b) => b.upper), counts: bins.map((b) => b.count), min: summary.min(input), max: summary.max(input) };
}

/**
 * The marginal as weighted points: exact values, or each streaming bin's count at the bin's
 * midpoint clamped into [min, max] (as Histogram.density places it).
 */
export function points(m: Marginal): { values: number[]; counts: number[] } {
  if (m.kind === 'exact') return { values: m.values, counts: m.counts };
  return { values: m.lower.map((lo, k) => Math.min(m.max, Math.max(m.min, (lo + m.upper[k]) / 2))), counts: m.counts };
}

/**
 * mean + k·sd of Σ_i s_i(x_i) over the learned rows when the inputs are independent (the
 * detectors' own assumption): the mean is exact whatever the dependence, the variance is
 * the sum of the per-input variances. `scores[i][j]` is input i's term at its j-th point.
 */
export function independentThreshold(counts: readonly number[][], scores: readonly number[][], k: number): { mean: number; sd: number; threshold: number } {
  let mean = 0;
  let variance = 0;
  counts.forEach((c, i) => {
    const n = c.reduce((s, v) => s + v, 0);
    let m = 0;
    for (let j = 0; j < c.length; j++) m += (c[j] * scores[i][j]) / n;
    let v = 0;
    for (let j = 0; j < c.length; j++) v += (c[j] * (scores[i][j] - m) ** 2) / n;
    mean += m;
    variance += v;
  });
  const sd = Math.sqrt(variance);
  return { mean, sd, threshold: mean + k * sd };
}

/** Index of the first element of the ascending `sorted` that is ≥ x (= how many are < x). */
export function lowerBound(sorted: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the first element of the ascending `sorted` that is > x (= how many are ≤ x). */
export function upperBound(sorted: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

import type { Attributes } from './attributes';
import { studentQuantile } from './distributions';
import { ExploreInputError } from './errors';
import { snapVariance } from './sample';
import type { ExploreOptions, MetricInput, MetricMap } from './types';

/**
 * `uni` (STATS.md §3) of inputAttributes[0], from the power sums n, Σx, Σx², Σx³, Σx⁴:
 *
 * - variance = m₂ (population), stddev = √m₂, with mₖ the k-th central moment;
 * - skewness = g₁·n²/((n−1)(n−2)), g₁ = m₃/m₂^{3/2}; NaN when n < 3 or m₂ = 0;
 * - kurtosis = G₂ = ((n+1)g₂ + 6)(n−1)/((n−2)(n−3)), g₂ = m₄/m₂² − 3; NaN when n < 4 or m₂ = 0;
 * - stderr = √(variance/n); meanMarginErrorC95 = t₀.₉₇₅,ₙ₋₁·stderr (NaN when n < 2);
 * - min/median/max from the histogram when the project keeps them, else the extremes ever
 *   learned and median NaN.
 */
export function univariate(attributes: Attributes, input: MetricInput, options: ExploreOptions): MetricMap {
  if (input.inputs.length < 1) throw new ExploreInputError('uni needs 1 input attribute, got 0');
  const summary = attributes.summary;
  const i = input.inputs[0];
  const m = summary.moments(i);
  const n = m.count;
  const mean = m.sum / n;
  // Central moments from raw power sums.
  const r2 = m.sumSquares / n;
  const r3 = m.sumCubes / n;
  const r4 = m.sumFourths / n;
  const m2 = n > 0 ? snapVariance(Math.max(0, r2 - mean * mean), mean) : NaN;
  const m3 = r3 - 3 * mean * r2 + 2 * mean ** 3;
  const m4 = r4 - 4 * mean * r3 + 6 * mean * mean * r2 - 3 * mean ** 4;
  const defined = m2 > 0;
  const g1 = m3 / m2 ** 1.5;
  const g2 = m4 / (m2 * m2) - 3;
  const stderr = Math.sqrt(m2 / n);
  const histograms = options.histograms && summary.histogram(i) !== undefined;
  return {
    count: n,
    mean,
    variance: m2,
    stddev: Math.sqrt(m2),
    skewness: defined && n >= 3 ? (g1 * n * n) / ((n - 1) * (n - 2)) : NaN,
    kurtosis: defined && n >= 4 ? (((n + 1) * g2 + 6) * (n - 1)) / ((n - 2) * (n - 3)) : NaN,
    stderr,
    meanMarginErrorC95: n >= 2 ? studentQuantile(0.975, n - 1) * stderr : NaN,
    min: histograms ? summary.min(i) : m.min,
    median: histograms ? summary.median(i) : NaN,
    max: histograms ? summary.max(i) : m.max,
  };
}

/**
 * The keys of `uni` that are approximate for this attribute (docs/concepts.md "What is
 * approximate"): with a streaming histogram the median is within one bin width and min/max
 * are bounded by the occupied bins' edges; without histograms min/max are the extremes ever
 * learned (forgotten rows still count). An exact histogram gives all of them exactly.
 */
export function univariateApproximate(attributes: Attributes, input: MetricInput, options: ExploreOptions): string[] {
  const i = input.inputs[0];
  if (i === undefined) return [];
  const histogram = options.histograms ? attributes.summary.histogram(i) : undefined;
  if (histogram === undefined) return ['min', 'max'];
  return histogram.mode === 'exact' ? [] : ['min', 'median', 'max'];
}

import type { Summary } from '../summary';

/** Count, mean and population variance of one group of values. */
export interface Sample {
  readonly n: number;
  readonly mean: number;
  /** Population (÷n, STATS.md §2); exactly 0 for a constant group; NaN when n = 0. */
  readonly variance: number;
}

/**
 * Variances come from raw power sums, Σx²/n − mean², whose rounding is a few ulps of mean²
 * (the sums themselves are compensated). Anything below this multiple of mean² is that
 * rounding, not spread: it is taken as exactly 0, so a constant attribute gives NaN
 * statistics instead of the ratio of two rounding errors.
 */
export const ZERO_VARIANCE = 1e-13;

export function snapVariance(variance: number, mean: number): number {
  return variance <= ZERO_VARIANCE * mean * mean ? 0 : variance;
}

/** An attribute over the rows where it is present. */
export function attributeSample(summary: Summary, attribute: number): Sample {
  const n = summary.count(attribute);
  const mean = summary.mean(attribute);
  return { n, mean, variance: snapVariance(summary.variance(attribute), mean) };
}

/** Attribute x over the rows where binary b = 1 (and x is present), from Σb, Σx·b, Σx²·b² (STATS.md §1). */
export function conditionalSample(summary: Summary, x: number, b: number): Sample {
  const m = summary.conditionalMoments(x, b);
  return { n: m.count, mean: m.mean, variance: snapVariance(m.variance, m.mean) };
}

/** The unbiased (÷(n−1)) variance; NaN when n < 2. */
export function unbiasedVariance(s: Sample): number {
  return s.n >= 2 ? (s.variance * s.n) / (s.n - 1) : NaN;
}

/** num / den for a denominator that must be positive (a variance, a count, degrees of freedom); NaN otherwise. */
export function ratio(num: number, den: number): number {
  return den > 0 && Number.isFinite(den) ? num / den : NaN;
}

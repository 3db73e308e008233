/**
 * The contract functions and how each is computed from a summary's moments and
 * co-moments. Every value is over the rows where the named attributes are
 * present: one attribute's own moments, or a pair's pairwise-complete co-moments, where for a
 * binary b: n₁ = Σb, Σab, Σa²b (b² = b) give the b = 1 rows and the rest the b = 0 rows.
 */
import type { PairMoments, Summary } from '@sml/stats';

/** What an argument may be: `C|B` any numeric attribute (C, B or a categorical level), `B` binary only, `C` continuous only. */
export type ArgumentType = 'C|B' | 'B' | 'C';

export interface ContractFunction {
  readonly args: readonly ArgumentType[];
  readonly value: (summary: Summary, args: readonly string[]) => number;
}

/** a / b, NaN when b is 0 (a contract reads a division by zero as NaN). */
const div = (a: number, b: number): number => (b === 0 ? NaN : a / b);

/** Count, mean and population variance of a group, the unbiased forms × n/(n−1); NaN for an empty group. */
interface Group { readonly n: number; readonly mean: number; readonly variance: number }
type Statistic = 'COUNT' | 'MEAN' | 'VARIANCE' | 'STDDEV' | 'VARIANCE_UNBIASED' | 'STDDEV_UNBIASED';

function statistic(g: Group, s: Statistic): number {
  if (g.n === 0) return NaN;
  switch (s) {
    case 'COUNT': return g.n;
    case 'MEAN': return g.mean;
    case 'VARIANCE': return g.variance;
    case 'STDDEV': return Math.sqrt(g.variance);
    case 'VARIANCE_UNBIASED': return div(g.variance * g.n, g.n - 1);
    case 'STDDEV_UNBIASED': return Math.sqrt(div(g.variance * g.n, g.n - 1));
  }
}

/** A group from its count and Σa, Σa²; the variance clamped at 0 against rounding. */
function group(n: number, sum: number, sumSquares: number): Group {
  const mean = div(sum, n);
  return { n, mean, variance: Math.max(0, div(sumSquares, n) - mean * mean) };
}

/** The attribute's moments, or undefined when the summary does not hold it. */
function single(summary: Summary, a: string): Group | undefined {
  if (summary.indexOf(a) < 0) return undefined;
  const m = summary.moments(a);
  return group(m.count, m.sum, m.sumSquares);
}

/** The pair's co-moments (x = first, y = second), or undefined when either is absent. */
function pair(summary: Summary, a: string, b: string): PairMoments | undefined {
  return summary.indexOf(a) < 0 || summary.indexOf(b) < 0 ? undefined : summary.comoments(a, b);
}

/** Rows with b = 1 (`true`) or b = 0 of a over the rows where both are present. */
function conditional(m: PairMoments, when: boolean): Group {
  return when ? group(m.sumY, m.sumXY, m.sumXXYY) : group(m.count - m.sumY, m.sumX - m.sumXY, m.sumXX - m.sumXXYY);
}

const uni = (s: Statistic): ContractFunction => ({
  args: ['C|B'],
  value: (summary, [a]) => {
    const g = single(summary, a);
    return g === undefined ? NaN : statistic(g, s);
  },
});

/** A function of the pair's co-moments; NaN when an attribute is absent or no row has both. */
const onPair = (args: readonly ArgumentType[], f: (m: PairMoments) => number): ContractFunction => ({
  args,
  value: (summary, [a, b]) => {
    const m = pair(summary, a, b);
    return m === undefined || m.count === 0 ? NaN : f(m);
  },
});

const cond = (when: boolean, s: Statistic, args: readonly ArgumentType[] = ['C|B', 'B']): ContractFunction => onPair(args, (m) => statistic(conditional(m, when), s));

const covariance = (m: PairMoments): number => (m.sumXY - (m.sumX * m.sumY) / m.count) / m.count;

function pearson(m: PairMoments): number {
  const vx = Math.max(0, (m.sumXX - (m.sumX * m.sumX) / m.count) / m.count);
  const vy = Math.max(0, (m.sumYY - (m.sumY * m.sumY) / m.count) / m.count);
  const r = div(covariance(m), Math.sqrt(vx * vy));
  return Number.isNaN(r) ? NaN : Math.min(1, Math.max(-1, r));
}

/** Canonical names (SymetryML's spelling, `OCCURENCE` included) → definition. */
export const CONTRACT_FUNCTIONS: Readonly<Record<string, ContractFunction>> = {
  COUNT: uni('COUNT'),
  MEAN: uni('MEAN'),
  VARIANCE: uni('VARIANCE'),
  STDDEV: uni('STDDEV'),
  VARIANCE_UNBIASED: uni('VARIANCE_UNBIASED'),
  STDDEV_UNBIASED: uni('STDDEV_UNBIASED'),
  COVAR: onPair(['C|B', 'C|B'], covariance),
  LINCORR: onPair(['C|B', 'C|B'], pearson),
  COND_COUNT: cond(true, 'COUNT'),
  COND_MEAN: cond(true, 'MEAN'),
  COND_VARIANCE: cond(true, 'VARIANCE'),
  COND_STDDEV: cond(true, 'STDDEV'),
  COND_VARIANCE_UNBIASED: cond(true, 'VARIANCE_UNBIASED'),
  COND_STDDEV_UNBIASED: cond(true, 'STDDEV_UNBIASED'),
  COMPL_COND_VARIANCE: cond(false, 'VARIANCE'),
  COMPL_COND_STDDEV: cond(false, 'STDDEV'),
  COMPL_COND_VARIANCE_UNBIASED: cond(false, 'VARIANCE_UNBIASED'),
  COMPL_COND_STDDEV_UNBIASED: cond(false, 'STDDEV_UNBIASED'),
  MEAN_WHEN_TRUE: cond(true, 'MEAN', ['C', 'B']),
  MEAN_WHEN_FALSE: cond(false, 'MEAN', ['C', 'B']),
  NUM_OCCURENCE_WHEN_TRUE: onPair(['B', 'B'], (m) => m.sumXY),
  NUM_OCCURENCE_WHEN_FALSE: onPair(['B', 'B'], (m) => m.sumX - m.sumXY),
  PCT_OF_TRUE: onPair(['B', 'B'], (m) => 100 * div(m.sumXY, m.sumY)),
  PCT_OF_FALSE: onPair(['B', 'B'], (m) => 100 * div(m.sumX - m.sumXY, m.count - m.sumY)),
};

/** Other spellings accepted on input, read as the canonical name: the docs' `OCCURRENCE`. */
const ALIASES: Readonly<Record<string, string>> = {
  NUM_OCCURRENCE_WHEN_TRUE: 'NUM_OCCURENCE_WHEN_TRUE',
  NUM_OCCURRENCE_WHEN_FALSE: 'NUM_OCCURENCE_WHEN_FALSE',
};

/** The canonical name of a function as written (any case), or undefined for an unknown one. */
export function canonicalFunction(written: string): string | undefined {
  const upper = written.toUpperCase();
  const name = ALIASES[upper] ?? upper;
  return Object.hasOwn(CONTRACT_FUNCTIONS, name) ? name : undefined;
}

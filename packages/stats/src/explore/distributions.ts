import { betaTails, gammaTails, lnBeta } from './special';

// jstat ships no types; this is the one function used here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { jStat } = require('jstat') as { jStat: { studentt: { inv(p: number, dof: number): number } } };

/**
 * The distributions of the explore tests, from the special functions of special.ts (see
 * there why not jstat's). p-values are two-sided unless named otherwise (STATS.md §2).
 */

/** P(|Z| ≥ |z|) for a standard normal Z: Q(½, z²/2) = erfc(|z|/√2). */
export function normalTwoSided(z: number): number {
  return gammaTails(0.5, (z * z) / 2)[1];
}

/** P(|T| ≥ |t|) for Student's t with `df` degrees of freedom: I_{ν/(ν+t²)}(ν/2, ½). */
export function studentTwoSided(t: number, df: number): number {
  if (Number.isNaN(t) || !(df > 0)) return NaN;
  if (!Number.isFinite(t)) return 0;
  const t2 = t * t;
  return betaTails(df / (df + t2), t2 / (df + t2), df / 2, 0.5)[0];
}

function studentDensity(t: number, df: number): number {
  return Math.exp(-lnBeta(df / 2, 0.5) - 0.5 * Math.log(df) - ((df + 1) / 2) * Math.log1p((t * t) / df));
}

/**
 * The p-quantile of Student's t for ½ < p < 1: jstat's inverse as the starting point (good
 * to ~1e-8), then Newton steps on the accurate two-sided tail until they stop mattering.
 */
export function studentQuantile(p: number, df: number): number {
  if (!(df > 0) || !(p > 0.5 && p < 1)) return NaN;
  const alpha = 2 * (1 - p);
  let t = jStat.studentt.inv(p, df);
  for (let i = 0; i < 20; i++) {
    const step = (studentTwoSided(t, df) - alpha) / (2 * studentDensity(t, df));
    t += step;
    if (Math.abs(step) <= 4 * Number.EPSILON * t) break;
  }
  return t;
}

/** [P(X ≤ x), P(X > x)] for X ~ χ² with `df` degrees of freedom. */
export function chiSquareTails(x: number, df: number): [cdf: number, sf: number] {
  if (!(df > 0)) return [NaN, NaN];
  return gammaTails(df / 2, x / 2);
}

/** [P(X ≤ f), P(X > f)] for X ~ F(d1, d2). */
export function fTails(f: number, d1: number, d2: number): [cdf: number, sf: number] {
  if (Number.isNaN(f) || !(d1 > 0) || !(d2 > 0)) return [NaN, NaN];
  if (f <= 0) return [0, 1];
  if (f === Infinity) return [1, 0];
  const scaled = d1 * f;
  return betaTails(scaled / (scaled + d2), d2 / (scaled + d2), d1 / 2, d2 / 2);
}

/** Two-sided p-value of a statistic from its two tails: 2·min(cdf, sf), at most 1. */
export function twoSided([cdf, sf]: [number, number]): number {
  return Math.min(1, 2 * Math.min(cdf, sf));
}

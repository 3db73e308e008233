/**
 * Compensated sums stored in place in a Float64Array: the running sum at `k` and the running
 * compensation (the rounding error the sum has dropped so far) at `k + 1`. The value is
 * their sum. This is Neumaier's scheme, with each rounding error taken by Knuth's branch-free
 * TwoSum: it is the same exact error Neumaier's |s| ≥ |v| branch picks, so the results are
 * identical bit for bit, but a data-dependent branch per term mispredicts on mixed signs
 * and made learning about 4× slower. Because the compensation recovers almost all rounding error,
 * learning rows and later forgetting them (in any order or chunking) brings a sum back to
 * zero up to a few ulps of the largest partial sum, which plain summation does not.
 */

/** Adds `v` to the compensated sum at `a[k]`. */
export function addCompensated(a: Float64Array, k: number, v: number): void {
  const s = a[k];
  const t = s + v;
  a[k + 1] += twoSumError(s, v, t);
  a[k] = t;
}

/** The exact rounding error of t = s + v (Knuth's TwoSum): s + v = t + error exactly. */
export function twoSumError(s: number, v: number, t: number): number {
  const vv = t - s;
  return s - (t - vv) + (v - vv);
}

/** Adds `sign` times the compensated sum at `b[kb]` to the one at `a[ka]` (merge: +1, subtract: -1). */
export function combineCompensated(a: Float64Array, ka: number, b: Float64Array, kb: number, sign: 1 | -1): void {
  addCompensated(a, ka, sign * b[kb]);
  a[ka + 1] += sign * b[kb + 1];
}

/** The value of the compensated sum at `a[k]`. */
export function compensatedValue(a: Float64Array, k: number): number {
  return a[k] + a[k + 1];
}

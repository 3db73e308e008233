/**
 * Neumaier-compensated sums stored in place in a Float64Array: the running sum at `k` and
 * the running compensation (the rounding error the sum has dropped so far) at `k + 1`.
 * The value is their sum. Because the compensation recovers almost all rounding error,
 * learning rows and later forgetting them (in any order or chunking) brings a sum back to
 * zero up to a few ulps of the largest partial sum, which plain summation does not.
 */

/** Adds `v` to the compensated sum at `a[k]`. */
export function addCompensated(a: Float64Array, k: number, v: number): void {
  const s = a[k];
  const t = s + v;
  // Inline |s| ≥ |v|: this runs per pair per row, and Math calls are not always inlined (e.g. in vm contexts).
  a[k + 1] += (s < 0 ? -s : s) >= (v < 0 ? -v : v) ? s - t + v : v - t + s;
  a[k] = t;
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

import type { NativeAddon } from './native';

/** Bin indexes stay below 2^52 in magnitude so that index arithmetic is exact. */
export const INDEX_LIMIT = 2 ** 52;

/*
 * The tight loop of a streaming histogram's addColumn (histogram.ts): the present values
 * (NaN = missing) among values[rows[t]] (values[t] when rows is null), from row t, whose bin
 * k = ⌊v / width⌋ is already inside the window and keeps the span [kmin, kmax] within `bins`,
 * are counted; the loop stops at the first other value (its row is returned), which the
 * caller adds the general way. state = [width, lo, bins, kmin, kmax, added]: the last three
 * are written back. Both forms give the same counts (histogram.test.ts).
 */
export interface HistogramKernel {
  readonly name: 'native' | 'js';
  binColumn(values: Float64Array, rows: Int32Array | null, t: number, count: number, counts: Float64Array, state: Float64Array): number;
}

export const jsHistogram: HistogramKernel = {
  name: 'js',
  binColumn(values, rows, t, count, counts, state) {
    const [w, lo, bins] = state;
    let kmin = state[3];
    let kmax = state[4];
    let added = 0;
    const end = lo + counts.length;
    // Dividing by the width w = 2^e is multiplying by 2^-e exactly, when 2^-e is a double (the same quotient either way).
    const inverse = 1 / w;
    const exact = Number.isFinite(inverse) && inverse * w === 1;
    // Bins k with low < k < high fit the window and keep the span within `bins`; the bounds
    // move only when a value widens the span.
    let low = Math.max(lo - 1, kmax - bins, -INDEX_LIMIT);
    let high = Math.min(end, kmin + bins, INDEX_LIMIT);
    for (; t < count; t++) {
      const v = values[rows === null ? t : rows[t]];
      if (v !== v) continue;
      const q = exact ? v * inverse : v / w;
      const k = q === 0 && v < 0 ? -1 : Math.floor(q);
      if (k <= low || k >= high) break;
      counts[k - lo] += 1;
      added++;
      // Math.min/max, as bump() uses: they order -0 before 0, which the bins' lower edges show.
      if (k <= kmin) {
        kmin = Math.min(kmin, k);
        high = Math.min(end, kmin + bins, INDEX_LIMIT);
      }
      if (k >= kmax) {
        kmax = Math.max(kmax, k);
        low = Math.max(lo - 1, kmax - bins, -INDEX_LIMIT);
      }
    }
    state[3] = kmin;
    state[4] = kmax;
    state[5] = added;
    return t;
  },
};

/** The loop in C (native/kernels.c binColumn; it also stops at −0) for a whole column with an exact inverse width; any other, in JavaScript. */
export function nativeHistogram(addon: NativeAddon): HistogramKernel {
  return {
    name: 'native',
    binColumn(values, rows, t, count, counts, state) {
      const inverse = 1 / state[0];
      if (rows !== null || !(Number.isFinite(inverse) && inverse * state[0] === 1)) return jsHistogram.binColumn(values, rows, t, count, counts, state);
      const native = Float64Array.of(inverse, state[1], state[2], state[3], state[4], 0);
      t = addon.binColumn(values, t, count, counts, native);
      state.set(native.subarray(3), 3);
      return t;
    },
  };
}

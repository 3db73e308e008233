import { addCompensated, twoSumError } from '../compensated';
import type { NativeAddon } from './native';

/*
 * The two inner loops of the moments update (moments.ts) over dense columns (NaN = missing).
 * Both forms compute the same sums bit for bit (native.test.ts): the native one four columns
 * at a time (native/kernels.c), the JavaScript one column by column.
 */
export interface MomentsKernel {
  readonly name: 'native' | 'js';
  /**
   * For each column c: its count, power sums and extremes added to attrs at offsets[c] +
   * layout (N, S1, S2, S3, S4, MIN, MAX; each sum a compensated pair), a block total per
   * `block` rows; out[9c .. 9c + 8] = the column's count and its compensated sums of x, x², x³, x⁴.
   */
  learnAttributes(columns: Float64Array[], offsets: Float64Array, attrs: Float64Array, layout: Int32Array, block: number, out: Float64Array): void;
  /**
   * For a block of `rows` rows from `start` of complete columns: x − shift[a] and x² into
   * shifted and squares at a · stride, and totals[a] = the compensated Σ(x − shift[a]).
   */
  shiftColumns(columns: readonly Float64Array[], start: number, rows: number, shift: Float64Array, shifted: Float64Array, squares: Float64Array, stride: number, totals: Float64Array): void;
}

function addBlock(a: Float64Array, k: number, sum: number, compensation: number): void {
  addCompensated(a, k, sum);
  a[k + 1] += compensation;
}

/**
 * One column's learnAttributes. The running sums live in local variables (a typed array's
 * slots cost a store per term: twice the time at 20 columns).
 */
function learnAttribute(x: Float64Array, a: Float64Array, ak: number, layout: Int32Array, block: number, sums: Float64Array): number {
  const [N, S1, S2, S3, S4, MIN, MAX] = layout;
  let n = 0;
  let min = a[ak + MIN];
  let max = a[ak + MAX];
  for (let start = 0; start < x.length; start += block) {
    const end = Math.min(x.length, start + block);
    let s1 = 0, c1 = 0, s2 = 0, c2 = 0, s3 = 0, c3 = 0, s4 = 0, c4 = 0;
    for (let r = start; r < end; r++) {
      const v = x[r];
      if (v !== v) continue;
      n++;
      if (v < min) min = v;
      if (v > max) max = v;
      const v2 = v * v;
      const v3 = v2 * v;
      const v4 = v2 * v2;
      let t = s1 + v;
      c1 += twoSumError(s1, v, t);
      s1 = t;
      t = s2 + v2;
      c2 += twoSumError(s2, v2, t);
      s2 = t;
      t = s3 + v3;
      c3 += twoSumError(s3, v3, t);
      s3 = t;
      t = s4 + v4;
      c4 += twoSumError(s4, v4, t);
      s4 = t;
    }
    addBlock(a, ak + S1, s1, c1);
    addBlock(a, ak + S2, s2, c2);
    addBlock(a, ak + S3, s3, c3);
    addBlock(a, ak + S4, s4, c4);
    addBlock(sums, 0, s1, c1);
    addBlock(sums, 2, s2, c2);
    addBlock(sums, 4, s3, c3);
    addBlock(sums, 6, s4, c4);
  }
  a[ak + N] += n;
  a[ak + MIN] = min;
  a[ak + MAX] = max;
  return n;
}

export const jsMoments: MomentsKernel = {
  name: 'js',
  learnAttributes(columns, offsets, attrs, layout, block, out) {
    columns.forEach((x, c) => {
      out[9 * c] = learnAttribute(x, attrs, offsets[c], layout, block, out.subarray(9 * c + 1, 9 * c + 9));
    });
  },
  shiftColumns(columns, start, rows, shift, shifted, squares, stride, totals) {
    for (let a = 0; a < columns.length; a++) {
      const x = columns[a];
      const s = shift[a];
      const o = a * stride;
      let sum = 0, compensation = 0;
      for (let r = 0; r < rows; r++) {
        const v = x[start + r];
        const d = v - s;
        shifted[o + r] = d;
        squares[o + r] = v * v;
        const t = sum + d;
        compensation += twoSumError(sum, d, t);
        sum = t;
      }
      totals[a] = sum + compensation;
    }
  },
};

export function nativeMoments(addon: NativeAddon): MomentsKernel {
  return {
    name: 'native',
    learnAttributes(columns, offsets, attrs, layout, block, out) {
      if (columns.length > 0) addon.learnAttributes(columns, offsets, attrs, layout, block, out);
    },
    shiftColumns: (columns, start, rows, shift, shifted, squares, stride, totals) => addon.shiftColumns(columns as Float64Array[], start, rows, shift, shifted, squares, stride, totals),
  };
}

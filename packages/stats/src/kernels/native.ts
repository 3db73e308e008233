import { join } from 'node:path';

/*
 * The native kernels (native/kernels.c, AVX2 and FMA), built by scripts/native.mjs into
 * build/kernels.node where the machine has a C compiler and Node's headers. Absent, or on a
 * CPU without AVX2/FMA, every caller keeps its WebAssembly or JavaScript way: null here.
 */
export interface NativeKernels {
  /** The cross products of kernels/gram.ts (its contract); throws on arguments outside the arrays. */
  strip(x: Float64Array, stride: number, b: number, out: Float64Array): void;
  /** out[r] = mantissas[r] / 10^scale (scale 0–9), NaN for MISSING_MANTISSA: what JavaScript's division gives. */
  fromMantissas(mantissas: Int32Array, scale: number, out: Float64Array): void;
  /**
   * The tight loop of a streaming histogram's addColumn (histogram.ts) for a whole column with
   * an exact inverse width; state [inverse, lo, bins, kmin, kmax, added] (the last three written
   * back); returns the row it stopped at, which the caller adds the general way.
   */
  binColumn(values: Float64Array, t: number, count: number, counts: Float64Array, state: Float64Array): number;
  /**
   * moments.ts learnAttribute for several columns of equal length, four at a time, the same sums
   * bit for bit: attrs updated at offsets[c] + layout (N, S1, S2, S3, S4, MIN, MAX) per block of
   * `block` rows; out[9c .. 9c + 8] = the column's count and its compensated sums of x, x², x³, x⁴.
   */
  learnAttributes(columns: Float64Array[], offsets: Float64Array, attrs: Float64Array, layout: Int32Array, block: number, out: Float64Array): void;
  /**
   * The first step of moments.ts accumulateCompleteProducts for a block of `rows` rows from
   * `start` of complete columns: x − shift[a] and x² into shifted and squares at a · stride, and
   * totals[a] = the compensated Σ(x − shift[a]), the same bits as the JavaScript loop.
   */
  shiftColumns(columns: Float64Array[], start: number, rows: number, shift: Float64Array, shifted: Float64Array, squares: Float64Array, stride: number, totals: Float64Array): void;
  supported(): boolean;
}

let loaded: NativeKernels | null | undefined;
let off = false;

/** Turns the native kernels off (false) or back to what the machine has (true): tests compare both ways. */
export function useNativeKernels(enabled: boolean): void {
  off = !enabled;
}

/** The native kernels, or null; SML_STATS_NATIVE=0 turns them off for the process. */
export function nativeKernels(): NativeKernels | null {
  if (off) return null;
  if (loaded === undefined) {
    loaded = null;
    if (process.env.SML_STATS_NATIVE !== '0') {
      try {
        // build/ beside dist/ and src/: the same path from either.
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- a .node addon loads only through require
        const kernels = require(join(__dirname, '../../build/kernels.node')) as NativeKernels;
        loaded = kernels.supported() ? kernels : null;
      } catch {
        loaded = null;
      }
    }
  }
  return loaded;
}

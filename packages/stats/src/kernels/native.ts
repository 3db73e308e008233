import { join } from 'node:path';

/*
 * The native addon (native/kernels.c, AVX2 and FMA), built by scripts/native.mjs into
 * build/kernels.node where the machine has a C compiler and Node's headers. Absent, or on a
 * CPU without AVX2/FMA, there is none: select.ts then picks the WebAssembly or JavaScript form
 * of each operation. The addon's functions belong to different operations; each is wrapped by
 * the kernel of its operation (gram.ts, moments.ts, histogram.ts, mantissas.ts).
 */
export interface NativeAddon {
  /** The cross products of kernels/gram.ts (its contract); throws on arguments outside the arrays. */
  strip(x: Float64Array, stride: number, b: number, out: Float64Array): void;
  /** out[r] = mantissas[r] / 10^scale (scale 0–9), NaN for MISSING_MANTISSA: what JavaScript's division gives. */
  fromMantissas(mantissas: Int32Array, scale: number, out: Float64Array): void;
  /**
   * The tight loop of a streaming histogram's addColumn for a whole column with an exact
   * inverse width; state [inverse, lo, bins, kmin, kmax, added] (the last three written back);
   * returns the row it stopped at.
   */
  binColumn(values: Float64Array, t: number, count: number, counts: Float64Array, state: Float64Array): number;
  /** kernels/moments.ts learnAttributes (its contract), four columns at a time. */
  learnAttributes(columns: Float64Array[], offsets: Float64Array, attrs: Float64Array, layout: Int32Array, block: number, out: Float64Array): void;
  /** kernels/moments.ts shiftColumns (its contract), the same bits as the JavaScript loop. */
  shiftColumns(columns: Float64Array[], start: number, rows: number, shift: Float64Array, shifted: Float64Array, squares: Float64Array, stride: number, totals: Float64Array): void;
  supported(): boolean;
}

let loaded: NativeAddon | null | undefined;

/** The native addon, or null where it was not built or the CPU lacks AVX2/FMA; loaded once. */
export function nativeAddon(): NativeAddon | null {
  if (loaded === undefined) {
    try {
      // build/ beside dist/ and src/: the same path from either.
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a .node addon loads only through require
      const addon = require(join(__dirname, '../../build/kernels.node')) as NativeAddon;
      loaded = addon.supported() ? addon : null;
    } catch {
      loaded = null;
    }
  }
  return loaded;
}

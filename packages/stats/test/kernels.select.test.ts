/**
 * selectKernels (kernels/select.ts): which form of each operation a choice gives, and the two
 * forms of the moments kernel against each other and against plain sums. The other operations'
 * forms are compared where they are used: kernels.test.ts (gram, mantissas), histogram.test.ts
 * (histogram), frame-json.test.ts (decimals), native.test.ts (whole summaries, byte for byte).
 */
import fc from 'fast-check';
import { jsMoments, nativeMoments, type MomentsKernel } from '../src/kernels/moments';
import { nativeAddon } from '../src/kernels/native';
import { kernels, selectKernels } from '../src/kernels/select';

afterEach(() => selectKernels());

const addon = nativeAddon();

describe('selectKernels', () => {
  test('the default is the fastest form of each operation this machine has, and what a thread gets when nobody selected', () => {
    const chosen = selectKernels();
    expect(chosen.gram.name).toBe(addon !== null ? 'native' : 'wasm');
    for (const k of [chosen.moments, chosen.histogram, chosen.mantissas]) expect(k.name).toBe(addon !== null ? 'native' : 'js');
    expect(chosen.decimals.name).toBe('wasm');
    expect(kernels()).toBe(chosen);
    const names = (k: typeof chosen) => [k.gram, k.moments, k.histogram, k.mantissas, k.decimals].map((o) => o.name);
    expect(names(selectKernels({ kernel: 'auto', native: true }))).toEqual(names(chosen));
  });

  test('native: false keeps the addon out of every operation', () => {
    const chosen = selectKernels({ native: false });
    expect([chosen.gram, chosen.moments, chosen.histogram, chosen.mantissas, chosen.decimals].map((k) => k.name)).toEqual(['wasm', 'js', 'js', 'js', 'wasm']);
    expect(selectKernels({ kernel: 'native', native: false }).gram.name).toBe('wasm');
  });

  test('kernel picks the cross-product form; js also reads frames without WebAssembly, and leaves the native column loops', () => {
    expect(selectKernels({ kernel: 'wasm' }).gram.name).toBe('wasm');
    const js = selectKernels({ kernel: 'js' });
    expect([js.gram.name, js.decimals.name]).toEqual(['js', 'js']);
    expect(js.moments.name).toBe(addon !== null ? 'native' : 'js');
    expect(kernels()).toBe(js);
  });
});

const LAYOUT = Int32Array.of(0, 1, 3, 5, 7, 9, 10); // N, S1, S2, S3, S4, MIN, MAX (moments.ts ATTR)
const STRIDE = 11;
const forms: [string, MomentsKernel][] = addon !== null ? [['js', jsMoments], ['native', nativeMoments(addon)]] : [['js', jsMoments]];
const cell = fc.oneof(fc.constant(NaN), fc.integer({ min: -1000, max: 1000 }).map((m) => m / 8), fc.double({ min: -1e6, max: 1e6, noNaN: true }));
const columnsOf = fc.integer({ min: 1, max: 600 }).chain((rows) => fc.array(fc.array(cell, { minLength: rows, maxLength: rows }), { minLength: 1, maxLength: 6 }));

function learned(kernel: MomentsKernel, columns: number[][]): { attrs: Float64Array; out: Float64Array } {
  const attrs = new Float64Array(STRIDE * (columns.length + 1));
  for (let c = 0; c <= columns.length; c++) [attrs[c * STRIDE + 9], attrs[c * STRIDE + 10]] = [Infinity, -Infinity];
  const out = new Float64Array(9 * columns.length);
  // Every other attribute slot: offsets need not be consecutive.
  const offsets = Float64Array.from(columns, (_, c) => (columns.length - c) * STRIDE);
  kernel.learnAttributes(columns.map((x) => Float64Array.from(x)), offsets, attrs, LAYOUT, 256, out);
  return { attrs, out };
}

describe.each(forms)('the %s moments kernel', (_name, kernel) => {
  test('learnAttributes: each column\'s count, extremes and Σx, Σx² (exact here: multiples of 1/8) at its offset and in out', () => {
    fc.assert(fc.property(columnsOf.map((cs) => cs.map((x) => x.map((v) => (Number.isNaN(v) ? v : Math.round(v * 8) / 8)))), (columns) => {
      const { attrs, out } = learned(kernel, columns);
      columns.forEach((x, c) => {
        const present = x.filter((v) => !Number.isNaN(v));
        const at = (columns.length - c) * STRIDE;
        expect(out[9 * c]).toBe(present.length);
        expect(attrs[at]).toBe(present.length);
        // Compared with <, as learnAttribute does: 0 and -0 are the same extreme (+ 0 drops the sign).
        expect(attrs[at + 9] + 0).toBe(present.length ? Math.min(...present) + 0 : Infinity);
        expect(attrs[at + 10] + 0).toBe(present.length ? Math.max(...present) + 0 : -Infinity);
        const sum = present.reduce((s, v) => s + v, 0);
        expect(out[9 * c + 1] + out[9 * c + 2]).toBe(sum);
        expect(attrs[at + 1] + attrs[at + 2]).toBe(sum);
      });
    }), { numRuns: 100 });
  });

  test('shiftColumns: x − shift and x² at a · stride, and the compensated Σ(x − shift)', () => {
    fc.assert(fc.property(columnsOf.map((cs) => cs.map((x) => x.map((v) => (Number.isNaN(v) ? 1 : Math.round(v * 8) / 8)))), fc.integer({ min: 0, max: 5 }), (columns, start) => {
      const rows = columns[0].length - Math.min(start, columns[0].length - 1);
      const from = columns[0].length - rows;
      const stride = Math.ceil(rows / 4) * 4;
      const shift = Float64Array.from(columns, (x) => x[from]);
      const [shifted, squares] = [new Float64Array(columns.length * stride), new Float64Array(columns.length * stride)];
      const totals = new Float64Array(columns.length);
      kernel.shiftColumns(columns.map((x) => Float64Array.from(x)), from, rows, shift, shifted, squares, stride, totals);
      // Plain comparisons in the loop (an expect per cell is slow under fast-check).
      columns.forEach((x, a) => {
        let total = 0;
        for (let r = 0; r < rows; r++) {
          const [d, q] = [shifted[a * stride + r], squares[a * stride + r]];
          if (d !== x[from + r] - shift[a] || q !== x[from + r] ** 2) throw new Error(`column ${a} row ${r}: ${d}, ${q} for ${x[from + r]} − ${shift[a]}`);
          total += x[from + r] - shift[a];
        }
        expect(totals[a]).toBe(total);
      });
    }), { numRuns: 100 });
  });
});

test('the native and JavaScript moments kernels give the same sums, bit for bit, on any doubles', () => {
  if (addon === null) return; // kernels.int.test.ts says whether this machine should have the addon
  fc.assert(fc.property(columnsOf, (columns) => {
    const [js, native] = [learned(jsMoments, columns), learned(nativeMoments(addon), columns)];
    expect(Buffer.from(native.out.buffer).equals(Buffer.from(js.out.buffer))).toBe(true);
    expect(Buffer.from(native.attrs.buffer).equals(Buffer.from(js.attrs.buffer))).toBe(true);
  }), { numRuns: 200 });
});

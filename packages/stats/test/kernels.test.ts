/**
 * The cross-product kernel (kernels/gram.ts) and the summary's blocked update built on it
 * (moments.ts accumulateCompleteProducts): the native, WebAssembly and JavaScript kernels against
 * plain loops, and the summary's
 * Σxy, Σx²y² against exact sums (BigInt) under both kernels. Whether the build made the kernels
 * it should (the committed WebAssembly, the native kernel where a compiler is at hand) is
 * kernels.int.test.ts: it runs wabt and cc.
 */
import fc from 'fast-check';
import { Summary } from '@sml/stats';
import { GramBlocks, type GramKernel } from '../src/kernels/gram';
import { nativeAddon } from '../src/kernels/native';
import { kernels as selected, selectKernels } from '../src/kernels/select';
import { random } from './helpers';

afterEach(() => selectKernels());

test('this runtime compiles the WebAssembly SIMD kernel', () => {
  // Node ≥ 16 has WebAssembly SIMD: a failure here means every summary update runs the slower JavaScript tiles.
  expect(selectKernels({ kernel: 'wasm' }).gram.name).toBe('wasm');
});

/** The kernels this build has, best first: every one of them is tested (kernels.int.test.ts says whether native should be among them). */
const kernels: GramKernel['name'][] = nativeAddon() !== null ? ['native', 'wasm', 'js'] : ['wasm', 'js'];

test('the native kernel refuses arguments that would read or write outside its arrays', () => {
  if (!kernels.includes('native')) return; // nothing to call in this build (kernels.int.test.ts says whether there should be)
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const native = require('../build/kernels.node') as { strip(...args: unknown[]): void; fromMantissas(...args: unknown[]): void; binColumn(...args: unknown[]): number };
  const x = new Float64Array(8 * 4);
  const out = new Float64Array(32);
  expect(() => native.strip(x, 4, 4, out)).not.toThrow();
  expect(() => native.strip(x, 4, 8, out)).toThrow(/columns up to b \+ 3/);
  expect(() => native.strip(x, 4, 4, new Float64Array(31))).toThrow(/columns up to b \+ 3/);
  expect(() => native.strip(x, 6, 0, out)).toThrow(/multiple of 4/);
  expect(() => native.strip(x, 4, 2, out)).toThrow(/multiple of 4/);
  expect(() => native.strip(new Float32Array(32), 4, 0, out)).toThrow(/Float64Array/);
  expect(() => native.strip(x, 4, 0)).toThrow(/strip\(x, stride, b, out\)/);
  const m = new Int32Array(5);
  expect(() => native.fromMantissas(m, 2, new Float64Array(5))).not.toThrow();
  expect(() => native.fromMantissas(m, 2, new Float64Array(4))).toThrow(/one double per mantissa/);
  expect(() => native.fromMantissas(m, 10, new Float64Array(5))).toThrow(/scale an integer from 0 to 9/);
  expect(() => native.fromMantissas(new Uint32Array(5), 2, new Float64Array(5))).toThrow(/Int32Array/);
  // binColumn: the state [inverse, lo, bins, kmin, kmax, added] must describe a span inside the window.
  const values = Float64Array.of(1, 2, 3);
  const counts = new Float64Array(8);
  const state = () => Float64Array.of(1, 0, 16, 1, 1, 0);
  expect(native.binColumn(values, 0, 3, counts, state())).toBe(3);
  expect(Array.from(counts.subarray(0, 4))).toEqual([0, 1, 1, 1]);
  expect(() => native.binColumn(values, 0, 4, counts, state())).toThrow(/t <= count <= values.length/);
  expect(() => native.binColumn(values, 2, 1, counts, state())).toThrow(/t <= count/);
  expect(() => native.binColumn(values, 0, 3, counts, new Float64Array(5))).toThrow(/state of 6/);
  // A NaN lo or bins, bins < 1, an infinite inverse, a span outside the window, an empty span.
  const bad = [[1, NaN, 16, 1, 1], [1, 0, NaN, 1, 1], [1, 0, 0, 1, 1], [Infinity, 0, 16, 1, 1], [1, 0, 16, 9, 9], [1, 0, 16, 2, 1]];
  for (const b of bad) expect(() => native.binColumn(values, 0, 3, counts, Float64Array.of(...b, 0))).toThrow(/finite and its span lie in its window/);
});

test('decimal columns read back to the doubles JavaScript\'s division gives, with the native kernel as without it', () => {
  if (!kernels.includes('native')) return; // (kernels.int.test.ts says whether there should be one)
  const native = nativeAddon()!;
  const mantissa = fc.oneof(fc.integer({ min: -2147483648, max: 2147483647 }), fc.constantFrom(-2147483648, -2147483647, 2147483647, 0, 1, -1, 5, 15, 105));
  fc.assert(
    fc.property(fc.array(mantissa, { maxLength: 23 }), fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 3 }), (values, scale, offset) => {
      // A view at an offset into a larger buffer, as a column of a message is.
      const backing = new Int32Array(values.length + offset);
      backing.set(values, offset);
      const mantissas = backing.subarray(offset);
      const out = new Float64Array(values.length);
      native.fromMantissas(mantissas, scale, out);
      values.forEach((m, r) => {
        const expected = m === -2147483648 ? NaN : m / 10 ** scale;
        if (!Object.is(out[r], expected)) throw new Error(`${m} / 10^${scale}: ${out[r]}, expected ${expected}`);
      });
    }),
    { numRuns: 2000 },
  );
});

describe.each<GramKernel['name']>(kernels)('the %s kernel', (kernel) => {
  test('strip(k, b) sums X[a]·X[b + j] over the rows for every a < b + 4', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 13 }), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 0, max: 1000 }), (columns, rows, seed) => {
        expect(selectKernels({ kernel }).gram.name).toBe(kernel);
        const gram = new GramBlocks(2, columns, rows);
        const next = random(seed);
        gram.clearPadding(columns, rows);
        for (const x of gram.blocks) {
          for (let a = 0; a < columns; a++) for (let r = 0; r < rows; r++) x[a * gram.stride + r] = Math.round((next() - 0.5) * 64) / 8;
        }
        for (let k = 0; k < 2; k++) {
          const x = gram.blocks[k];
          for (let b = 0; b < gram.columns; b += 4) {
            gram.strip(k, b);
            for (let a = 0; a < b + 4; a++) {
              for (let j = 0; j < 4; j++) {
                let sum = 0; // small multiples of 1/8: every sum is exact in any order
                for (let r = 0; r < rows; r++) sum += (a < columns ? x[a * gram.stride + r] : 0) * (b + j < columns ? x[(b + j) * gram.stride + r] : 0);
                if (gram.out[4 * a + j] !== sum) throw new Error(`block ${k} out[${a}][${b + j}] = ${gram.out[4 * a + j]}, expected ${sum}`);
              }
            }
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});

/** Σ of the exact products x·y (or x²·y²) of doubles, as a double: BigInt arithmetic on mantissas. */
function exactSumOfProducts(x: Float64Array, y: Float64Array, power: 1 | 2): number {
  const SCALE = 1100n; // every double is an integer multiple of 2^-1074
  let total = 0n;
  const asBig = (v: number) => {
    const [m, e] = mantissaExponent(v);
    return m * 2n ** BigInt(Number(SCALE) + e);
  };
  for (let r = 0; r < x.length; r++) {
    const a = asBig(x[r]);
    const b = asBig(y[r]);
    total += power === 1 ? a * b : a * a * b * b;
  }
  const denominator = 2n ** (SCALE * BigInt(2 * power));
  // To a double: integer part and a scaled remainder (the sums here are far from the double range's ends).
  const whole = total / denominator;
  const rest = total - whole * denominator;
  return Number(whole) + Number((rest * 2n ** 64n) / denominator) / 2 ** 64;
}

/** v = m · 2^e with m an integer. */
function mantissaExponent(v: number): [bigint, number] {
  if (v === 0) return [0n, 0];
  let e = 0;
  let m = v;
  while (!Number.isInteger(m)) {
    m *= 2;
    e -= 1;
  }
  return [BigInt(m), e];
}

describe.each<GramKernel['name']>(kernels)('the summary with the %s kernel', (kernel) => {
  // The bound is that of summing the rounded products x·y, as the update did before the kernel:
  // each product's rounding alone is up to 2⁻⁵³·|x·y|.
  test('Σxy and Σx²y² of complete columns are within 2⁻⁵⁰·Σ|xy| (Σx²y²) of the exact sums, also where the mean is 10⁴ times the spread', () => {
    expect(selectKernels({ kernel }).gram.name).toBe(kernel);
    const rows = 5000;
    const next = random(11);
    const draws: (() => number)[] = [() => 1e4 + next(), () => (next() - 0.5) * 1e6, () => 1e4 + next() * 1e-3, () => next() * 3 - 1, () => -2e5 + next()];
    const values = draws.map((draw) => Float64Array.from({ length: rows }, draw));
    const names = values.map((_, i) => `x${i}`);
    const summary = new Summary();
    // Chunks of uneven sizes: several kernel blocks, a short last one, an odd row count.
    for (const [from, to] of [[0, 1], [1, 1300], [1300, 4999], [4999, 5000]]) {
      summary.learn({ attributeNames: names, attributeTypes: names.map(() => 'C'), data: Array.from({ length: to - from }, (_, r) => values.map((v) => String(v[from + r]))) });
    }
    for (let i = 0; i < names.length; i++) {
      for (let j = i + 1; j < names.length; j++) {
        const p = summary.comoments(names[i], names[j]);
        const xy = exactSumOfProducts(values[i], values[j], 1);
        const xxyy = exactSumOfProducts(values[i], values[j], 2);
        let scale = 0;
        for (let r = 0; r < rows; r++) scale += Math.abs(values[i][r] * values[j][r]);
        expect(Math.abs(p.sumXY - xy)).toBeLessThanOrEqual(2 ** -50 * scale);
        expect(Math.abs(p.sumXXYY - xxyy)).toBeLessThanOrEqual(2 ** -50 * xxyy);
      }
    }
    expect(selected().gram.name).toBe(kernel);
  });
});

/**
 * Histograms (STATS.md §1): streaming histograms have exact counts on a power-of-two grid
 * that depends only on the values held, so they merge and subtract exactly; exact
 * histograms count each value and degrade to the same streaming histogram past their cap.
 * Reference for medians and quantiles: numpy's default (linear) definitions, computed
 * here on sorted arrays (the summary test compares medians with numpy itself).
 */
import fc from 'fast-check';
import { Histogram, type HistogramMode } from '@sml/stats';
import { ByteWriter } from '../src/binary';
import { selectKernels } from '../src/kernels/select';

const values = fc.array(
  fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.double({ min: -1e6, max: 1e6, noNaN: true }).map((v) => (Math.abs(v) < 1e-100 ? 0 : v))),
  { maxLength: 60 },
);

function histogram(mode: HistogramMode, xs: readonly number[], bins = 16, cap = 20): Histogram {
  const h = new Histogram(mode, bins, cap);
  for (const x of xs) h.add(x);
  return h;
}

function numpyQuantile(xs: readonly number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const h = (sorted.length - 1) * q;
  const lo = sorted[Math.floor(h)];
  return lo + (h - Math.floor(h)) * (sorted[Math.ceil(h)] - lo);
}

describe.each<HistogramMode>(['streaming', 'exact'])('%s histogram laws', (mode) => {
  test('histogram(A ∪ B) equals histogram(A) merged with histogram(B), bin for bin', () => {
    fc.assert(
      fc.property(values, values, (a, b) => {
        const merged = histogram(mode, a);
        merged.merge(histogram(mode, b), 1);
        const whole = histogram(mode, [...a, ...b]);
        expect(merged.toBins()).toEqual(whole.toBins());
        expect(merged.mode).toBe(whole.mode);
      }),
    );
  });

  test('addColumn (learning a whole column) equals adding its present values one by one', () => {
    const column = fc.array(fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.double({ noDefaultInfinity: true }), fc.constant(Number.NaN), fc.constant(-0)), { maxLength: 80 });
    fc.assert(
      fc.property(column, fc.boolean(), (xs, withRows) => {
        const values = Float64Array.from(xs);
        const rows = withRows ? Int32Array.from(xs.map((_, i) => xs.length - 1 - i)) : null;
        const bulk = new Histogram(mode, 16, 20);
        bulk.addColumn(values, rows, xs.length);
        const one = new Histogram(mode, 16, 20);
        for (let t = 0; t < xs.length; t++) {
          const v = values[rows === null ? t : rows[t]];
          if (!Number.isNaN(v)) one.add(v);
        }
        expect(bulk.toBins()).toEqual(one.toBins());
        expect(bulk.count).toBe(one.count);
        expect(bulk.width).toBe(one.width);
      }),
    );
  });

  test('addColumn gives the same histogram, byte for byte, with the native kernels and without them', () => {
    // Wide spreads and tiny values: the window grows and the grid widens in the middle of a
    // column, which stops the native loop and resumes it; several columns into one histogram.
    const cell = fc.oneof(
      fc.integer({ min: -300, max: 300 }),
      fc.double({ min: -1e6, max: 1e6, noNaN: true }),
      fc.double({ noDefaultInfinity: true, noNaN: true }),
      fc.constantFrom(Number.NaN, -0, 0, -5e-324, 5e-324, -1e-310, 1e300, -1e300, 0.5, -0.5),
    );
    const columns = fc.array(fc.array(cell, { maxLength: 200 }), { minLength: 1, maxLength: 4 });
    const built = (cs: number[][], native: boolean) => {
      selectKernels({ native });
      try {
        const h = new Histogram(mode, 16, 40);
        for (const c of cs) h.addColumn(Float64Array.from(c), null, c.length);
        return h;
      } finally {
        selectKernels();
      }
    };
    fc.assert(
      fc.property(columns, (cs) => {
        const [a, b] = [built(cs, true), built(cs, false)];
        const bytes = (h: Histogram) => {
          const w = new ByteWriter();
          h.write(w);
          return Buffer.from(w.bytes());
        };
        expect(bytes(a).equals(bytes(b))).toBe(true);
        expect(a.toBins()).toEqual(b.toBins());
      }),
      { numRuns: 500 },
    );
  });

  test('the order values arrive in does not change the histogram', () => {
    fc.assert(
      fc.property(values, (a) => {
        expect(histogram(mode, [...a].reverse()).toBins()).toEqual(histogram(mode, a).toBins());
      }),
    );
  });

  test('(A ∪ B) minus B equals A, on the grid of A ∪ B', () => {
    fc.assert(
      fc.property(values, values, (a, b) => {
        const rest = histogram(mode, [...a, ...b]);
        rest.merge(histogram(mode, b), -1);
        expect(rest.equals(histogram(mode, a))).toBe(true);
        expect(rest.count).toBe(a.length);
      }),
    );
  });

  test('subtracting values never added throws and leaves the histogram unchanged', () => {
    fc.assert(
      fc.property(values, fc.integer({ min: 1, max: 10 }), (a, extra) => {
        const h = histogram(mode, a);
        const before = h.toBins();
        expect(() => h.merge(histogram(mode, [...a, 2e6 + extra]), -1)).toThrow(/never learned/);
        expect(h.toBins()).toEqual(before);
      }),
    );
  });

  test('the median is within one bin width of numpy median (exact histograms: equal)', () => {
    fc.assert(
      fc.property(values.filter((a) => a.length > 0), (a) => {
        const h = histogram(mode, a);
        const expected = numpyQuantile(a, 0.5);
        if (h.mode === 'exact') expect(h.median()).toBe(expected);
        else expect(Math.abs(h.median() - expected)).toBeLessThanOrEqual(h.width);
        expect(Math.abs(h.quantile(0.9) - numpyQuantile(a, 0.9))).toBeLessThanOrEqual(h.width);
      }),
    );
  });

  test('min and max bound the values within one bin width', () => {
    fc.assert(
      fc.property(values.filter((a) => a.length > 0), (a) => {
        const h = histogram(mode, a);
        const [lo, hi] = [Math.min(...a), Math.max(...a)];
        expect(h.min()).toBeLessThanOrEqual(lo);
        expect(h.max()).toBeGreaterThanOrEqual(hi);
        expect(lo - h.min()).toBeLessThanOrEqual(h.width);
        expect(h.max() - hi).toBeLessThanOrEqual(h.width);
      }),
    );
  });

  test('density counts every value in [lower, upper] once, the last bin closed', () => {
    fc.assert(
      fc.property(values.filter((a) => a.length > 0), fc.integer({ min: 1, max: 30 }), (a, bins) => {
        const h = histogram(mode, a);
        const density = h.density(bins, [Math.min(...a), Math.max(...a)]);
        expect(density).toHaveLength(bins);
        expect(density.reduce((s, c) => s + c, 0)).toBe(a.length);
      }),
    );
  });
});

test('a streaming histogram keeps at most its bin count and doubles its width to fit', () => {
  const h = histogram('streaming', [0, 1], 4);
  expect(h.width).toBe(0.5);
  h.add(3.9);
  expect(h.width).toBe(1);
  expect(h.toBins()).toEqual([
    { lower: 0, upper: 1, count: 1 },
    { lower: 1, upper: 2, count: 1 },
    { lower: 3, upper: 4, count: 1 },
  ]);
  h.add(-4);
  expect(h.width).toBe(2);
  expect(h.toBins()).toEqual([
    { lower: -4, upper: -2, count: 1 },
    { lower: 0, upper: 2, count: 2 },
    { lower: 2, upper: 4, count: 1 },
  ]);
});

test('an exact histogram degrades to streaming past its cap, identical to streaming from the start', () => {
  const xs = Array.from({ length: 30 }, (_, i) => i * 0.37);
  const h = histogram('exact', xs.slice(0, 20), 16, 20);
  expect(h.mode).toBe('exact');
  h.add(xs[20]);
  expect(h.mode).toBe('streaming');
  for (const x of xs.slice(21)) h.add(x);
  expect(h.toBins()).toEqual(histogram('streaming', xs, 16).toBins());
});

test('exact density matches a hand count, with the upper edge in the last bin', () => {
  const h = histogram('exact', [0, 1, 1, 2.5, 4, 10]);
  expect(h.density(4, [0, 4])).toEqual([1, 2, 1, 1]);
  expect(h.median()).toBe(1.75);
  expect([h.min(), h.max()]).toEqual([0, 10]);
});

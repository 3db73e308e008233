/**
 * Reference: numpy.histogram(values, bins, range=(min, max)) over the present values (for the
 * conditional density, the present values of rows where c = 1), min/max of the attribute,
 * valueForMissing = missing rows (normalized: histogram / its sum, missing / rows)
 * (fixtures/gen_explore.py, Debian's /usr/bin/python3). Exact histograms must equal numpy to
 * 1e-9 relative; a streaming histogram may differ from numpy only by the counts of stored bins
 * that straddle an output bin's edges (their counts are split proportionally).
 */
import type { Histogram, Summary } from '@sml/stats';
import { conditionalDensityEstimate, type DensityResult, densityEstimate, ExploreInputError } from '../../src/explore';
import { expectClose, frame } from '../helpers';
import { type DensityCase, expectDensity, FIXTURES, learned, load } from './fixture';

function estimate(summary: Summary, c: DensityCase): DensityResult {
  const options = { bins: c.bins, normalized: c.normalized };
  const t = summary.indexOf(c.attribute);
  return c.condition === null ? densityEstimate(summary, t, options) : conditionalDensityEstimate(summary, summary.indexOf(c.condition), t, options);
}

function storedHistogram(summary: Summary, c: DensityCase): Histogram {
  return c.condition === null ? summary.histogram(c.attribute)! : summary.conditionalHistogram(c.condition, c.attribute)!;
}

/** Counts of the stored bins overlapping [lo, hi) without lying inside it. */
function straddling(h: Histogram, lo: number, hi: number): number {
  return h
    .toBins()
    .filter((b) => b.upper > lo && b.lower < hi && (b.lower < lo || b.upper > hi))
    .reduce((a, b) => a + b.count, 0);
}

describe.each(FIXTURES)('%s', (name) => {
  const fixture = load(name);
  const exact = learned(fixture.frame, { histogram: 'exact' });
  const streaming = learned(fixture.frame, { histogram: 'streaming', histogramBins: 16 });
  const cases = fixture.densities.map((c) => [`${c.expected.attrName} over ${c.bins} bins${c.normalized ? ', normalized' : ''}`, c] as const);

  test.each(cases)('%s from an exact histogram equals numpy', (_, c) => {
    expectDensity(estimate(exact, c), c.expected);
  });

  test.each(cases)('%s from a streaming histogram keeps the total and moves only straddling counts', (_, c) => {
    const actual = estimate(streaming, c);
    const e = c.expected;
    const stored = storedHistogram(streaming, c);
    const scale = c.normalized ? stored.count : 1;
    expectClose(actual.histogram.reduce((a, b) => a + b, 0), e.histogram.reduce((a, b) => a + b, 0), 1e-12, 0, 'total');
    expectClose(actual.valueForMissing, e.valueForMissing, 1e-12, 0, 'valueForMissing');
    actual.histogram.forEach((h, j) => {
      const bound = straddling(stored, actual.min + j * actual.width, actual.min + (j + 1) * actual.width);
      const moved = Math.abs(h - e.histogram[j]) * scale;
      if (!(moved <= bound + 1e-9)) throw new Error(`bin ${j}: ${h} vs numpy ${e.histogram[j]}, only ${bound} straddling`);
    });
  });
});

test('a stored bin straddling two output bins is split in proportion to the overlap', () => {
  // Streaming grid of width 4 (2 bins hold 0…7): [0,4) holds 1 and 3, [4,8) holds 7. Output [1, 7] in 3 bins of width 2.
  const s = learned(frame(['x'], ['C'], [['1'], ['3'], ['7']]), { histogram: 'streaming', histogramBins: 2 });
  const d = densityEstimate(s, 0, { bins: 3 });
  expect([d.min, d.max, d.width]).toEqual([1, 7, 2]);
  // [0,4) ∩ [1,7] = [1,4): 2/3 in [1,3), 1/3 in [3,5). [4,8) ∩ [1,7] = [4,7]: 1/3 in [3,5), 2/3 in [5,7].
  const expected = [(2 * 2) / 3, (2 * 1) / 3 + 1 / 3, 2 / 3];
  d.histogram.forEach((h, j) => expectClose(h, expected[j], 1e-15, 0, `bin ${j}`));
});

test('the last bin is closed, a constant attribute puts everything in the first bin, missing cells are counted', () => {
  const s = learned(frame(['x', 'k'], ['C', 'C'], [['0', '5'], ['10', '5'], ['', '5'], ['5', '']]), { histogram: 'exact' });
  expect(densityEstimate(s, 0, { bins: 2 })).toEqual({ attrName: 'x', min: 0, max: 10, width: 5, histogram: [1, 2], valueForMissing: 1 });
  expect(densityEstimate(s, 0, { bins: 2, normalized: true })).toEqual({ attrName: 'x', min: 0, max: 10, width: 5, histogram: [1 / 3, 2 / 3], valueForMissing: 1 / 4 });
  expect(densityEstimate(s, 1, { bins: 3 })).toEqual({ attrName: 'k', min: 5, max: 5, width: 0, histogram: [3, 0, 0], valueForMissing: 1 });
  expect(densityEstimate(s, 1, {}).histogram).toHaveLength(20);
});

test('the conditional density counts rows where c = 1 and t is missing', () => {
  const s = learned(frame(['c', 't'], ['B', 'C'], [['1', '1'], ['1', ''], ['0', '9'], ['1', '3'], ['', '2']]), { histogram: 'exact' });
  expect(conditionalDensityEstimate(s, 0, 1, { bins: 2 })).toEqual({ attrName: 'conditional_pair[c,t]', min: 1, max: 9, width: 4, histogram: [2, 0], valueForMissing: 1 });
  expect(conditionalDensityEstimate(s, 0, 1, { bins: 2, normalized: true }).valueForMissing).toBe(1 / 3);
});

test('densities need histograms, a binary condition and a positive integer bin count', () => {
  const data = frame(['c', 't'], ['B', 'C'], [['1', '1'], ['0', '2']]);
  const none = learned(data);
  expect(() => densityEstimate(none, 1, {})).toThrow(new ExploreInputError('histograms are not enabled'));
  expect(() => conditionalDensityEstimate(none, 0, 1, {})).toThrow(new ExploreInputError('histograms are not enabled'));
  const s = learned(data, { histogram: 'exact' });
  expect(() => conditionalDensityEstimate(s, 1, 0, {})).toThrow(new ExploreInputError('conditionalDensityEstimate needs binary attributes, [t] is continuous'));
  expect(() => densityEstimate(s, 1, { bins: 0 })).toThrow(ExploreInputError);
  expect(() => densityEstimate(s, 1, { bins: 2.5 })).toThrow(/hist_bins/);
  expect(() => densityEstimate(s, 7, {})).toThrow(new ExploreInputError('unknown attribute index [7]'));
});

test('a density names its approximate keys when read from a streaming histogram, and only then', () => {
  const rows = frame(['x'], ['C'], ['1', '2', '3', '5', '8'].map((v) => [v]));
  expect(densityEstimate(learned(rows, { histogram: 'streaming' }), 0, { bins: 2 }).approximate).toEqual(['min', 'max', 'width', 'histogram']);
  expect(densityEstimate(learned(rows, { histogram: 'exact' }), 0, { bins: 2 })).not.toHaveProperty('approximate');
  // An exact histogram past its cap of distinct values has become streaming: marked.
  expect(densityEstimate(learned(rows, { histogram: 'exact', exactHistogramCap: 3 }), 0, { bins: 2 }).approximate).toEqual(['min', 'max', 'width', 'histogram']);
});

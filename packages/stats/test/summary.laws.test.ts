/**
 * Algebraic laws of the summary (STATS.md §1, STYLE.md river-style): additive, subtractive,
 * independent of row order and chunking, exactly serializable. Frames mix continuous,
 * binary and categorical columns with every missing-cell spelling; the summaries carry
 * histograms, partitions, survival counts and (rows layout) sequence counts.
 */
import fc from 'fast-check';
import { type DataFrame, FrameError, MAX_ABS_VALUE, Summary, type SummaryOptions } from '@sml/stats';
import { expectSameStatistics } from './helpers';

const NAMES = ['x', 'y', 'flag', 'color', 'group', 'time', 'event'];
const TYPES = ['C', 'C', 'B', 'T', 'T', 'C', 'C'];
const missing = fc.constantFrom('', 'NA', 'nan', 'NULL', '?', ' na ');
const withMissing = (cell: fc.Arbitrary<string>) => fc.oneof({ arbitrary: cell, weight: 4 }, { arbitrary: missing, weight: 1 });
const row = fc.tuple(
  withMissing(fc.oneof(fc.integer({ min: -1000, max: 1000 }).map(String), fc.double({ min: -1e4, max: 1e4, noNaN: true }).map((v) => String(Math.abs(v) < 1e-100 ? 0 : v)))),
  withMissing(fc.integer({ min: -50000, max: 50000 }).map((v) => String(v / 100))),
  withMissing(fc.constantFrom('0', '1')),
  withMissing(fc.constantFrom('red', ' Blue', 'RED ', 'green', 'yellow')),
  withMissing(fc.constantFrom('a', 'B', ' a')),
  withMissing(fc.integer({ min: 0, max: 6 }).map(String)),
  withMissing(fc.constantFrom('0', '1', '2')),
);
// Values below 1e-100 would make squares and products underflow, where no relative bound holds.
const rows = fc.array(row, { minLength: 1, maxLength: 25 });

const toFrame = (data: string[][]): DataFrame => ({ attributeNames: NAMES, attributeTypes: TYPES, data });

const CONFIGS: [string, SummaryOptions][] = [
  ['streaming histograms, partitions, survival', { histogram: 'streaming', histogramBins: 8, partitionSplit: 'group', km_time_column: 'time', km_event_column: 'event', km_group_column: 'group' }],
  ['exact histograms degrading at 6 values, rows-layout sequences', { histogram: 'exact', exactHistogramCap: 6, sequenceOrder: 2, sequenceLayout: 'rows' }],
  ['no options', {}],
];

function learned(options: SummaryOptions, ...frames: string[][][]): Summary {
  const s = new Summary(options);
  for (const data of frames) s.learn(toFrame(data));
  return s;
}

const TOLERANCE = 1e-12;

describe.each(CONFIGS)('summary laws with %s', (_, options) => {
  test('learn(A ∪ B) equals learn(A) merged with learn(B)', () => {
    fc.assert(
      fc.property(rows, rows, (a, b) => {
        expectSameStatistics(learned(options, a).merge(learned(options, b)), learned(options, [...a, ...b]), { tolerance: TOLERANCE, extremes: true });
      }),
    );
  });

  test('forget(B) after learn(A ∪ B) equals learn(A)', () => {
    fc.assert(
      fc.property(rows, rows, (a, b) => {
        const s = learned(options, [...a, ...b]);
        const before = s.clone();
        s.forget(toFrame(b));
        expectSameStatistics(s, learned(options, a), { tolerance: TOLERANCE, scaleFrom: before });
      }),
      // Found by fast-check: tiny values left after forgetting ones 10⁴ times larger need
      // compensated sums inside each accumulation block too.
      { examples: [[[['1e-100', '', '0', 'red', 'a', '0', '0'], ['', '0', '', 'red', 'a', '0', '0']], [['-2.9260391380248946e-98', '0', '0', 'red', 'a', '0', '0'], ['0', '0', '0', 'red', 'a', '0', '0']]]] },
    );
  });

  test('row order and chunking do not change the statistics', () => {
    fc.assert(
      fc.property(
        rows.chain((data) => fc.tuple(fc.constant(data), fc.shuffledSubarray(data.map((_, i) => i), { minLength: data.length }), fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1 }))),
        ([data, order, chunkSizes]) => {
          const shuffled = order.map((i) => data[i]);
          const chunks: string[][][] = [];
          for (let at = 0, c = 0; at < shuffled.length; c++) {
            const size = chunkSizes[c % chunkSizes.length];
            chunks.push(shuffled.slice(at, at + size));
            at += size;
          }
          expectSameStatistics(learned(options, ...chunks), learned(options, data), { tolerance: TOLERANCE, extremes: true });
        },
      ),
    );
  });

  test('subtract undoes merge', () => {
    fc.assert(
      fc.property(rows, rows, (a, b) => {
        const sb = learned(options, b);
        const merged = learned(options, a).merge(sb);
        expectSameStatistics(merged.clone().merge(sb, -1), learned(options, a), { tolerance: TOLERANCE, scaleFrom: merged });
      }),
    );
  });

  test('serialize then deserialize gives the same bytes, hash and statistics', () => {
    fc.assert(
      fc.property(rows, rows, (a, b) => {
        const s = learned(options, a, b);
        s.forget(toFrame(b.slice(0, 1)));
        const bytes = s.serialize();
        const copy = Summary.deserialize(bytes);
        if (!Buffer.from(copy.serialize()).equals(Buffer.from(bytes))) throw new Error('serialization round trip changed the bytes');
        if (copy.hash() !== s.hash() || s.clone().hash() !== s.hash()) throw new Error('serialization round trip changed the hash');
        expectSameStatistics(copy, s, { tolerance: 0, extremes: true });
      }),
    );
  });
});

test('merge and subtract accept the summary itself', () => {
  const s = learned(CONFIGS[0][1], [['1', '2', '1', 'red', 'a', '3', '1']]);
  const doubled = learned(CONFIGS[0][1], [['1', '2', '1', 'red', 'a', '3', '1']], [['1', '2', '1', 'red', 'a', '3', '1']]);
  expectSameStatistics(s.merge(s), doubled, { tolerance: 0, extremes: true });
  expect(s.merge(s, -1).rowCount).toBe(0);
});

test('the hash is a safe integer, equal for equal statistics and different for different ones', () => {
  const data = [['1', '2', '1', 'red', 'a', '3', '1'], ['4', '', '0', 'blue', 'b', '5', '0']];
  expect(learned({}, data).hash()).toBe(learned({}, data).hash());
  expect(learned({}, data).hash()).not.toBe(learned({}, data.slice(0, 1)).hash());
  expect(Number.isSafeInteger(learned({}, data).hash())).toBe(true);
});

describe('extreme magnitudes (issue 9: learning 1e308 twice and forgetting it left NaN)', () => {
  // Every value the summary accepts, up to MAX_ABS_VALUE, with the tiny ones too: power sums
  // up to Σx⁴ and Σx²y² stay finite, so forget remains the inverse of learn.
  const extreme = fc.oneof(
    fc.constantFrom(MAX_ABS_VALUE, -MAX_ABS_VALUE, 1e-100, 0),
    fc.double({ min: -MAX_ABS_VALUE, max: MAX_ABS_VALUE, noNaN: true }).filter((v) => v === 0 || Math.abs(v) >= 1e-60),
  ).map(String);
  const bigRows = fc.array(fc.tuple(extreme, extreme), { minLength: 1, maxLength: 12 });
  const big = (data: string[][]): DataFrame => ({ attributeNames: ['x', 'y'], attributeTypes: ['C', 'C'], data });
  const finite = (s: Summary) => {
    for (const name of s.attributeNames) for (const v of Object.values(s.moments(name))) if (Number.isNaN(v) || v === Infinity || v === -Infinity) {
      if (s.rowCount > 0 || !Number.isNaN(v)) throw new Error(`non-finite moment of ${name}: ${v}`);
    }
  };

  test('learn(A), learn(B), forget(B) equals learn(A), with finite power sums throughout', () => {
    fc.assert(
      fc.property(bigRows, bigRows, (a, b) => {
        const s = new Summary();
        s.learn(big(a));
        s.learn(big(b));
        finite(s);
        const before = s.clone();
        s.forget(big(b));
        const only = new Summary();
        only.learn(big(a));
        expectSameStatistics(s, only, { tolerance: 1e-12, scaleFrom: before });
      }),
    );
  });

  test('values larger in magnitude are refused naming row and column, and change nothing', () => {
    const s = new Summary();
    s.learn(big([['1', '2']]));
    const bytes = s.serialize();
    for (const v of ['1e308', '-1.0000000000000001e64', 'Infinity']) {
      expect(() => s.learn(big([['3', '4'], ['5', v]]))).toThrow(FrameError);
    }
    expect(() => s.learn(big([['3', '4'], ['5', '1e308']]))).toThrow(/^Invalid DataFrame at row 2, column \[y\]: value 1e\+308 is larger in magnitude than 1e\+64/);
    expect(Buffer.from(s.serialize()).equals(Buffer.from(bytes))).toBe(true);
  });

  test('the magnitude check finds a large value at any row, among missing cells, and names its first row', () => {
    // The check keeps four running maxima over rows 4k..4k+3 and a tail: every position of
    // frames of 1 to 9 rows, with missing cells (NaN) in every other row.
    for (let rows = 1; rows <= 9; rows++) {
      for (let at = 0; at < rows; at++) {
        for (const huge of ['1.5e64', '-1e65', '1e308', '-1e300']) {
          const data = Array.from({ length: rows }, (_, r) => ['1', r === at ? huge : r % 2 ? 'NA' : String(r)]);
          if (at + 1 < rows) data[rows - 1][1] = '2e64'; // a later one too: the first is named
          expect(() => new Summary().learn(big(data))).toThrow(new RegExp(`^Invalid DataFrame at row ${at + 1}, column \\[y\\]: value ${String(Number(huge)).replace('.', '\\.').replace('+', '\\+')} is larger`));
        }
      }
      expect(() => new Summary().learn(big(Array.from({ length: rows }, (_, r) => ['1', r % 2 ? 'NA' : '1e64'])))).not.toThrow();
    }
  });
});

/**
 * Summary.checkStatistics (what an imported project's summary must pass, transfer.ts): every
 * summary a learn, forget or merge can make passes it, serialized and read back; statistics
 * no learn can make (counts NaN, ±Infinity, negative or fractional; sums not finite; min over
 * max; moments no values have; categorical levels that do not add up) fail it, naming the
 * attribute.
 */
import fc from 'fast-check';
import { type DataFrame, Summary, SummaryError, type SummaryOptions } from '@sml/stats';
import { ATTR, PAIR, pairOffset } from '../src/moments';

const NAMES = ['x', 'y', 'flag', 'color', 'group'];
const TYPES = ['C', 'C', 'B', 'T', 'T'];
const missing = fc.constantFrom('', 'NA', '?');
const withMissing = (cell: fc.Arbitrary<string>) => fc.oneof({ arbitrary: cell, weight: 4 }, { arbitrary: missing, weight: 1 });
const row = fc.tuple(
  withMissing(fc.oneof(fc.integer({ min: -1000, max: 1000 }).map(String), fc.double({ min: -1e4, max: 1e4, noNaN: true }).map((v) => String(Math.abs(v) < 1e-100 ? 0 : v)))),
  withMissing(fc.integer({ min: -50000, max: 50000 }).map((v) => String(v / 100))),
  withMissing(fc.constantFrom('0', '1')),
  withMissing(fc.constantFrom('red', ' Blue', 'RED ', 'green')),
  withMissing(fc.constantFrom('a', 'B', ' a')),
);
const rows = fc.array(row, { minLength: 1, maxLength: 25 });
const toFrame = (data: string[][]): DataFrame => ({ attributeNames: NAMES, attributeTypes: TYPES, data });

const CONFIGS: [string, SummaryOptions][] = [
  ['streaming histograms and partitions', { histogram: 'streaming', histogramBins: 8, partitionSplit: 'group' }],
  ['exact histograms degrading at 6 values', { histogram: 'exact', exactHistogramCap: 6 }],
  ['no options', {}],
];

const readBack = (s: Summary, options: SummaryOptions) => Summary.deserialize(s.serialize(), { options });

describe.each(CONFIGS)('checkStatistics with %s', (_, options) => {
  test('passes every summary learn, forget and merge make (read back from its bytes)', () => {
    fc.assert(
      fc.property(rows, rows, rows, (a, b, c) => {
        const s = new Summary(options);
        s.learn(toFrame([...a, ...b]));
        s.forget(toFrame(b));
        const other = new Summary(options);
        other.learn(toFrame(c));
        expect(() => readBack(s.merge(other), options).checkStatistics()).not.toThrow();
        expect(() => readBack(s, options).checkStatistics()).not.toThrow();
      }),
      { numRuns: 150 },
    );
  });
});

describe('checkStatistics refuses what no learn makes', () => {
  const options: SummaryOptions = { histogram: 'streaming', histogramBins: 8 };
  const base = () => {
    const s = new Summary(options);
    s.learn(toFrame([['1', '2', '0', 'red', 'a'], ['3', '-1', '1', 'green', 'b'], ['5', '', '1', 'red', ''], ['2', '4', '0', '', 'a']]));
    return readBack(s, options);
  };
  // The moment store and row count as deserialize left them (what hostile bytes set).
  const internals = (s: Summary) => (s as unknown as { attributes: { rows: number; store: { attrs: Float64Array; pairs: Float64Array } } }).attributes;
  const refused = (change: (s: Summary) => void, text: RegExp) => {
    const s = base();
    expect(() => s.checkStatistics()).not.toThrow();
    change(s);
    let error: unknown;
    try {
      s.checkStatistics();
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(SummaryError);
    expect((error as Error).message).toMatch(text);
  };
  const attr = (s: Summary, name: string, field: number, v: number) => {
    internals(s).store.attrs[s.attributeNames.indexOf(name) * ATTR.STRIDE + field] = v;
  };

  test.each([NaN, Infinity, -Infinity, -1, 1.5])('the row count %p', (v) => {
    refused((s) => (internals(s).rows = v), /the row count is .*, not a whole number ≥ 0/);
  });

  test.each([NaN, Infinity, -Infinity, -1, 0.5])('an attribute count %p', (v) => {
    refused((s) => attr(s, 'y', ATTR.N, v), /count is .*not a whole number ≥ 0 \[y\]|count .* is over .*\[y\]/);
  });

  test('an attribute count over the rows', () => refused((s) => attr(s, 'x', ATTR.N, 1000), /the count 1000 is over the 4 rows \[x\]/));
  test('a sum not finite', () => refused((s) => attr(s, 'x', ATTR.S3, Infinity), /a power sum is not finite \[x\]/));
  test('min over max', () => refused((s) => attr(s, 'x', ATTR.MIN, 10), /min 10 and max 5 are not an interval of values \[x\]/));
  test('a negative Σx²', () => refused((s) => attr(s, 'x', ATTR.S2, -4), /are not the power sums of any values \[x\]/));
  test('(Σx)² over n·Σx² (a negative variance)', () => refused((s) => attr(s, 'x', ATTR.S1, 100), /are not the power sums of any values \[x\]/));
  test('a categorical level Σx out of [0, n]', () => refused((s) => {
    attr(s, 'color$red', ATTR.S1, 7);
  }, /a categorical level's Σx 7 is not a whole number in \[0, 3\] \[color\$red\]/));
  test('levels that do not add up to the rows', () => refused((s) => {
    attr(s, 'color$red', ATTR.S1, 1);
  }, /the levels of \[color\] add up to 2 of the 3 rows/));
  test('a pair count NaN, or over an attribute count', () => {
    const pair = (s: Summary, v: number) => {
      const [i, j] = [s.attributeNames.indexOf('x'), s.attributeNames.indexOf('y')];
      internals(s).store.pairs[pairOffset(Math.min(i, j), Math.max(i, j)) + PAIR.N] = v;
    };
    refused((s) => pair(s, NaN), /a pair count is NaN/);
    refused((s) => pair(s, 4), /the pair count 4 is over an attribute's count/);
  });
  test('a histogram that does not count the attribute\'s values', () => refused((s) => attr(s, 'x', ATTR.N, 3), /its histogram counts 4 values, its count is 3 \[x\]/));
});

describe('the parts that belong to no attribute, read back', () => {
  // Forged through the summary's internals, then serialized: what hostile bytes carry.
  const forged = (options: SummaryOptions, data: DataFrame, change: (inside: Record<string, never>) => void) => {
    const s = new Summary(options);
    s.learn(data);
    change(s as unknown as Record<string, never>);
    return () => Summary.deserialize(s.serialize(), { options });
  };

  test.each([NaN, Infinity, -1, 0, 1.5])('a survival count %p is refused', (v) => {
    const options: SummaryOptions = { km_time_column: 't', km_event_column: 'e' };
    const read = forged(options, { attributeNames: ['t', 'e'], attributeTypes: ['C', 'C'], data: [['1', '1'], ['2', '0']] }, (inside) => {
      const counts = (inside.survivalCounts as { counts: Map<string, number> }).counts;
      counts.set([...counts.keys()][0], v);
    });
    expect(read).toThrow(/^damaged summary serialization: the count of \["",1,1\] is .*, not a whole number > 0$/);
  });

  test('a micro-cluster sum that is not finite is refused', () => {
    const options: SummaryOptions = { clusters: { features: ['x'], centroids: 2, warmup: 3 } };
    const read = forged(options, { attributeNames: ['x'], attributeTypes: ['C'], data: [['1'], ['2'], ['3'], ['9']] }, (inside) => {
      (inside.microClusters as { ls: Float64Array[] }).ls[0][0] = Infinity;
    });
    expect(read).toThrow('damaged summary serialization: micro-clusters (a number is not finite)');
  });

  test('genuine survival and cluster parts read back', () => {
    expect(forged({ km_time_column: 't', km_event_column: 'e' }, { attributeNames: ['t', 'e'], attributeTypes: ['C', 'C'], data: [['1', '1'], ['2', '0']] }, () => undefined)).not.toThrow();
    expect(forged({ clusters: { features: ['x'], centroids: 2, warmup: 3 } }, { attributeNames: ['x'], attributeTypes: ['C'], data: [['1'], ['2'], ['3'], ['9']] }, () => undefined)).not.toThrow();
  });
});

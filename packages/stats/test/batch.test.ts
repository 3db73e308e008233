/**
 * A batch learned or forgotten as its own summary (batch.ts, Summary.prepare with `summary`)
 * leaves the same statistics as its rows would: moments to their compensated rounding,
 * histograms and extremes exactly. Frames mix continuous, binary and categorical columns with
 * missing cells; categorical levels first seen in a later batch line up as in a learn.
 */
import fc from 'fast-check';
import { type DataFrame, type FrameColumnsData, Summary, SummaryError, type SummaryOptions, frameToColumns, parseFrameJson } from '@sml/stats';
import { batchSummaryOf, summarizeBatch } from '@sml/stats/batch';
import { expectSameStatistics } from './helpers';

const NAMES = ['x', 'y', 'flag', 'color'];
const TYPES = ['C', 'C', 'B', 'T'];
const missing = fc.constant('');
const withMissing = (cell: fc.Arbitrary<string>) => fc.oneof({ arbitrary: cell, weight: 4 }, { arbitrary: missing, weight: 1 });
const row = fc.tuple(
  withMissing(fc.double({ min: -1e4, max: 1e4, noNaN: true }).map((v) => String(Math.abs(v) < 1e-100 ? 0 : v))),
  withMissing(fc.integer({ min: -50000, max: 50000 }).map((v) => String(v / 100))),
  withMissing(fc.constantFrom('0', '1')),
  withMissing(fc.constantFrom('red', 'blue', 'green')),
);
const rows = fc.array(row, { minLength: 1, maxLength: 25 });
const toFrame = (data: string[][]): DataFrame => ({ attributeNames: NAMES, attributeTypes: TYPES, data });
const columnsOf = (frame: DataFrame): FrameColumnsData => frameToColumns(parseFrameJson(Buffer.from(JSON.stringify(frame)))!);

const CONFIGS: [string, SummaryOptions][] = [
  ['streaming histograms with conditional ones', { histogram: 'streaming', histogramBins: 8 }],
  ['exact histograms degrading at 6 values', { histogram: 'exact', exactHistogramCap: 6 }],
  ['no histograms', {}],
];

describe.each(CONFIGS)('batch summaries with %s', (_, options) => {
  test('learning and forgetting batches as summaries equals learning and forgetting their rows', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(rows, fc.boolean()), { minLength: 1, maxLength: 5 }), (batches) => {
        const byRows = new Summary(options);
        const bySummaries = new Summary(options);
        const recipe = JSON.parse(bySummaries.batchRecipe!) as SummaryOptions;
        for (const [data, forgetAfter] of batches) {
          const frame = toFrame(data);
          byRows.learn(frame);
          bySummaries.prepare('learn', { summary: batchSummaryOf(recipe, columnsOf(frame)) }).commit();
          if (forgetAfter) {
            byRows.forget(frame);
            bySummaries.prepare('forget', { summary: batchSummaryOf(recipe, columnsOf(frame)) }).commit();
          }
        }
        expectSameStatistics(bySummaries, byRows, { tolerance: 1e-12, extremes: true });
      }),
    );
  });
});

describe('the recipe', () => {
  test('is the options a batch must be built with, and null for summaries that need the rows', () => {
    const plain = new Summary({ histogram: 'streaming', categorySeparator: '#' });
    expect(new Summary(JSON.parse(plain.batchRecipe!) as SummaryOptions).options).toEqual(plain.options);
    for (const rowsOnly of [{ partitionSplit: 'g' }, { km_time_column: 't', km_event_column: 'e' }, { sequenceOrder: 1 }, { power: { column: 'x', min: -1, max: 1, steps: 2 } }] as SummaryOptions[]) {
      expect(new Summary(rowsOnly).batchRecipe).toBeNull();
    }
  });

  test('a summary that needs the rows, or one built with other options, is refused and nothing changes', () => {
    const batch = batchSummaryOf({ histogram: 'streaming' }, columnsOf(toFrame([['1', '2', '1', 'red']])));
    const partitioned = new Summary({ histogram: 'streaming', partitionSplit: 'color' });
    expect(() => partitioned.prepare('learn', { summary: batch })).toThrow(/learns rows, not batch summaries/);
    const exact = new Summary({ histogram: 'exact' });
    expect(() => exact.prepare('learn', { summary: batch })).toThrow(SummaryError);
    expect(exact.rowCount).toBe(0);
  });

  test('a batch that would take the summary past its attribute limit, or forget rows never learned, is refused', () => {
    const s = new Summary({ maxAttributes: 3 });
    const batch = batchSummaryOf({ maxAttributes: 3 }, columnsOf({ attributeNames: ['a', 'b', 'c'], attributeTypes: ['C', 'C', 'C'], data: [['1', '2', '3']] }));
    s.prepare('learn', { summary: batch }).commit();
    const other = batchSummaryOf({ maxAttributes: 3 }, columnsOf({ attributeNames: ['d'], attributeTypes: ['C'], data: [['1']] }));
    expect(() => s.prepare('learn', { summary: other })).toThrow(/too many attributes/);
    expect(() => s.prepare('forget', { summary: other })).toThrow(/never learned/);
    expect(s.attributeNames).toEqual(['a', 'b', 'c']);
  });

  test('values beyond MAX_ABS_VALUE in a batch summary are refused (a learn cannot make one: the bytes are edited)', () => {
    const bytes = batchSummaryOf({}, columnsOf({ attributeNames: ['a'], attributeTypes: ['C'], data: [['1e60']] }));
    const from = Buffer.alloc(8);
    from.writeDoubleLE(1e60);
    const to = Buffer.alloc(8);
    to.writeDoubleLE(1e70);
    const edited = Buffer.from(bytes);
    let at = edited.indexOf(from);
    expect(at).toBeGreaterThan(0);
    for (; at >= 0; at = edited.indexOf(from)) to.copy(edited, at);
    const s = new Summary();
    expect(() => s.prepare('learn', { summary: edited })).toThrow(/larger in magnitude than 1e\+64/);
    expect(s.prepare('learn', { summary: bytes }).report.rowsLearned).toBe(1);
  });
});

describe('summarizeBatch: whether a batch goes as its summary', () => {
  const recipe = new Summary({ histogram: 'streaming' }).batchRecipe!;
  const numeric = (rowCount: number, cols: number): FrameColumnsData => {
    const names = Array.from({ length: cols }, (_, j) => `x${j}`);
    const data = Array.from({ length: rowCount }, (_, i) => names.map((_, j) => ((i * 31 + j * 17) % 1000 / 7).toFixed(3)));
    return columnsOf({ attributeNames: names, attributeTypes: names.map(() => 'C'), data });
  };

  test('a long batch goes as its summary, which is its rows summarised', () => {
    const columns = numeric(5000, 10);
    const bytes = summarizeBatch(recipe, columns)!;
    expect(bytes).not.toBeNull();
    expect(Buffer.from(bytes).equals(Buffer.from(batchSummaryOf(JSON.parse(recipe) as SummaryOptions, columns)))).toBe(true);
    const total = columns.numeric.reduce((n, c) => n + c.values.byteLength, 0);
    expect(bytes.length).toBeLessThan(total / 2);
  });

  test('a wide batch of few rows, a bad recipe or a frame the summary refuses goes as columns (null)', () => {
    expect(summarizeBatch(recipe, numeric(20, 60))).toBeNull();
    expect(summarizeBatch('{not json', numeric(5000, 10))).toBeNull();
    expect(summarizeBatch(new Summary({ histogram: 'streaming', maxAttributes: 5 }).batchRecipe!, numeric(5000, 10))).toBeNull();
  });
});

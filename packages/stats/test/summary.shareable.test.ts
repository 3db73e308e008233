/**
 * Summary.shareable (what a federation peer may see): moments, co-moments and
 * partitions bit-identical to the summary's; exact histograms (and conditional ones) coarsened
 * to the streaming bins learning the same rows in streaming mode gives; no survival or
 * sequence counts. Reference: the summary itself, and a summary learned in streaming mode.
 */
import { type DataFrame, Summary, type SummaryOptions } from '@sml/stats';

const NAMES = ['x', 'y', 'flag', 'color', 'time', 'group'];
const TYPES = ['C', 'C', 'B', 'T', 'C', 'T'];
const ROWS: string[][] = Array.from({ length: 40 }, (_, r) => [
  String((r * 37) % 23 / 4),
  r % 7 === 0 ? '' : String(((r * 13) % 11) - 5.5),
  String(r % 3 === 0 ? 1 : 0),
  ['red', 'blue', 'green'][r % 3],
  String(r % 5),
  r % 4 === 0 ? 'a' : 'b',
]);
const FRAME: DataFrame = { attributeNames: NAMES, attributeTypes: TYPES, data: ROWS };
const EXACT: SummaryOptions = { histogram: 'exact', histogramBins: 8, partitionSplit: 'group', km_time_column: 'time', km_event_column: 'flag', sequenceOrder: 1 };

function learned(options: SummaryOptions): Summary {
  const s = new Summary(options);
  s.learn(FRAME);
  return s;
}

const bins = (s: Summary, c: string, t?: string) => (t === undefined ? s.histogram(c) : s.conditionalHistogram(c, t))?.toBins();

describe('Summary.shareable', () => {
  const full = learned(EXACT);
  const shared = full.shareable();

  test('drops survival and sequence counts and keeps options a peer can merge', () => {
    expect(shared.survival).toBeUndefined();
    expect(shared.sequences).toBeUndefined();
    expect(shared.options.histogram).toBe('streaming');
    expect(shared.options.km_time_column).toBeUndefined();
    expect(shared.options.sequenceOrder).toBeUndefined();
    expect(shared.options.partitionSplit).toBe('group');
  });

  test('moments and co-moments are bit-identical to the summary', () => {
    expect(shared.attributeNames).toEqual(full.attributeNames);
    expect(shared.rowCount).toBe(full.rowCount);
    for (const a of full.attributeNames) {
      expect(shared.moments(a)).toEqual(full.moments(a));
      for (const b of full.attributeNames) expect(shared.comoments(a, b)).toEqual(full.comoments(a, b));
    }
  });

  test('exact histograms become the streaming bins of the same rows, conditional ones too', () => {
    const streaming = learned({ ...EXACT, histogram: 'streaming' });
    for (const a of ['x', 'y', 'time']) {
      expect(full.histogram(a)?.mode).toBe('exact');
      expect(shared.histogram(a)?.mode).toBe('streaming');
      expect(bins(shared, a)).toEqual(bins(streaming, a));
      expect(shared.conditionalHistogram('flag', a)?.mode).toBe('streaming');
      expect(bins(shared, 'flag', a)).toEqual(bins(streaming, 'flag', a));
    }
  });

  test('partitions are shared, each stripped the same way', () => {
    expect(shared.partitionValues()).toEqual(['a', 'b']);
    const sub = shared.partition('a')!;
    expect(sub.histogram('x')?.mode).toBe('streaming');
    expect(sub.moments('x')).toEqual(full.partition('a')!.moments('x'));
  });

  test('two shared summaries merge, round-trip, and the original is unchanged', () => {
    const twice = shared.clone().merge(shared);
    expect(twice.rowCount).toBe(2 * full.rowCount);
    expect(twice.partition('b')!.rowCount).toBe(2 * full.partition('b')!.rowCount);
    expect(Summary.deserialize(shared.serialize()).hash()).toBe(shared.hash());
    expect(full.histogram('x')?.mode).toBe('exact');
    expect(full.survival).toBeDefined();
  });
});

/**
 * Survival counts (STATS.md §1, §6; API.md §8): per group × distinct time, censored rows
 * (event 0) and rows per event type k ≥ 1. Reference: hand counts.
 */
import fc from 'fast-check';
import { FrameError, Summary, SummaryError } from '@sml/stats';
import { frame } from '../helpers';

const options = { km_time_column: 'time', km_event_column: 'event', km_group_column: 'arm' };
const trial = (rows: string[][], errorHandling = 0) => frame(['time', 'event', 'arm', 'age'], ['C', 'C', 'T', 'C'], rows, errorHandling);

const ROWS = [
  ['5', '1', 'A', '60'],
  ['5', '0', ' a', '61'],
  ['3', '2', 'A', '70'],
  ['5', '1', 'B', '55'],
  ['8.5', '0', 'b', '40'],
  ['3', '1', 'A', '66'],
  ['', '1', 'A', '50'],
  ['4', 'NA', 'B', '51'],
  ['4', '1', '', '52'],
];

test('hand-counted table per group: censored and events per type at each distinct time', () => {
  const s = new Summary(options);
  s.learn(trial(ROWS));
  const km = s.survival!;
  expect(km.groups()).toEqual(['a', 'b']);
  expect(km.eventTypes()).toEqual([1, 2]);
  expect(km.table('a')).toEqual([
    { time: 3, censored: 0, events: [1, 1] },
    { time: 5, censored: 1, events: [1, 0] },
  ]);
  expect(km.table('b')).toEqual([
    { time: 5, censored: 0, events: [1] },
    { time: 8.5, censored: 1, events: [0] },
  ]);
  expect(km.table('nope')).toEqual([]);
  // Rows with a missing time, event or group are still learned by the rest of the summary.
  expect(s.count('age')).toBe(9);
});

test('without a group column every row is in group ""', () => {
  const s = new Summary({ km_time_column: 'time', km_event_column: 'event' });
  s.learn(trial(ROWS));
  expect(s.survival!.groups()).toEqual(['']);
  expect(s.survival!.table('').map((r) => r.time)).toEqual([3, 4, 5, 8.5]);
});

test.each([
  ['a negative time', ['-1', '1', 'A', '1'], 'time', /negative/],
  ['a non-numeric time', ['soon', '1', 'A', '1'], 'time', /not a number/],
  ['a non-integer event', ['1', '1.5', 'A', '1'], 'event', /not an integer/],
  ['a negative event', ['1', '-1', 'A', '1'], 'event', /not an integer/],
])('%s is a FrameError (strict) or a skipped row (lenient)', (_, row, column, reason) => {
  const s = new Summary(options);
  try {
    s.learn(trial([ROWS[0], row]));
    throw new Error('expected a FrameError');
  } catch (e) {
    expect(e).toBeInstanceOf(FrameError);
    expect(e).toMatchObject({ row: 2, column, reason: expect.stringMatching(reason) });
  }
  expect(s.rowCount).toBe(0);
  expect(s.learn(trial([ROWS[0], row], 1))).toMatchObject({ rowsLearned: 1, rowsSkipped: 1 });
});

test('forget removes exactly the rows learned; forgetting an unseen event throws and changes nothing', () => {
  const s = new Summary(options);
  s.learn(trial(ROWS));
  s.forget(trial(ROWS.slice(0, 3)));
  expect(s.survival!.table('a')).toEqual([{ time: 3, censored: 0, events: [1] }]);
  expect(() => s.forget(trial([['3', '2', 'a', '1']]))).toThrow(SummaryError);
  expect(s.survival!.table('a')).toEqual([{ time: 3, censored: 0, events: [1] }]);
});

test('survival counts merge and subtract like the rows they came from', () => {
  const row = fc.tuple(fc.integer({ min: 0, max: 5 }).map(String), fc.constantFrom('0', '1', '2', ''), fc.constantFrom('a', 'b', 'A '), fc.constant('1'));
  fc.assert(
    fc.property(fc.array(row, { minLength: 1, maxLength: 20 }), fc.array(row, { minLength: 1, maxLength: 20 }), (a, b) => {
      const table = (s: Summary) => s.survival!.groups().map((g) => [g, s.survival!.table(g)]);
      const whole = new Summary(options);
      whole.learn(trial([...a, ...b]));
      const parts = new Summary(options);
      parts.learn(trial(a));
      const sb = new Summary(options);
      sb.learn(trial(b));
      expect(table(parts.merge(sb))).toEqual(table(whole));
      const onlyA = new Summary(options);
      onlyA.learn(trial(a));
      expect(table(whole.merge(sb, -1))).toEqual(table(onlyA));
    }),
  );
});

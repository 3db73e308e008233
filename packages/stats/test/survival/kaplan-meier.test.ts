/**
 * Kaplan-Meier and cumulative incidence (STATS.md §6, API.md §8): input errors and the
 * values between and around event times. Reference: hand computation on six rows.
 */
import { Summary } from '@sml/stats';
import { cumulativeIncidence, kaplanMeier, SurvivalInputError } from '../../src/survival';
import { expectClose, frame } from '../helpers';

const options = { km_time_column: 'time', km_event_column: 'event', km_group_column: 'arm' };
const Z95 = 1.959963984540054; // R: qnorm(0.975)

// time/event: 1/1, 2/censored, 3/1, 3/2, 4/censored, 5/1 in arm "A"; one row in arm "B".
function trial(): Summary {
  const s = new Summary(options);
  const rows = [['1', '1', 'A'], ['2', '0', 'a'], ['3', '1', ' A'], ['3', '2', 'A'], ['4', '0', 'A'], ['5', '1', 'A'], ['7', '0', 'B']];
  s.learn(frame(['time', 'event', 'arm'], ['C', 'C', 'T'], rows));
  return s;
}

test('hand-computed Kaplan-Meier: before, at, between and after the event times', () => {
  const rows = kaplanMeier(trial().survival!, 'A', [0.5, 1, 2.5, 3, 10]);
  expect(rows.map((r) => [r.time, r.atRisk, r.events])).toEqual([
    [0.5, 6, 0],
    [1, 6, 1],
    [2.5, 6, 1],
    [3, 4, 2],
    [10, 1, 1],
  ]);
  const expected = [1, 5 / 6, 5 / 6, 5 / 12, 0];
  rows.forEach((r, i) => expectClose(r.survival, expected[i], 1e-15, 0, `S(${r.time})`));
  expect([rows[0].lower, rows[0].upper]).toEqual([1, 1]);
  const se = Math.sqrt(1 / 30 + 2 / (4 * 2)); // Greenwood: Σ d/(n(n − d))
  expectClose(rows[3].lower, (5 / 12) * Math.exp(-Z95 * se), 1e-14, 0, 'lower');
  expect((5 / 12) * Math.exp(Z95 * se)).toBeGreaterThan(1);
  expect(rows[3].upper).toBe(1); // capped, as R's pmin(upper, 1)
  expect(rows[4].lower).toBeNaN();
  expect(rows[4].upper).toBeNaN();
});

test('a larger alpha narrows the interval', () => {
  const [wide] = kaplanMeier(trial().survival!, 'A', [3], 0.05);
  const [narrow] = kaplanMeier(trial().survival!, 'A', [3], 0.5);
  expect(narrow.survival).toBe(wide.survival);
  expect(narrow.lower).toBeGreaterThan(wide.lower);
  expect(narrow.upper).toBeLessThan(1);
});

test('hand-computed cumulative incidence; the event types and survival add up to 1', () => {
  const counts = trial().survival!;
  const times = [0.5, 1, 3, 5];
  const f1 = cumulativeIncidence(counts, 'A', 1, times);
  const f2 = cumulativeIncidence(counts, 'A', 2, times);
  [0, 1 / 6, 3 / 8, 19 / 24].forEach((v, i) => expectClose(f1[i], v, 1e-15, 0, `F1(${times[i]})`));
  [0, 0, 5 / 24, 5 / 24].forEach((v, i) => expectClose(f2[i], v, 1e-15, 0, `F2(${times[i]})`));
  expect(cumulativeIncidence(counts, 'A', 3, times)).toEqual([0, 0, 0, 0]);
});

test('null pools every group; group names match trimmed and lower-cased; times in any order', () => {
  const counts = trial().survival!;
  const pooled = kaplanMeier(counts, null, [7, 1]);
  expect(pooled.map((r) => [r.time, r.atRisk, r.events])).toEqual([
    [7, 2, 1],
    [1, 7, 1],
  ]);
  expectClose(pooled[1].survival, 6 / 7, 1e-15, 0, 'pooled S(1)');
  expect(kaplanMeier(counts, ' a ', [3])).toEqual(kaplanMeier(counts, 'A', [3]));
  expect(kaplanMeier(counts, 'b', [7])).toEqual([{ time: 7, survival: 1, lower: 1, upper: 1, atRisk: 1, events: 0 }]);
});

test('forget updates the estimate like the remaining rows', () => {
  const s = trial();
  s.forget(frame(['time', 'event', 'arm'], ['C', 'C', 'T'], [['1', '1', 'A']]));
  expect(kaplanMeier(s.survival!, 'A', [3])[0]).toMatchObject({ survival: 0.5, atRisk: 4, events: 2 });
});

test('counts without rows give S = 1 with nobody at risk', () => {
  const s = new Summary(options);
  expect(kaplanMeier(s.survival!, null, [0, 5])).toEqual([
    { time: 0, survival: 1, lower: 1, upper: 1, atRisk: 0, events: 0 },
    { time: 5, survival: 1, lower: 1, upper: 1, atRisk: 0, events: 0 },
  ]);
  expect(cumulativeIncidence(s.survival!, null, 1, [5])).toEqual([0]);
});

test('without a group column the only group is "" and null gives the same', () => {
  const s = new Summary({ km_time_column: 'time', km_event_column: 'event' });
  s.learn(frame(['time', 'event'], ['C', 'C'], [['1', '1'], ['2', '0']]));
  expect(kaplanMeier(s.survival!, '', [1])).toEqual(kaplanMeier(s.survival!, null, [1]));
});

test.each([
  ['alpha 0', () => kaplanMeier(trial().survival!, null, [1], 0), 'alpha [0] must be in (0, 1)'],
  ['alpha 1', () => kaplanMeier(trial().survival!, null, [1], 1), 'alpha [1] must be in (0, 1)'],
  ['alpha NaN', () => kaplanMeier(trial().survival!, null, [1], NaN), 'alpha [NaN] must be in (0, 1)'],
  ['a negative time', () => kaplanMeier(trial().survival!, null, [1, -1]), 'time [-1] must be a number ≥ 0'],
  ['a NaN time', () => cumulativeIncidence(trial().survival!, null, 1, [NaN]), 'time [NaN] must be a number ≥ 0'],
  ['event type 0', () => cumulativeIncidence(trial().survival!, null, 0, [1]), 'event type [0] must be an integer ≥ 1'],
  ['an unknown group', () => kaplanMeier(trial().survival!, 'c', [1]), 'unknown group [c]'],
])('%s is a SurvivalInputError', (_, run, message) => {
  expect(run).toThrow(SurvivalInputError);
  expect(run).toThrow(message);
});

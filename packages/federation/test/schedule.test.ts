/** Schedule grammar and ticks. */
import { DEFAULT_MIN_INTERVAL_MS, ScheduleError, nextTick, parseSchedule } from '@sml/federation';

describe('parseSchedule', () => {
  test.each([
    ['m1', 60_000], ['M15', 900_000], ['h2', 7_200_000], ['D1', 86_400_000], ['d9999', 9999 * 86_400_000], ['m0060', 3_600_000],
  ])('%s is an interval of %d ms', (text, ms) => {
    expect(parseSchedule(text).intervalMs).toBe(ms);
  });

  test.each(['', 'm', 'm0', 'm10000', 'w1', 'x5', ' m1', 'm1 ', 'm-1', 'm+1', 'm1.5', '1m', 'mm1', 's30', 's59'])(
    '%j is refused with the REST message', (text) => {
      expect(() => parseSchedule(text)).toThrow(new ScheduleError(text));
      expect(() => parseSchedule(text)).toThrow(`Invalid schedule [${text}]`);
    });

  test('seconds only when the minimum is below a minute, and never under the minimum', () => {
    expect(() => parseSchedule('s60', DEFAULT_MIN_INTERVAL_MS)).toThrow(ScheduleError);
    expect(parseSchedule('s1', 500).intervalMs).toBe(1000);
    expect(parseSchedule('S2', 500).unit).toBe('s');
    expect(() => parseSchedule('s1', 2000)).toThrow('Invalid schedule [s1]');
    expect(() => parseSchedule('m1', 120_000)).toThrow('Invalid schedule [m1]');
    expect(parseSchedule('m2', 120_000).count).toBe(2);
  });
});

describe('nextTick', () => {
  const minute = { intervalMs: 60_000 };

  test('the tick is the next multiple of the interval since the epoch, strictly after now', () => {
    expect(nextTick(minute, 0, () => 0)).toEqual({ tickAt: 60_000, sendAt: 60_000 });
    expect(nextTick(minute, 59_999, () => 0).tickAt).toBe(60_000);
    expect(nextTick(minute, 60_000, () => 0).tickAt).toBe(120_000);
    expect(nextTick({ intervalMs: 86_400_000 }, Date.UTC(2026, 10, 29, 11, 30), () => 0).tickAt).toBe(Date.UTC(2026, 10, 30));
  });

  test('the random delay reaches but never passes min(10 % of the interval, 30 s)', () => {
    const almostOne = () => 1 - Number.EPSILON;
    expect(nextTick(minute, 1, almostOne).sendAt - 60_000).toBe(6_000);
    expect(nextTick({ intervalMs: 3_600_000 }, 1, almostOne).sendAt - 3_600_000).toBe(30_000);
    expect(nextTick({ intervalMs: 1000 }, 1, almostOne).sendAt - 1000).toBe(100);
    expect(nextTick(minute, 1, () => 0.5).sendAt - 60_000).toBe(3_000);
  });
});

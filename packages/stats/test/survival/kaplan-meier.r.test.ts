/**
 * Reference: R `survival` (fixtures/gen_survival.R, run with Rscript): survfit Kaplan-Meier
 * with conf.type = "log" at levels 0.95 and 0.9, and the Aalen-Johansen state probabilities
 * of survfit with a multi-state factor (cumulative incidence of event types 1 and 2), per
 * group and pooled, on generated rows with tied times, censoring, events at time 0, rows
 * with a missing time/event/group and a last time where survival reaches 0.
 * Tolerance 1e-9 relative (closed forms); atRisk and events exact.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DataFrame, Summary } from '@sml/stats';
import { cumulativeIncidence, kaplanMeier } from '../../src/survival';
import { expectClose } from '../helpers';

type Numbers = (number | null)[];

interface Fixture {
  rVersion: string;
  frame: DataFrame;
  times: number[];
  km: { group: string | null; alpha: number; survival: Numbers; lower: Numbers; upper: Numbers; atRisk: number[]; events: number[] }[];
  cif: { group: string | null; eventType: number; values: number[] }[];
}

const TOLERANCE = 1e-9;
const fixture: Fixture = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'survival_r.json'), 'utf8'));
const summary = new Summary({ km_time_column: 'time', km_event_column: 'event', km_group_column: 'arm' });
summary.learn(fixture.frame);
const counts = summary.survival!;

test('the groups are the trimmed, lower-cased values of the group column', () => {
  expect(counts.groups()).toEqual(['control', 'treated']);
  expect(counts.eventTypes()).toEqual([1, 2]);
});

describe.each(fixture.km.map((e) => [e.group ?? 'pooled', e.alpha, e] as const))('Kaplan-Meier of %s at alpha %d equals survfit', (_, alpha, expected) => {
  const rows = kaplanMeier(counts, expected.group, fixture.times, alpha);

  test('survival and the log-type confidence interval (NaN where R gives NA)', () => {
    rows.forEach((row, i) => {
      const what = `t=${fixture.times[i]}`;
      expect(row.time).toBe(fixture.times[i]);
      expectClose(row.survival, expected.survival[i]!, TOLERANCE, 0, `${what} survival`);
      expectClose(row.lower, expected.lower[i] ?? NaN, TOLERANCE, 0, `${what} lower`);
      expectClose(row.upper, expected.upper[i] ?? NaN, TOLERANCE, 0, `${what} upper`);
    });
  });

  test('atRisk and events of the last event time at or before each requested time', () => {
    expect(rows.map((r) => [r.time, r.atRisk, r.events])).toEqual(fixture.times.map((t, i) => [t, expected.atRisk[i], expected.events[i]]));
  });
});

test.each(fixture.cif.map((e) => [e.eventType, e.group ?? 'pooled', e] as const))('cumulative incidence of event type %i for %s equals survfit (Aalen-Johansen)', (k, _, expected) => {
  const values = cumulativeIncidence(counts, expected.group, k, fixture.times);
  values.forEach((v, i) => expectClose(v, expected.values[i], TOLERANCE, 0, `F_${k}(${fixture.times[i]})`));
});

test('survival plus the cumulative incidences of every event type is 1', () => {
  for (const group of [null, 'control', 'treated']) {
    const km = kaplanMeier(counts, group, fixture.times);
    const f1 = cumulativeIncidence(counts, group, 1, fixture.times);
    const f2 = cumulativeIncidence(counts, group, 2, fixture.times);
    km.forEach((row, i) => expectClose(row.survival + f1[i] + f2[i], 1, 1e-12, 0, `${group} t=${row.time}`));
  }
});

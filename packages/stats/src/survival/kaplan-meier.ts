import type { SurvivalCounts } from './counts';
import { SurvivalInputError } from './errors';
import { checkTimes, lastAtOrBefore, riskSet } from './risk-set';

// jstat ships no types and a `declare module 'jstat'` is project-wide (other folders declare
// the parts they use), so the one function used here is typed at the require.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- typed here, see above
const { jStat } = require('jstat') as { jStat: { normal: { inv(p: number, mean: number, std: number): number } } };

/** Kaplan-Meier estimate at one requested time. */
export interface KmRow {
  time: number;
  survival: number;
  /** Confidence interval at level 1 − alpha, `log` type; NaN where survival is 0 (R: NA). */
  lower: number;
  upper: number;
  /** n_i of the last event time t_i ≤ time; before the first event, every row of the group. */
  atRisk: number;
  /** d_i (all event types) of the last event time t_i ≤ time; 0 before the first event. */
  events: number;
}

export const DEFAULT_KM_ALPHA = 0.05;

/** The name of the curve of every group pooled (a null group), as the API names it (API.md §8). */
export const TOTAL_GROUP = 'Total';

/**
 * Kaplan-Meier survival (STATS.md §6) of one group (null = every group pooled, `Total`) at
 * each requested time: S(t) = Π_{t_i ≤ t} (1 − d_i/n_i) over the event times t_i (every
 * event type is an event), Greenwood's variance, and R survfit's default `log` confidence
 * interval S·exp(∓z·se) with se² = Σ_{t_i ≤ t} d_i/(n_i(n_i − d_i)) and z = Φ⁻¹(1 − alpha/2),
 * the upper limit capped at 1. A time between event times carries the values of the last
 * event time before it; a time before the first event has S = 1 = lower = upper, every row
 * at risk and no events. Counts with no rows give S = 1 and atRisk = 0.
 */
export function kaplanMeier(counts: SurvivalCounts, group: string | null, times: readonly number[], alpha = DEFAULT_KM_ALPHA): KmRow[] {
  if (typeof alpha !== 'number' || !(alpha > 0 && alpha < 1)) throw new SurvivalInputError(`alpha [${alpha}] must be in (0, 1)`);
  checkTimes(times);
  const risk = riskSet(counts, group);
  const everyone = risk.length === 0 ? 0 : risk[0].atRisk;
  const steps: { time: number; survival: number; greenwood: number; atRisk: number; events: number }[] = [];
  let survival = 1;
  let greenwood = 0;
  for (const row of risk) {
    if (row.events === 0) continue;
    survival *= 1 - row.events / row.atRisk;
    greenwood += row.events / (row.atRisk * (row.atRisk - row.events));
    steps.push({ time: row.time, survival, greenwood, atRisk: row.atRisk, events: row.events });
  }
  const z = jStat.normal.inv(1 - alpha / 2, 0, 1);
  const stepTimes = steps.map((s) => s.time);
  return times.map((time) => {
    const i = lastAtOrBefore(stepTimes, time);
    if (i < 0) return { time, survival: 1, lower: 1, upper: 1, atRisk: everyone, events: 0 };
    const s = steps[i];
    const se = Math.sqrt(s.greenwood);
    const [lower, upper] = s.survival > 0 ? [s.survival * Math.exp(-z * se), Math.min(1, s.survival * Math.exp(z * se))] : [NaN, NaN];
    return { time, survival: s.survival, lower, upper, atRisk: s.atRisk, events: s.events };
  });
}

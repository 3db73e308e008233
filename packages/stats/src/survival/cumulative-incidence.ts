import type { SurvivalCounts } from './counts';
import { SurvivalInputError } from './errors';
import { checkTimes, lastAtOrBefore, riskSet } from './risk-set';

/**
 * Cumulative incidence of event type k (STATS.md §6, Aalen-Johansen) of one group (null =
 * every group pooled) at each requested time: F_k(t) = Σ_{t_i ≤ t} S(t_i−)·d_{k,i}/n_i, with
 * S the all-cause Kaplan-Meier survival just before t_i. 0 before the first event of type k;
 * an event type never seen gives 0 everywhere.
 */
export function cumulativeIncidence(counts: SurvivalCounts, group: string | null, eventType: number, times: readonly number[]): number[] {
  if (!Number.isInteger(eventType) || eventType < 1) throw new SurvivalInputError(`event type [${eventType}] must be an integer ≥ 1`);
  checkTimes(times);
  const stepTimes: number[] = [];
  const incidence: number[] = [];
  let survival = 1;
  let cumulative = 0;
  for (const row of riskSet(counts, group)) {
    if (row.events === 0) continue;
    cumulative += (survival * (row.eventsByType[eventType - 1] ?? 0)) / row.atRisk;
    survival *= 1 - row.events / row.atRisk;
    stepTimes.push(row.time);
    incidence.push(cumulative);
  }
  return times.map((time) => {
    const i = lastAtOrBefore(stepTimes, time);
    return i < 0 ? 0 : incidence[i];
  });
}

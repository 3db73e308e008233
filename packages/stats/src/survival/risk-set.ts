import type { SurvivalCounts } from './counts';
import { SurvivalInputError } from './errors';

/** One distinct time of the risk set. */
export interface RiskRow {
  readonly time: number;
  /** n_i: rows with time ≥ this time (rows censored at this time are still at risk). */
  readonly atRisk: number;
  /** d_i: rows with an event of any type at this time. */
  readonly events: number;
  /** d_{k,i} = eventsByType[k − 1]. */
  readonly eventsByType: readonly number[];
}

/**
 * The risk set of one group (null = every group pooled), one row per distinct time,
 * ascending, from the survival counts. The group name is matched trimmed and lower-cased,
 * as the group column's values are stored; an unknown group is a SurvivalInputError.
 */
export function riskSet(counts: SurvivalCounts, group: string | null): RiskRow[] {
  const groups = counts.groups();
  let selected = groups;
  if (group !== null) {
    const key = group.trim().toLowerCase();
    if (!groups.includes(key)) throw new SurvivalInputError(`unknown group [${group}]`);
    selected = [key];
  }
  const byTime = new Map<number, { leaving: number; eventsByType: number[] }>();
  for (const g of selected) {
    for (const row of counts.table(g)) {
      let entry = byTime.get(row.time);
      if (!entry) byTime.set(row.time, (entry = { leaving: 0, eventsByType: [] }));
      entry.leaving += row.censored;
      row.events.forEach((d, k) => {
        entry.eventsByType[k] = (entry.eventsByType[k] ?? 0) + d;
        entry.leaving += d;
      });
    }
  }
  let atRisk = [...byTime.values()].reduce((n, entry) => n + entry.leaving, 0);
  return [...byTime]
    .sort((a, b) => a[0] - b[0])
    .map(([time, entry]) => {
      const eventsByType = Array.from(entry.eventsByType, (d) => d ?? 0);
      const row = { time, atRisk, events: eventsByType.reduce((a, b) => a + b, 0), eventsByType };
      atRisk -= entry.leaving;
      return row;
    });
}

/** SurvivalInputError unless every requested time is a number ≥ 0. */
export function checkTimes(times: readonly number[]): void {
  for (const t of times) {
    if (typeof t !== 'number' || !(t >= 0)) throw new SurvivalInputError(`time [${t}] must be a number ≥ 0`);
  }
}

/** The index of the last of `sortedTimes` ≤ t, or -1. */
export function lastAtOrBefore(sortedTimes: readonly number[], t: number): number {
  let lo = 0;
  let hi = sortedTimes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sortedTimes[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

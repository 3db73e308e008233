import { answeringDomainErrors, smlError } from '@sml/core';
import type { sml } from '@sml/proto';
import { cumulativeIncidence, DEFAULT_KM_ALPHA, kaplanMeier, TOTAL_GROUP, type SurvivalCounts } from '@sml/stats';
import { numberFrame } from './frames';
import type { ProjectView } from './summaries';

/** What can be checked before the project is read: every query of type `survival`, alpha in (0, 1). */
export function checkKmQueries(queries: sml.v1.IKmQuery[]): void {
  for (const q of queries) {
    if ((q.type ?? '') !== 'survival') throw smlError('KM_TYPE', { type: q.type ?? '' });
    if (q.alpha !== undefined && q.alpha !== null && !(q.alpha > 0 && q.alpha < 1)) throw smlError('KM_ALPHA', { alpha: q.alpha });
  }
}

/** The project's survival counts; 400 when it is not a survival project. */
export function survivalCounts(view: ProjectView, pid: string): SurvivalCounts {
  const counts = view.summary.survival;
  if (!counts) throw smlError('NOT_SURVIVAL', { pid });
  return counts;
}

/** A query's group: trimmed and lower-cased as the counts keep it, null for every group pooled. */
const groupOf = (group: string | null | undefined): string | null => (group?.trim() ? group.trim().toLowerCase() : null);

/**
 * Kaplan-Meier (API.md §8) per query, at its times: the query's group, or, without one,
 * every group and `Total` (all groups pooled); columns time, survival, lower, upper,
 * atRisk, events.
 */
export function kaplanMeierResults(counts: SurvivalCounts, queries: sml.v1.IKmQuery[]): Promise<sml.v1.IDataFrameMap[]> {
  return answeringDomainErrors({}, () => queries.map((q) => {
    const group = groupOf(q.group);
    const curves: Array<[string, string | null]> = group !== null ? [[group, group]] : [...counts.groups().filter((g) => g !== '').map((g): [string, string] => [g, g]), [TOTAL_GROUP, null]];
    const entries: Record<string, sml.v1.IDataFrame> = {};
    for (const [name, g] of curves) {
      const rows = kaplanMeier(counts, g, q.times ?? [], q.alpha ?? DEFAULT_KM_ALPHA);
      entries[name] = numberFrame(['time', 'survival', 'lower', 'upper', 'atRisk', 'events'], rows.map((r) => [r.time, r.survival, r.lower, r.upper, r.atRisk, r.events]));
    }
    return { entries };
  }));
}

/** Cumulative incidence of event type `k` (default 1) per query, at its times: columns time, event_<k>. */
export function cumulativeIncidenceResults(counts: SurvivalCounts, queries: sml.v1.ICifQuery[]): Promise<sml.v1.ICifPrediction[]> {
  return answeringDomainErrors({}, () => queries.map((q) => {
    const group = groupOf(q.group);
    const times = q.times ?? [];
    const k = q.k ?? 1;
    const f = cumulativeIncidence(counts, group, k, times);
    return { sdfmap: { [group ?? TOTAL_GROUP]: numberFrame(['time', `event_${k}`], times.map((t, i) => [t, f[i]])) } };
  }));
}

/**
 * Survival models (STATS.md §6, API.md §8): Kaplan-Meier and Aalen-Johansen cumulative
 * incidence, computed from a Summary's SurvivalCounts, never rows.
 */
export { SurvivalInputError } from './errors';
export { cumulativeIncidence } from './cumulative-incidence';
export { DEFAULT_KM_ALPHA, type KmRow, kaplanMeier } from './kaplan-meier';

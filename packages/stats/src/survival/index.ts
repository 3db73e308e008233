/**
 * Survival (STATS.md §1, §4, §6, API.md §8): the survival counts a project keeps, and what
 * is computed from them, never from rows: Kaplan-Meier, Aalen-Johansen cumulative incidence
 * and the `km` model. Decisions: README.md.
 */
import type { Algorithm } from '../models/types';
import { km } from './km-model';

export { type SurvivalColumns, SurvivalCounts, type SurvivalRow } from './counts';
export { SurvivalInputError } from './errors';
export { cumulativeIncidence } from './cumulative-incidence';
export { DEFAULT_KM_ALPHA, type KmRow, kaplanMeier, TOTAL_GROUP } from './kaplan-meier';
export { km } from './km-model';

/** Survival models as models: register with `{ ...ALGORITHMS, ...survivalModels }` (models/registry.ts). */
export const survivalModels: Record<string, Algorithm> = { km };

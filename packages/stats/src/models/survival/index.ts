/**
 * Survival models as models (STATS.md §4, §6): `km`, Kaplan-Meier per group. Register with
 * `{ ...ALGORITHMS, ...survivalModels }` (models/registry.ts). Decisions: README.md.
 */
import type { Algorithm } from '../types';
import { km } from './km';

export const survivalModels: Record<string, Algorithm> = { km };

export { km, TOTAL_GROUP } from './km';

/**
 * Anomaly detectors built from the summary (STATS.md §4): `covest`, `repca`, `oospca`,
 * `hba`, `ecod`. Register with `{ ...ALGORITHMS, ...anomalyDetectors }` (models/registry.ts).
 */
import type { Algorithm } from '../types';
import { covest } from './covest';
import { ecod } from './ecod';
import { hba } from './hba';
import { oospca } from './oospca';
import { repca } from './repca';

export const anomalyDetectors: Record<string, Algorithm> = { covest, repca, oospca, hba, ecod };

export { COVEST_DEFAULTS, covest, ESTIMATE_TYPES, type EstimateType } from './covest';
export { ECOD_DEFAULTS, ecod } from './ecod';
export { HBA_DEFAULTS, hba } from './hba';
export { OOSPCA_DEFAULTS, oospca } from './oospca';
export { REPCA_DEFAULTS, repca } from './repca';

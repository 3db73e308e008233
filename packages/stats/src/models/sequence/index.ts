/**
 * Sequence models built from a `sequence` project's counts (STATS.md §4, §7): `mc` (Markov
 * chain) and `hmm` (supervised hidden Markov model). Register with
 * `{ ...ALGORITHMS, ...sequenceModels }` (models/registry.ts). Decisions: README.md.
 */
import type { Algorithm } from '../types';
import { hmm } from './hmm';
import { mc } from './mc';

export const sequenceModels: Record<string, Algorithm> = { mc, hmm };

export { DEFAULT_HMM_VAR_SMOOTHING, hmm } from './hmm';
export { mc } from './mc';

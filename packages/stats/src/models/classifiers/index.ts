/**
 * Classifiers built from the summary (STATS.md §4): `lda`, `mlda`, `mqda`, `bayes`.
 * Register with `{ ...ALGORITHMS, ...classifiers }` (models/registry.ts).
 */
import type { Algorithm } from '../types';
import { bayes } from './bayes';
import { lda, mlda } from './lda';
import { mqda } from './mqda';

export const classifiers: Record<string, Algorithm> = { lda, mlda, mqda, bayes };

export { bayes, DEFAULT_LAPLACE_FACTOR, DEFAULT_VAR_SMOOTHING } from './bayes';
export { lda, mlda } from './lda';
export { mqda } from './mqda';

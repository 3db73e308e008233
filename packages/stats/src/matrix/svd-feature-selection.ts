import { SingularValueDecomposition } from 'ml-matrix';
import type { Summary } from '../summary';
import { MatrixInputError } from './errors';
import { hasVariance, namesOf, requireAttributes } from './matrices';

/** `svd_tolerance` default. */
export const DEFAULT_SVD_TOLERANCE = 1e-8;

/** Scores (and target correlations) within this relative distance of the best tie. */
const TIE = 1e-8;

export interface SvdFeatureSelectionOptions {
  /** `svd_tolerance`: inputs are dropped while σ_min/σ_max of their correlation matrix is below it. */
  readonly tolerance?: number;
}

/**
 * SVD feature selection (STATS.md §3, `exploresvdfs`). Inputs without variance are dropped
 * first. Then, while the smallest singular values σ_k of the inputs' pairwise-complete
 * correlation matrix satisfy σ_k/σ_max < tolerance, the input with the largest loading on
 * those singular vectors is dropped and the decomposition repeated.
 *
 * "Largest loading on the smallest singular vector" is read as the largest Σ_k v_ik² over
 * every singular vector below the tolerance: the same input when one singular value is,
 * and well defined when several are (a multi-dimensional null space, e.g. two collinear
 * groups, has no preferred basis). Ties (within 1e-8 relative, as for the two members of an
 * exactly ±1 correlated pair) go to the input least correlated with the targets (largest
 * |correlation| with any target; a target without variance counts 0), then to the later input.
 *
 * Returns the survivors as position in `inputs` (a string) → attribute name, in input order.
 */
export function svdFeatureSelection(
  summary: Summary,
  inputs: readonly number[],
  targets: readonly number[],
  options: SvdFeatureSelectionOptions = {},
): Record<string, string> {
  if (targets.length < 1) throw new MatrixInputError('Less than 1 target for svd');
  requireAttributes(inputs, 2, 'inputs');
  const tolerance = options.tolerance ?? DEFAULT_SVD_TOLERANCE;
  if (!(tolerance >= 0)) throw new MatrixInputError(`svd_tolerance must be a number ≥ 0, got ${tolerance}`);
  const names = namesOf(summary, inputs);
  namesOf(summary, targets); // rejects unknown targets
  if (inputs.every((a) => summary.count(a) === 0)) throw new MatrixInputError('Error computing SVD, no values found');

  const alive = inputs.map((_, position) => position).filter((position) => hasVariance(summary, inputs[position]));
  const r = summary.correlation([...alive.map((position) => inputs[position]), ...targets]);
  const p = alive.length;
  for (let i = 0; i < p; i++) {
    for (let j = i + 1; j < p; j++) {
      if (Number.isNaN(r.get(i, j))) {
        throw new MatrixInputError(`correlation of [${names[alive[i]]}] and [${names[alive[j]]}] is undefined: fewer than 2 rows where both are present, or one is constant on them`);
      }
    }
  }
  // Relevance to the targets, by row of r (the alive inputs in order).
  const relevance = Array.from({ length: p }, (_, i) => Math.max(0, ...targets.map((_, t) => Math.abs(r.get(i, p + t))).filter((c) => !Number.isNaN(c))));

  let rows = alive.map((_, i) => i);
  while (rows.length > 1) {
    const decomposition = new SingularValueDecomposition(r.selection(rows, rows), { autoTranspose: true, computeLeftSingularVectors: false });
    const sigma = decomposition.diagonal;
    const v = decomposition.rightSingularVectors;
    const small = sigma.map((_, k) => k).filter((k) => sigma[k] / sigma[0] < tolerance);
    if (small.length === 0) break;
    const score = rows.map((_, i) => small.reduce((sum, k) => sum + v.get(i, k) ** 2, 0));
    const top = Math.max(...score);
    let tied = rows.map((_, i) => i).filter((i) => score[i] >= top * (1 - TIE));
    const least = Math.min(...tied.map((i) => relevance[rows[i]]));
    tied = tied.filter((i) => relevance[rows[i]] <= least + TIE);
    const dropped = tied[tied.length - 1];
    rows = rows.filter((_, i) => i !== dropped);
  }

  const out: Record<string, string> = {};
  for (const row of rows) out[String(alive[row])] = names[alive[row]];
  return out;
}

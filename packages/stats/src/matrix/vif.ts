import type { Summary } from '../summary';
import { checkedMatrix, namesOf, requireAttributes, symmetricEigen } from './matrices';

/** Eigenvalues of the correlation matrix below this count as this much when inverting it. */
export const VIF_EIGENVALUE_FLOOR = 1e-4;

/**
 * Variance inflation factors (STATS.md §3, `vif`): the diagonal of the inverse of the
 * pairwise-complete correlation matrix R = Q·diag(λ)·Qᵀ, computed as
 * VIF_i = Σ_k Q_ik² / max(λ_k, 1e-4). Without collinearity (every λ ≥ 1e-4) this is exactly
 * diag(R⁻¹); a collinear set gets large finite values (at most 1e4) instead of infinities.
 */
export function vif(summary: Summary, attributes: readonly number[]): Record<string, number> {
  requireAttributes(attributes, 2);
  const { values, vectors } = symmetricEigen(checkedMatrix(summary, attributes, 'correlation'));
  const out: Record<string, number> = {};
  namesOf(summary, attributes).forEach((name, i) => {
    out[name] = values.reduce((sum, lambda, k) => sum + vectors.get(i, k) ** 2 / Math.max(lambda, VIF_EIGENVALUE_FLOOR), 0);
  });
  return out;
}

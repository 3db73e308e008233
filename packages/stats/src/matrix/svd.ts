import { SingularValueDecomposition } from 'ml-matrix';
import type { Summary } from '../summary';
import { checkedMatrix, fixSigns, namesOf, requireAttributes } from './matrices';

export interface SvdResult {
  /** Decreasing. */
  singularValues: number[];
  /** Left singular vectors: rows = attributes, columns = components. */
  u: number[][];
  /** Right singular vectors: rows = attributes, columns = components; each column's largest |entry| is positive. */
  v: number[][];
  attributeNames: string[];
}

/**
 * Singular value decomposition R = U·diag(σ)·Vᵀ of the pairwise-complete correlation matrix
 * R of `attributes` (`exploresvd`). R is symmetric, so U = V except for the columns of
 * negative eigenvalues of an indefinite (pairwise-complete) R and, up to sign, those of zero
 * singular values, where U's column is any unit null vector. U's columns flip with V's.
 */
export function svd(summary: Summary, attributes: readonly number[]): SvdResult {
  requireAttributes(attributes, 2);
  const decomposition = new SingularValueDecomposition(checkedMatrix(summary, attributes, 'correlation'), { autoTranspose: true });
  const u = decomposition.leftSingularVectors;
  const v = decomposition.rightSingularVectors;
  fixSigns(v, u);
  return { singularValues: decomposition.diagonal, u: u.to2DArray(), v: v.to2DArray(), attributeNames: namesOf(summary, attributes) };
}

import { EigenvalueDecomposition, Matrix, inverse } from 'ml-matrix';
import { SingularSystemError } from './types';

/** Reciprocal condition below which a system is called singular (STATS.md §4). */
export const RCOND_LIMIT = 1e-14;

/**
 * Inverse of a symmetric positive semi-definite matrix, refusing an ill-conditioned one with
 * a message naming the collinear attributes (those loading on the near-null eigenvector),
 * unless `pseudo` asks for the Moore-Penrose pseudo-inverse.
 */
export function inverseOrExplain(a: Matrix, names: readonly string[], pseudo: boolean): Matrix {
  const n = a.rows;
  if (n === 0) return new Matrix(0, 0);
  // Scale to a correlation-like matrix so the condition reflects collinearity, not units.
  const d = Array.from({ length: n }, (_, i) => Math.sqrt(Math.abs(a.get(i, i))) || 1);
  const scaled = new Matrix(n, n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) scaled.set(i, j, a.get(i, j) / (d[i] * d[j]));
  const eig = new EigenvalueDecomposition(scaled, { assumeSymmetric: true });
  const values = eig.realEigenvalues;
  const max = Math.max(...values.map(Math.abs));
  const minAt = values.reduce((best, v, i) => (Math.abs(v) < Math.abs(values[best]) ? i : best), 0);
  const rcond = max > 0 ? Math.abs(values[minAt]) / max : 0;
  if (rcond < RCOND_LIMIT || !Number.isFinite(rcond)) {
    if (pseudo) return pseudoInverse(a);
    const v = eig.eigenvectorMatrix.getColumn(minAt);
    const collinear = names.filter((_, i) => Math.abs(v[i]) > 1e-6);
    throw new SingularSystemError(`singular or ill-conditioned system (reciprocal condition ${rcond.toExponential(2)}): collinear attributes [${collinear.join(', ')}]; set matrix_use_pseudoinv=true to use a pseudo-inverse`);
  }
  return inverse(a);
}

function pseudoInverse(a: Matrix): Matrix {
  const eig = new EigenvalueDecomposition(a, { assumeSymmetric: true });
  const values = eig.realEigenvalues;
  const vectors = eig.eigenvectorMatrix;
  const max = Math.max(...values.map(Math.abs));
  const n = a.rows;
  const out = new Matrix(n, n);
  for (let k = 0; k < n; k++) {
    if (Math.abs(values[k]) <= max * 1e-12) continue;
    const inv = 1 / values[k];
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) out.set(i, j, out.get(i, j) + vectors.get(i, k) * vectors.get(j, k) * inv);
  }
  return out;
}

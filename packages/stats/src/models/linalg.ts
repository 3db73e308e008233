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
  const quick = wellConditionedInverse(scaled, d);
  if (quick) return quick;
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

/**
 * A⁻¹ = D⁻¹·S⁻¹·D⁻¹ from the Cholesky factor of the scaled S = D⁻¹·A·D⁻¹, when that alone
 * proves the reciprocal condition of S at least RCOND_LIMIT (else undefined: the eigenvalues
 * decide). S has a unit diagonal, so λmax ≤ trace S = n, and λmin ≥ 1 / trace S⁻¹ (the trace
 * is the sum of the 1/λ); so λmin/λmax ≥ 1 / (n · trace S⁻¹). The bound is loose only near
 * singularity, where the eigen decomposition still decides, and names the collinear
 * attributes: the answer is the one it would give, at about half the cost of the eigen
 * decomposition plus LU inverse (an mlr build on 49 inputs: 2.6 → 1.7 ms in process).
 */
function wellConditionedInverse(scaled: Matrix, d: readonly number[]): Matrix | undefined {
  const n = scaled.rows;
  // Cholesky wants exact symmetry; pooled covariances carry rounding-level asymmetry (a matrix
  // that is not symmetric at all is left to the eigen decomposition, as before).
  const s = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      const [upper, lower] = [scaled.get(j, i), scaled.get(i, j)];
      if (Math.abs(upper - lower) > 1e-12 * Math.max(1, Math.abs(upper))) return undefined;
      s[i * n + j] = (upper + lower) / 2;
    }
  }
  const inv = choleskyInverse(s, n);
  if (!inv) return undefined;
  let trace = 0;
  for (let i = 0; i < n; i++) trace += inv[i * n + i];
  if (!(trace > 0 && Number.isFinite(trace)) || n * trace * RCOND_LIMIT > 1) return undefined;
  const out = new Matrix(n, n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) out.set(i, j, inv[i * n + j] / (d[i] * d[j]));
  return out;
}

/**
 * The inverse of a symmetric positive definite n × n matrix given by its lower triangle
 * (row-major, overwritten), through its Cholesky factor L: S⁻¹ = L⁻ᵀ·L⁻¹ (LAPACK's potrf then
 * potri). Undefined when a pivot is not positive (ml-matrix's isPositiveDefinite()). Flat
 * arrays rather than ml-matrix's Cholesky solve against the identity: at 49 inputs that solve
 * was the larger part of an mlr build (≈ 1.5 of 4 ms on the projects thread, its get/set per
 * element); the arithmetic is the same.
 */
export function choleskyInverse(s: Float64Array, n: number): Float64Array | undefined {
  // s ← L, row by row (lower triangle only).
  for (let j = 0; j < n; j++) {
    const rj = j * n;
    let pivot = s[rj + j];
    for (let k = 0; k < j; k++) pivot -= s[rj + k] * s[rj + k];
    if (!(pivot > 0)) return undefined;
    const l = Math.sqrt(pivot);
    s[rj + j] = l;
    for (let i = j + 1; i < n; i++) {
      const ri = i * n;
      let sum = s[ri + j];
      for (let k = 0; k < j; k++) sum -= s[ri + k] * s[rj + k];
      s[ri + j] = sum / l;
    }
  }
  // w ← L⁻¹ (lower triangular), column by column by forward substitution.
  const w = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    w[j * n + j] = 1 / s[j * n + j];
    for (let i = j + 1; i < n; i++) {
      const ri = i * n;
      let sum = 0;
      for (let k = j; k < i; k++) sum += s[ri + k] * w[k * n + j];
      w[ri + j] = -sum / s[ri + i];
    }
  }
  // S⁻¹ = L⁻ᵀ·L⁻¹: (S⁻¹)ᵢⱼ = Σ_{k ≥ max(i, j)} wₖᵢ·wₖⱼ, symmetric.
  const inv = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let sum = 0;
      for (let k = i; k < n; k++) sum += w[k * n + i] * w[k * n + j];
      inv[i * n + j] = sum;
      inv[j * n + i] = sum;
    }
  }
  return inv;
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

/** The rows of a matrix kept as JSON (a model's state), row-major in one flat array: what its per-row predict reads. */
export function flatRows(rows: readonly (readonly number[])[]): Float64Array {
  const n = rows.length;
  const m = n > 0 ? rows[0].length : 0;
  const out = new Float64Array(n * m);
  rows.forEach((row, i) => out.set(row, i * m));
  return out;
}

/**
 * dᵀ·P·d for a p × p matrix P given row-major (flatRows), summed row by row as
 * Σ_i d_i·(Σ_j P_ij·d_j). A predict of a covariance model computes it for every row: p²
 * multiply-adds, ≈ 1.5–2 ns each at p = 1000 read from nested JSON arrays, ≈ 0.9 ns from one
 * flat array (the same sums in the same order, so the same result).
 */
export function quadraticForm(p: Float64Array, d: ArrayLike<number>): number {
  const n = d.length;
  let q = 0;
  for (let i = 0; i < n; i++) {
    const at = i * n;
    let row = 0;
    for (let j = 0; j < n; j++) row += p[at + j] * d[j];
    q += d[i] * row;
  }
  return q;
}

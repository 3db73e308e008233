import { EigenvalueDecomposition, Matrix } from 'ml-matrix';
import type { Summary } from '../summary';
import { MatrixInputError } from './errors';

/**
 * A variance at most this fraction of the mean square Σx²/n counts as zero: the summary
 * computes variances from raw power sums, whose rounding leaves about 1e-16 · Σx²/n of noise
 * in the variance of a constant attribute (0.3 learned 1000 times has variance ~7e-16).
 */
export const ZERO_VARIANCE = 1e-12;

/** Loadings within this relative distance of a column's largest |loading| tie for the sign convention. */
const SIGN_TIE = 1e-9;

/** The names of `attributes`; MatrixInputError for an index the summary does not have. */
export function namesOf(summary: Summary, attributes: readonly number[]): string[] {
  const names = summary.attributeNames;
  return attributes.map((a) => {
    if (!Number.isInteger(a) || a < 0 || a >= names.length) throw new MatrixInputError(`unknown attribute [${a}]`);
    return names[a];
  });
}

export function requireAttributes(attributes: readonly number[], minimum: number, what = 'attributes'): void {
  if (attributes.length < minimum) throw new MatrixInputError(`at least ${minimum} ${what} are needed, got ${attributes.length}`);
}

/** At least two present values and a variance that rounding of the power sums cannot explain (ZERO_VARIANCE). */
export function hasVariance(summary: Summary, attribute: number): boolean {
  const m = summary.moments(attribute);
  return m.count >= 2 && summary.variance(attribute) > ZERO_VARIANCE * (m.sumSquares / m.count);
}

/**
 * The pairwise-complete correlation matrix or population covariance matrix of `attributes`
 * (Summary.correlation / Summary.covariance), with every entry defined: MatrixInputError
 * naming the attribute (no values; for correlations also zero variance) or the pair (no
 * co-present rows; for correlations also constant on them) otherwise.
 */
export function checkedMatrix(summary: Summary, attributes: readonly number[], kind: 'correlation' | 'covariance'): Matrix {
  const names = namesOf(summary, attributes);
  attributes.forEach((a, i) => {
    if (summary.count(a) === 0) throw new MatrixInputError(`no values found for attribute [${names[i]}]`);
    if (kind === 'correlation' && !hasVariance(summary, a)) throw new MatrixInputError(`attribute [${names[i]}] has zero variance: its correlations are undefined`);
  });
  const m = kind === 'correlation' ? summary.correlation(attributes) : summary.covariance(attributes);
  for (let i = 0; i < m.rows; i++) {
    for (let j = i + 1; j < m.columns; j++) {
      if (Number.isNaN(m.get(i, j))) {
        throw new MatrixInputError(`${kind} of [${names[i]}] and [${names[j]}] is undefined: fewer than 2 rows where both are present, or one is constant on them`);
      }
    }
  }
  return m;
}

/** Eigenvalues of a symmetric matrix in decreasing order, eigenvectors as the matching columns (sign-fixed). */
export function symmetricEigen(m: Matrix): { values: number[]; vectors: Matrix } {
  const evd = new EigenvalueDecomposition(m, { assumeSymmetric: true });
  const values = evd.realEigenvalues;
  const order = values.map((_, k) => k).sort((a, b) => values[b] - values[a] || a - b);
  const vectors = new Matrix(m.rows, order.length);
  order.forEach((k, c) => vectors.setColumn(c, evd.eigenvectorMatrix.getColumn(k)));
  fixSigns(vectors);
  return { values: order.map((k) => values[k]), vectors };
}

/**
 * The sign convention of STATS.md §3: each column of `vectors` is flipped so that its
 * largest |entry| is positive (of entries within SIGN_TIE of the largest, the first).
 * The same columns of `companion` flip along (left singular vectors with right ones).
 */
export function fixSigns(vectors: Matrix, companion?: Matrix): void {
  for (let c = 0; c < vectors.columns; c++) {
    const column = vectors.getColumn(c);
    const largest = Math.max(...column.map(Math.abs));
    const lead = column.find((v) => Math.abs(v) >= largest * (1 - SIGN_TIE)) ?? 0;
    if (lead < 0) {
      vectors.setColumn(c, column.map((v) => -v));
      companion?.setColumn(c, companion.getColumn(c).map((v) => -v));
    }
  }
}

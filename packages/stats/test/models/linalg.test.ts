/**
 * inverseOrExplain: the inverse of a symmetric positive (semi-)definite matrix, refused when
 * its reciprocal condition (of the matrix scaled to a unit diagonal) is below RCOND_LIMIT.
 * Most matrices are shown well conditioned by their Cholesky factor alone; the decision and
 * the inverse must be those of the eigen decomposition + LU inverse it replaces.
 */
import fc from 'fast-check';
import { CholeskyDecomposition, EigenvalueDecomposition, Matrix, inverse } from 'ml-matrix';
import { choleskyInverse, inverseOrExplain, RCOND_LIMIT } from '../../src/models/linalg';
import { SingularSystemError } from '../../src/models/types';

/** Reciprocal condition of A scaled to a unit diagonal, from its eigenvalues (the reference decision). */
function rcond(a: Matrix): number {
  const n = a.rows;
  const d = Array.from({ length: n }, (_, i) => Math.sqrt(Math.abs(a.get(i, i))) || 1);
  const s = new Matrix(n, n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) s.set(i, j, a.get(i, j) / (d[i] * d[j]));
  const values = new EigenvalueDecomposition(s, { assumeSymmetric: true }).realEigenvalues.map(Math.abs);
  return Math.min(...values) / Math.max(...values);
}

/** XᵀX of `rows` × `n` values with the columns scaled by `scales` (units far apart). */
function gram(values: number[], rows: number, n: number, scales: number[]): Matrix {
  const x = new Matrix(rows, n);
  for (let r = 0; r < rows; r++) for (let c = 0; c < n; c++) x.set(r, c, values[r * n + c] * scales[c]);
  return x.transpose().mmul(x);
}

describe('inverseOrExplain', () => {
  it('on well-conditioned systems of very different units, the inverse of the LU inverse it replaced (relative 1e-9)', () => {
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 12 }).chain((n) => fc.record({
        n: fc.constant(n),
        values: fc.array(fc.integer({ min: -1000, max: 1000 }).map((v) => v / 100), { minLength: (n + 8) * n, maxLength: (n + 8) * n }),
        scales: fc.array(fc.constantFrom(1e-3, 1, 1e3, 1e6), { minLength: n, maxLength: n }),
      })),
      ({ n, values, scales }) => {
        const a = gram(values, n + 8, n, scales);
        fc.pre(rcond(a) > 1e-8);
        const got = inverseOrExplain(a, Array.from({ length: n }, (_, i) => `x${i}`), false);
        const want = inverse(a);
        for (let i = 0; i < n; i++) {
          for (let j = 0; j < n; j++) {
            const scale = Math.sqrt(Math.abs(want.get(i, i) * want.get(j, j)));
            expect(Math.abs(got.get(i, j) - want.get(i, j))).toBeLessThanOrEqual(1e-9 * scale);
          }
        }
      },
    ), { numRuns: 200 });
  });

  it('refuses what the eigenvalues call singular, naming the collinear attributes, and accepts just above the limit', () => {
    // c = a + 2b: exactly collinear.
    const rows = [[1, 2], [3, 1], [0, 5], [2, 2], [4, 0]].map(([a, b]) => [a, b, a + 2 * b]);
    const x = new Matrix(rows);
    const singular = x.transpose().mmul(x);
    expect(() => inverseOrExplain(singular, ['a', 'b', 'c'], false)).toThrow(SingularSystemError);
    expect(() => inverseOrExplain(singular, ['a', 'b', 'c'], false)).toThrow(/collinear attributes \[a, b, c\]/);
    // Nearly collinear, on both sides of the limit (the reciprocal condition grows as eps²): the
    // eigenvalues' decision, whether the Cholesky bound (loose near the limit) settles it or not.
    const decided = { refused: 0, accepted: 0 };
    for (const eps of [1e-5, 5e-6, 2e-6, 1.5e-6, 1e-6, 3e-7, 1e-7]) {
      const near = new Matrix(rows.map(([a, b, c], i) => [a, b, c + (i % 2 ? eps : -eps)]));
      const g = near.transpose().mmul(near);
      if (rcond(g) < RCOND_LIMIT) {
        expect(() => inverseOrExplain(g, ['a', 'b', 'c'], false)).toThrow(SingularSystemError);
        decided.refused++;
      } else {
        // An inverse, to the accuracy a condition number near 10¹⁴ leaves in double precision.
        expect(inverseOrExplain(g, ['a', 'b', 'c'], false).mmul(g).sub(Matrix.eye(3)).abs().max()).toBeLessThan(0.1);
        decided.accepted++;
      }
    }
    expect(decided).toEqual({ refused: 3, accepted: 4 });
  });
});

describe('choleskyInverse', () => {
  const lower = (a: Matrix) => {
    const n = a.rows;
    const s = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) s[i * n + j] = a.get(i, j);
    return s;
  };

  it("is ml-matrix's Cholesky solve against the identity, and refuses what it calls not positive definite", () => {
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 16 }).chain((n) => fc.record({
        n: fc.constant(n),
        values: fc.array(fc.integer({ min: -1000, max: 1000 }).map((v) => v / 100), { minLength: n * n, maxLength: n * n }),
        shift: fc.constantFrom(-3, -0.5, 0, 0.5, 5),
      })),
      ({ n, values, shift }) => {
        // XᵀX/n shifted by a multiple of I: positive definite or not, depending on the shift.
        const x = new Matrix(n, n);
        for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) x.set(i, j, values[i * n + j]);
        const a = x.transpose().mmul(x).div(n).add(Matrix.eye(n).mul(shift));
        const reference = new CholeskyDecomposition(a);
        const got = choleskyInverse(lower(a), n);
        if (!reference.isPositiveDefinite()) {
          expect(got).toBeUndefined();
          return;
        }
        expect(got).toBeDefined();
        const want = reference.solve(Matrix.eye(n));
        for (let i = 0; i < n; i++) {
          for (let j = 0; j < n; j++) {
            const scale = Math.sqrt(Math.abs(want.get(i, i) * want.get(j, j)));
            expect(Math.abs(got![i * n + j] - want.get(i, j))).toBeLessThanOrEqual(1e-10 * scale);
          }
        }
      },
    ), { numRuns: 300 });
  });

  it('gives a known inverse exactly enough, and undefined at a zero or negative pivot', () => {
    // [[4, 2], [2, 3]]⁻¹ = [[3, -2], [-2, 4]] / 8.
    const inv = choleskyInverse(new Float64Array([4, 0, 2, 3]), 2)!;
    expect([...inv].map((v) => v * 8)).toEqual([3, -2, -2, 4].map((v) => expect.closeTo(v, 12)));
    expect(choleskyInverse(new Float64Array([1, 0, 1, 1]), 2)).toBeUndefined(); // [[1, 1], [1, 1]]: singular
    expect(choleskyInverse(new Float64Array([1, 0, 2, 1]), 2)).toBeUndefined(); // [[1, 2], [2, 1]]: indefinite
    expect(choleskyInverse(new Float64Array([0]), 1)).toBeUndefined();
  });
});

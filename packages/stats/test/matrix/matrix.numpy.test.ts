/**
 * Reference: numpy (fixtures/gen_matrix.py, run with Debian's /usr/bin/python3):
 * numpy.linalg.eigh (PCA, floored VIF), numpy.linalg.svd (SVD, feature selection) and
 * numpy.linalg.inv (VIF without collinearity) of the pairwise-complete matrices, on Iris,
 * on data with an exactly collinear set (x3 = x1 + 2·x2) and on data with missing cells.
 *
 * Tolerance 1e-9, relative to the largest eigenvalue / singular value for spectra, absolute
 * for unit vectors, relative for VIF and explained fractions (ml-matrix's tql2 and
 * Golub-Kahan solvers converge to rounding, so the closed-form tolerance holds). Vectors of
 * components whose eigenvalues coincide (a multi-dimensional null space) are not unique:
 * for those the projector onto their span is compared.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DataFrame, Summary } from '@sml/stats';
import { Matrix } from 'ml-matrix';
import { pca, svd, svdFeatureSelection, vif } from '../../src/matrix';
import { expectClose } from '../helpers';

interface Decomposition {
  pcaValues: number[];
  pcaVectors: number[][];
  pcaSumValues: number[];
}

interface Case {
  attributes: string[];
  correlationEigenvalues: number[];
  pcaCorrelation: Decomposition;
  pcaCovariance: Decomposition;
  svd: { singularValues: number[]; u: number[][]; v: number[][] };
  vif: Record<string, number>;
  vifMethod: string;
}

interface Fixture {
  frame: DataFrame;
  cases: Case[];
  featureSelection: { inputs: string[]; targets: string[]; selected: Record<string, string> }[];
}

const TOLERANCE = 1e-9;

/** Groups of component indexes whose values (decreasing) are within 1e-6 of the largest of each other. */
function clusters(values: number[]): number[][] {
  const scale = Math.max(...values.map(Math.abs));
  const out: number[][] = [];
  values.forEach((v, k) => {
    const last = out[out.length - 1];
    if (last !== undefined && Math.abs(values[last[last.length - 1]] - v) < 1e-6 * scale) last.push(k);
    else out.push([k]);
  });
  return out;
}

/** Columns `ks` of `actual` equal those of `expected` (one column), or span the same space (several, or `span`). */
function expectSameVectors(actual: number[][], expected: number[][], ks: number[], what: string, span = ks.length > 1): void {
  const columns = (m: number[][]) => new Matrix(m).subMatrixColumn(ks);
  const [a, e] = [columns(actual), columns(expected)];
  const [pa, pe] = span ? [a.mmul(a.transpose()), e.mmul(e.transpose())] : [a, e];
  for (let i = 0; i < pa.rows; i++) {
    for (let j = 0; j < pa.columns; j++) expectClose(pa.get(i, j), pe.get(i, j), TOLERANCE, 1, `${what} components ${ks.join(',')} [${i}, ${j}]`);
  }
}

function expectDecomposition(actual: Decomposition, expected: Decomposition, what: string): void {
  const scale = Math.max(...expected.pcaValues.map(Math.abs));
  expect(actual.pcaValues).toHaveLength(expected.pcaValues.length);
  actual.pcaValues.forEach((v, k) => expectClose(v, expected.pcaValues[k], TOLERANCE, scale, `${what} eigenvalue ${k}`));
  actual.pcaSumValues.forEach((v, k) => expectClose(v, expected.pcaSumValues[k], TOLERANCE, 1, `${what} explained fraction ${k}`));
  for (const ks of clusters(expected.pcaValues)) expectSameVectors(actual.pcaVectors, expected.pcaVectors, ks, what);
}

/** Each column's largest |entry| is positive (STATS.md §3). */
function expectSignConvention(vectors: number[][], what: string): void {
  const m = new Matrix(vectors);
  for (let c = 0; c < m.columns; c++) {
    const column = m.getColumn(c);
    const largest = Math.max(...column.map(Math.abs));
    expect([what, c, column.find((v) => Math.abs(v) >= largest * (1 - 1e-9))! > 0]).toEqual([what, c, true]);
  }
}

describe.each(['matrix_iris.json', 'matrix_collinear.json', 'matrix_missing.json'])('matrix explorations equal numpy on %s', (file) => {
  const fixture: Fixture = JSON.parse(readFileSync(join(__dirname, 'fixtures', file), 'utf8'));
  const summary = new Summary();
  summary.learn(fixture.frame);
  const indexes = (names: string[]) => names.map((n) => summary.indexOf(n));

  describe.each(fixture.cases.map((c) => [c.attributes.length, c] as const))('on %i attributes', (_, c) => {
    const attributes = indexes(c.attributes);

    test('PCA of the correlation matrix: eigenvalues, explained fractions and sign-fixed eigenvectors', () => {
      const result = pca(summary, attributes, {});
      expect(result.attributeNames).toEqual(c.attributes);
      expectDecomposition(result, c.pcaCorrelation, 'correlation PCA');
      expectSignConvention(result.pcaVectors, 'correlation PCA');
    });

    test('PCA of the covariance matrix (pca_use_covariance)', () => {
      const result = pca(summary, attributes, { useCovariance: true });
      expectDecomposition(result, c.pcaCovariance, 'covariance PCA');
      expectSignConvention(result.pcaVectors, 'covariance PCA');
    });

    test('numDimension keeps the leading components; fractions stay of the whole trace', () => {
      const full = pca(summary, attributes, {});
      const two = pca(summary, attributes, { numDimension: 2 });
      expect(two.pcaValues).toEqual(full.pcaValues.slice(0, 2));
      expect(two.pcaSumValues).toEqual(full.pcaSumValues.slice(0, 2));
      expect(two.pcaVectors).toEqual(full.pcaVectors.map((row) => row.slice(0, 2)));
    });

    test('SVD of the correlation matrix: singular values, sign-fixed V, U flipping along, U·Σ·Vᵀ = R', () => {
      const result = svd(summary, attributes);
      const scale = c.svd.singularValues[0];
      result.singularValues.forEach((s, k) => expectClose(s, c.svd.singularValues[k], TOLERANCE, scale, `singular value ${k}`));
      expectSignConvention(result.v, 'V');
      for (const ks of clusters(c.svd.singularValues)) {
        expectSameVectors(result.v, c.svd.v, ks, 'V');
        // The sign of U's column of a zero singular value is arbitrary; its span is not.
        expectSameVectors(result.u, c.svd.u, ks, 'U', ks.length > 1 || c.svd.singularValues[ks[0]] < 1e-8 * scale);
      }
      const u = new Matrix(result.u);
      const product = u.mulRowVector(result.singularValues).mmul(new Matrix(result.v).transpose());
      const r = summary.correlation(attributes);
      for (let i = 0; i < r.rows; i++) for (let j = 0; j < r.columns; j++) expectClose(product.get(i, j), r.get(i, j), TOLERANCE, 1, `(UΣVᵀ)[${i}, ${j}]`);
    });

    test(`VIF equals numpy (${c.vifMethod})`, () => {
      const result = vif(summary, attributes);
      expect(Object.keys(result)).toEqual(c.attributes);
      for (const name of c.attributes) {
        expect(Number.isFinite(result[name])).toBe(true);
        expectClose(result[name], c.vif[name], TOLERANCE, 0, `VIF ${name}`);
      }
    });
  });

  test.each(fixture.featureSelection.map((f) => [f.inputs.join(','), f.targets.join(','), f] as const))(
    'SVD feature selection of [%s] for targets [%s] keeps the inputs numpy keeps',
    (_, __, f) => {
      expect(svdFeatureSelection(summary, indexes(f.inputs), indexes(f.targets), {})).toEqual(f.selected);
    },
  );
});

describe('collinear set x3 = x1 + 2·x2', () => {
  const fixture: Fixture = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'matrix_collinear.json'), 'utf8'));
  const summary = new Summary();
  summary.learn(fixture.frame);
  const indexes = (names: string[]) => names.map((n) => summary.indexOf(n));

  test('VIF of the collinear inputs is large and finite, of the others near 1', () => {
    const result = vif(summary, indexes(['x1', 'x2', 'x3', 'x4']));
    for (const name of ['x1', 'x2', 'x3']) expect(result[name]).toBeGreaterThan(100);
    for (const name of ['x1', 'x2', 'x3']) expect(result[name]).toBeLessThanOrEqual(1e4 + 1e-6);
    expect(result.x4).toBeLessThan(1.1);
  });

  test('SVD feature selection drops the constant input and exactly one of the collinear inputs', () => {
    const selected = Object.values(svdFeatureSelection(summary, indexes(['x1', 'x2', 'x3', 'x4', 'x5', 'b', 'c']), indexes(['y']), {}));
    expect(selected).not.toContain('c');
    expect(selected.filter((n) => ['x1', 'x2', 'x3'].includes(n))).toHaveLength(2);
    expect(selected).toEqual(expect.arrayContaining(['x4', 'x5', 'b']));
  });

  test('a tolerance of 0 keeps every input with variance', () => {
    expect(Object.values(svdFeatureSelection(summary, indexes(['x1', 'x2', 'x3', 'c']), indexes(['y']), { tolerance: 0 }))).toEqual(['x1', 'x2', 'x3']);
  });
});

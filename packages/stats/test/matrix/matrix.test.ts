/**
 * Matrix explorations (STATS.md §3, API.md §6): input errors and the tie rules of SVD
 * feature selection. Reference: hand reasoning on constructed data (stated per test).
 */
import { Summary } from '@sml/stats';
import { MatrixInputError, pca, svd, svdFeatureSelection, vif } from '../../src/matrix';
import { frame } from '../helpers';

/** x1 = a + e, x2 = a − e with cov(a, e) = 0 exactly (every a with +e and −e), x3 = x1 + x2. */
function symmetricPair(): Summary {
  const rows: string[][] = [];
  for (const a of [0, 1, 2, 3]) {
    for (const e of [5, -5]) rows.push([a + e, a - e, 2 * a, a, (a * 7) % 3, 4].map(String));
  }
  const s = new Summary();
  s.learn(frame(['x1', 'x2', 'x3', 'a', 'z', 'k'], ['C', 'C', 'C', 'C', 'C', 'C'], rows));
  return s;
}

function expectMatrixError(run: () => unknown, message: string | RegExp): void {
  expect(run).toThrow(MatrixInputError);
  expect(run).toThrow(message);
}

describe('input errors are MatrixInputError', () => {
  const s = symmetricPair();
  test.each([
    ['pca', (a: number[]) => pca(s, a, {})],
    ['svd', (a: number[]) => svd(s, a)],
    ['vif', (a: number[]) => vif(s, a)],
  ])('%s needs at least 2 known attributes with variance', (_, run) => {
    expectMatrixError(() => run([0]), 'at least 2 attributes are needed, got 1');
    expectMatrixError(() => run([0, 17]), 'unknown attribute [17]');
    expectMatrixError(() => run([0, 5]), 'attribute [k] has zero variance');
  });

  test('a constant attribute is fine for covariance PCA: its eigenvalue is 0', () => {
    const result = pca(s, [3, 5], { useCovariance: true });
    expect(result.pcaValues).toEqual([s.variance('a'), 0]);
    expect(result.pcaSumValues).toEqual([1, 1]);
    expect(result.pcaVectors).toEqual([
      [1, 0],
      [0, 1],
    ]);
  });

  test('pcaNumDimension must be an integer ≥ 1', () => {
    expectMatrixError(() => pca(s, [0, 1], { numDimension: 0 }), /pcaNumDimension/);
    expectMatrixError(() => pca(s, [0, 1], { numDimension: 1.5 }), /pcaNumDimension/);
  });

  test('an attribute without values, or a pair never present together, has no correlation', () => {
    const t = new Summary();
    t.learn(frame(['x', 'y', 'w'], ['C', 'C', 'C'], [['1', '', ''], ['2', '', ''], ['', '3', ''], ['', '5', '']]));
    expectMatrixError(() => pca(t, [0, 2], {}), 'no values found for attribute [w]');
    expectMatrixError(() => vif(t, [0, 1]), 'correlation of [x] and [y] is undefined');
    expectMatrixError(() => pca(t, [0, 1], { useCovariance: true }), 'covariance of [x] and [y] is undefined');
  });

  test('SVD feature selection: no target, fewer than 2 inputs, no values, bad tolerance', () => {
    expectMatrixError(() => svdFeatureSelection(s, [0, 1], [], {}), 'Less than 1 target for svd');
    expectMatrixError(() => svdFeatureSelection(s, [0], [3], {}), 'at least 2 inputs are needed, got 1');
    expectMatrixError(() => svdFeatureSelection(s, [0, 1], [3], { tolerance: -1 }), /svd_tolerance/);
    expectMatrixError(() => svdFeatureSelection(s, [0, 1], [9], {}), 'unknown attribute [9]');
    const empty = new Summary();
    empty.learn(frame(['x', 'y', 't'], ['C', 'C', 'C'], [['', '', '1']]));
    expectMatrixError(() => svdFeatureSelection(empty, [0, 1], [2], {}), 'Error computing SVD, no values found');
  });
});

describe('SVD feature selection', () => {
  const s = symmetricPair();
  const [x1, x2, x3, a, z, k] = [0, 1, 2, 3, 4, 5];

  test('inputs without variance are dropped; only constants left gives an empty selection', () => {
    expect(svdFeatureSelection(s, [k, x1, z], [a], {})).toEqual({ 1: 'x1', 2: 'z' });
    expect(svdFeatureSelection(s, [k, k], [a], {})).toEqual({});
  });

  // x1 + x2 − x3 = 0 with sd(x1) = sd(x2) > sd(x3): x1 and x2 tie for the largest loading.
  test('a tie for the largest loading drops the input least correlated with the targets', () => {
    expect(svdFeatureSelection(s, [x1, x2, x3, z], [x1], {})).toEqual({ 0: 'x1', 2: 'x3', 3: 'z' });
    expect(svdFeatureSelection(s, [x1, x2, x3, z], [x2], {})).toEqual({ 1: 'x2', 2: 'x3', 3: 'z' });
  });

  test('a tie also in target correlation drops the later input', () => {
    // a = (x1 + x2)/2 is equally correlated with x1 and x2.
    expect(svdFeatureSelection(s, [x1, x2, x3, z], [a], {})).toEqual({ 0: 'x1', 2: 'x3', 3: 'z' });
    expect(svdFeatureSelection(s, [x2, x1, x3, z], [a], {})).toEqual({ 0: 'x2', 2: 'x3', 3: 'z' });
  });

  test('a duplicated input is dropped once, keeping the first', () => {
    expect(svdFeatureSelection(s, [z, a, z], [x1], {})).toEqual({ 0: 'z', 1: 'a' });
  });
});

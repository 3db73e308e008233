// STATS.md §4: a model whose matrix is singular or ill-conditioned (reciprocal condition
// < 1e-14) fails naming the collinear attributes, unless matrix_use_pseudoinv=true. The
// collinear fixture has c3 = c1 + 2·c2 exactly (fixtures/gen_linear_family.py).
import { mlr, ModelInputError, type ModelSpec } from '@sml/stats';
import { expectClose } from '../../helpers';
import { chebyshevQuadratic, linearFamily } from '../../../src/models/linear-family';
import { DATASETS, type Dataset, frameOf, specOf, summaryOf } from './fixture';

const collinear = DATASETS.collinear;
const INPUTS = ['c1', 'c2', 'c3', 'c4'];
// Rows on the data's subspace (c3 = c1 + 2·c2), where every least-squares solution predicts alike.
const ON_SUBSPACE = frameOf(INPUTS, [[4, 1, 6, 0.2], [15, -3, 9, -1.0], [0, 0, 0, 0]]);

/** The collinear data with a 0/1 label (cy above its median) for the classifiers. */
function labelled(): Dataset {
  const y = collinear.rows.map((r) => Number(r[4]));
  const median = [...y].sort((a, b) => a - b)[Math.floor(y.length / 2)];
  return { names: [...collinear.names, 'label'], types: [...collinear.types, 'B'], rows: collinear.rows.map((r, i) => [...r, y[i] > median ? '1' : '0']) };
}

describe.each([
  ['ridge', 'cy', { lambda: '0' }],
  ['lsvr', 'cy', { sml_model_svm_nu: '0' }],
  ['pcr', 'cy', { q: '4' }],
  ['lsvm', 'label', { sml_model_svm_nu: '0' }],
  ['lr', 'label', {}],
])('%s on collinear inputs', (algo, target, params) => {
  const summary = summaryOf(labelled());
  const spec: ModelSpec = specOf(summary, algo, INPUTS, target, params);

  it('is refused naming the collinear attributes', () => {
    expect(() => linearFamily[algo].build(summary, spec)).toThrow(ModelInputError);
    expect(() => linearFamily[algo].build(summary, spec)).toThrow(/collinear attributes \[c1, c2, c3\].*matrix_use_pseudoinv=true/);
  });

  it('with matrix_use_pseudoinv=true predicts as least squares (mlr with the pseudo-inverse) on the data subspace', () => {
    const model = linearFamily[algo].build(summary, { ...spec, params: { ...params, matrix_use_pseudoinv: 'true' } });
    const reference = mlr.build(summary, { ...spec, algo: 'mlr', params: { matrix_use_pseudoinv: 'true' } });
    const key = algo === 'lsvm' ? 'score' : algo === 'lr' ? 'prob' : 'res';
    const want = reference.predict(ON_SUBSPACE).map((p) => Number(p.res));
    // lsvm fits the ±1 labels; lr scales that fit's linear predictor by −a1/(2·a2).
    const { a1, a2 } = chebyshevQuadratic(4);
    const transform = (v: number) => (algo === 'lsvm' ? 2 * v - 1 : algo === 'lr' ? 1 / (1 + Math.exp((a1 / (2 * a2)) * (2 * v - 1))) : v);
    model.predict(ON_SUBSPACE).forEach((p, i) => expectClose(Number(p[key]), transform(want[i]), 1e-8, 1, `row ${i}`));
  });
});

it('ridge with a positive penalty and the default pcr need no pseudo-inverse on collinear inputs', () => {
  const summary = summaryOf(collinear);
  expect(() => linearFamily.ridge.build(summary, specOf(summary, 'ridge', INPUTS, 'cy', { lambda: '1e-3' }))).not.toThrow();
  expect(linearFamily.pcr.build(summary, specOf(summary, 'pcr', INPUTS, 'cy')).info().q).toBe('3');
});

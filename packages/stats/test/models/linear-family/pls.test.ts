// Reference: scikit-learn PLSRegression(n_components=q, scale=True), one target
// (fixtures/gen_linear_family.py); its coef_ (per standardized input) is converted to
// original units there. Closed form: 1e-9 relative.
import { linearFamily } from '../../../src/models/linear-family';
import { DATASETS, expectReference, referenceCases, specOf, summaryOf } from './fixture';

describe('plsq equals scikit-learn PLSRegression', () => {
  it.each(referenceCases('plsq').map((c) => [c.name, c] as const))('%s', (_, c) => {
    const summary = summaryOf(DATASETS[c.data]);
    expectReference(linearFamily.plsq.build(summary, specOf(summary, 'plsq', c.inputs, c.target, c.params)), c, 1e-9);
  });

  it('with as many components as inputs it is least squares (mlr)', () => {
    const summary = summaryOf(DATASETS.iris);
    const spec = specOf(summary, 'plsq', ['sepal_width', 'petal_length', 'petal_width'], 'sepal_length', { q: '3' });
    expect(Number(linearFamily.plsq.build(summary, spec).extra().coef_petal_width)).toBeCloseTo(-0.5625678605519053, 10);
  });

  it('stops adding components once the target is explained, and says how many it kept', () => {
    // Uncorrelated ±1 inputs of equal variance: the first PLS direction is the exact fit.
    const patterns = [[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]];
    const rows = [...patterns, ...patterns].map(([a, b, c]) => [a, b, c, 2 * a - b + 0.5 * c].map(String));
    const summary = summaryOf({ names: ['a', 'b', 'c', 'y'], types: ['C', 'C', 'C', 'C'], rows });
    const model = linearFamily.plsq.build(summary, specOf(summary, 'plsq', ['a', 'b', 'c'], 'y', { q: '3' }));
    expect(model.info()).toMatchObject({ q: '3', components: '1' });
    expect(Number(model.predict({ names: ['a', 'b', 'c'], rows: [['1', '1', '1']] })[0].res)).toBeCloseTo(1.5, 12);
  });
});

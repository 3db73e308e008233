// Reference: scikit-learn Lasso(alpha=λ) and ElasticNet(alpha=λ, l1_ratio=η)
// (fixtures/gen_linear_family.py). SML's defaults run to the optimum (STATS.md §4), so cases
// without `tol` are referenced by scikit-learn with tol 1e-12; cases passing scikit-learn's
// defaults (tol 1e-4, max_iter 1000) take the same sweeps and stopping rule. Iterative: 1e-6.
import { ModelInputError } from '@sml/stats';
import { expectClose } from '../../helpers';
import { linearFamily } from '../../../src/models/linear-family';
import { DATASETS, expectReference, referenceCases, specOf, summaryOf } from './fixture';

describe.each(['lasso', 'elasticnet'])('%s equals scikit-learn', (algo) => {
  it.each(referenceCases(algo).map((c) => [c.name, c] as const))('%s, after as many sweeps', (_, c) => {
    const summary = summaryOf(DATASETS[c.data]);
    const model = linearFamily[algo].build(summary, specOf(summary, algo, c.inputs, c.target, c.params));
    expectReference(model, c, 1e-6);
    expect(model.info()).toMatchObject({ converged: 'true', iterations: String(c.iterations) });
  });
});

describe('penalised regression parameters and convergence', () => {
  const summary = summaryOf(DATASETS.iris);
  const inputs = ['sepal_width', 'petal_length', 'petal_width'];
  const build = (algo: string, params: Record<string, string>) => linearFamily[algo].build(summary, specOf(summary, algo, inputs, 'sepal_length', params));

  it('a large penalty zeroes every coefficient: the model predicts the target mean', () => {
    const model = build('lasso', { lambda: '100' });
    expect(model.extra()).toMatchObject({ coef_sepal_width: '0', coef_petal_length: '0', coef_petal_width: '0' });
    expect(Number(model.predict({ names: inputs, rows: [['1', '2', '3']] })[0].res)).toBeCloseTo(summary.mean('sepal_length'), 12);
  });

  it('elasticnet with eta = 1 is lasso', () => {
    const a = build('lasso', { lambda: '0.02' });
    const b = build('elasticnet', { lambda: '0.02', eta: '1' });
    for (const name of ['const', ...inputs]) expect(b.extra()[`coef_${name}`]).toBe(a.extra()[`coef_${name}`]);
  });

  it('elasticnet with eta = 0 converges to ridge with lambda × n (scikit-learn Ridge, ridge.test.ts)', () => {
    const n = summary.count('sepal_length');
    const enet = build('elasticnet', { lambda: '0.05', eta: '0' });
    const ridge = build('ridge', { lambda: String(0.05 * n) });
    // The lasso dual gap is degenerate without an L1 term: this fit ran all 100 000 sweeps.
    expect(enet.info().converged).toBe('true');
    expect(Number(enet.info().iterations)).toBeLessThan(1000);
    for (const name of ['const', ...inputs]) expectClose(Number(enet.extra()[`coef_${name}`]), Number(ridge.extra()[`coef_${name}`]), 1e-9);
  });

  it('a constant target is fitted at once: every coefficient 0, converged', () => {
    const s = summaryOf({ names: ['x', 'y'], types: ['C', 'C'], rows: [['1', '2'], ['2', '2'], ['4', '2']] });
    const model = linearFamily.lasso.build(s, specOf(s, 'lasso', ['x'], 'y', {}));
    expect(model.info()).toMatchObject({ iterations: '1', converged: 'true' });
    expect(model.extra()).toEqual({ coef_const: '2', coef_x: '0' });
  });

  it('by default the fit runs to the optimum: duality gap ≤ 1e-12·var(y), far below where scikit-learn\'s tol 1e-4 stops', () => {
    const tight = build('lasso', { lambda: '0.01' });
    const loose = build('lasso', { lambda: '0.01', tol: '1e-4', max_iter: '1000' });
    const variance = summary.variance('sepal_length');
    expect(Number(tight.info().dual_gap)).toBeLessThanOrEqual(1e-12 * variance);
    expect(Number(loose.info().dual_gap)).toBeGreaterThan(1e-12 * variance);
    expect(Number(tight.info().iterations)).toBeGreaterThan(Number(loose.info().iterations));
  });

  it('max_iter running out is reported as not converged', () => {
    const model = build('lasso', { lambda: '0.001', max_iter: '2' });
    expect(model.info()).toMatchObject({ iterations: '2', converged: 'false' });
  });

  it.each([
    ['lasso', { lambda: '0' }, /lasso: parameter lambda must be a number > 0, got "0"/],
    ['elasticnet', { eta: '1.5' }, /elasticnet: parameter eta must be a number in \[0, 1\], got "1.5"/],
    ['lasso', { max_iter: '10.5' }, /lasso: parameter max_iter must be an integer ≥ 1, got "10.5"/],
    ['elasticnet', { tol: '-1e-4' }, /elasticnet: parameter tol must be a number > 0, got "-1e-4"/],
  ])('%s refuses %j naming the parameter', (algo, params, message) => {
    expect(() => build(algo, params)).toThrow(ModelInputError);
    expect(() => build(algo, params)).toThrow(message);
  });
});

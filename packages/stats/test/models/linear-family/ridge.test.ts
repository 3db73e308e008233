// Reference: scikit-learn Ridge(alpha=λ) for ridge and lsvr, RidgeClassifier(alpha=ν) for
// lsvm (fixtures/gen_linear_family.py). Closed forms: 1e-9 relative.
import { ModelInputError } from '@sml/stats';
import { expectClose } from '../../helpers';
import { linearFamily } from '../../../src/models/linear-family';
import { DATASETS, expectReference, frameOf, referenceCases, specOf, summaryOf } from './fixture';

describe.each(['ridge', 'lsvr'])('%s equals scikit-learn Ridge', (algo) => {
  it.each(referenceCases(algo).map((c) => [c.name, c] as const))('%s', (_, c) => {
    const summary = summaryOf(DATASETS[c.data]);
    expectReference(linearFamily[algo].build(summary, specOf(summary, algo, c.inputs, c.target, c.params)), c, 1e-9);
  });
});

describe('lsvm equals scikit-learn RidgeClassifier', () => {
  it.each(referenceCases('lsvm').map((c) => [c.name, c] as const))('%s: coefficients, decision values and labels', (_, c) => {
    const summary = summaryOf(DATASETS[c.data]);
    const model = linearFamily.lsvm.build(summary, specOf(summary, 'lsvm', c.inputs, c.target, c.params));
    const extra = model.extra();
    for (const [term, want] of Object.entries(c.coef)) expectClose(Number(extra[`coef_${term}`]), want, 1e-9, 1, `coef_${term}`);
    const predictions = model.predict(frameOf(c.inputs, c.predict_rows));
    predictions.forEach((p, i) => {
      expectClose(Number(p.score), c.scores![i], 1e-9, 1, `score ${i}`);
      expect(p.res).toBe(String(c.predictions[i]));
    });
  });
});

describe('ridge parameters', () => {
  const summary = summaryOf(DATASETS.iris);
  const inputs = ['sepal_width', 'petal_length', 'petal_width'];

  it('lambda and its alias alpha give the same model; both with different values are refused', () => {
    const a = linearFamily.ridge.build(summary, specOf(summary, 'ridge', inputs, 'sepal_length', { lambda: '3' }));
    const b = linearFamily.ridge.build(summary, specOf(summary, 'ridge', inputs, 'sepal_length', { alpha: '3', lambda: '3.0' }));
    expect(b.extra()).toEqual(a.extra());
    expect(() => linearFamily.ridge.build(summary, specOf(summary, 'ridge', inputs, 'sepal_length', { lambda: '3', alpha: '2' }))).toThrow(/alpha is an alias of lambda/);
  });

  it.each([
    ['ridge', { lambda: '-1' }, /ridge: parameter lambda must be a number ≥ 0, got "-1"/],
    ['ridge', { alpha: 'abc' }, /ridge: parameter alpha must be a number ≥ 0, got "abc"/],
    ['lsvr', { sml_model_svm_nu: '' }, /lsvr: parameter sml_model_svm_nu must be a number ≥ 0, got ""/],
  ])('%s refuses %j naming the parameter', (algo, params, message) => {
    expect(() => linearFamily[algo].build(summary, specOf(summary, algo, inputs, 'sepal_length', params))).toThrow(ModelInputError);
    expect(() => linearFamily[algo].build(summary, specOf(summary, algo, inputs, 'sepal_length', params))).toThrow(message);
  });

  it('modelInfo reports n, the penalty and the training r2', () => {
    const model = linearFamily.ridge.build(summary, specOf(summary, 'ridge', inputs, 'sepal_length', {}));
    expect(model.info()).toMatchObject({ n: '150', lambda: '1' });
    expect(Number(model.info().r2)).toBeGreaterThan(0.85);
    expect(Number(model.info().r2)).toBeLessThan(0.8592166649106591); // below OLS (mlr)
  });
});

describe('lsvm target', () => {
  const summary = summaryOf(DATASETS.iris);
  const inputs = ['sepal_length', 'sepal_width'];

  it('refuses a target that is not 0/1, naming it', () => {
    expect(() => linearFamily.lsvm.build(summary, specOf(summary, 'lsvm', inputs, 'petal_width'))).toThrow(/lsvm needs a binary 0\/1 target; \[petal_width\] has other values/);
  });

  it('refuses a target with one class', () => {
    const s = summaryOf({ names: ['x', 'y'], types: ['C', 'B'], rows: [['1', '1'], ['2', '1'], ['4', '1']] });
    expect(() => linearFamily.lsvm.build(s, specOf(s, 'lsvm', ['x'], 'y'))).toThrow(/lsvm needs both classes in the target; \[y\] is 1 in every row \(3\)/);
  });
});

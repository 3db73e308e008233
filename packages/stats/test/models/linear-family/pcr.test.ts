// Reference: scikit-learn make_pipeline(StandardScaler(), PCA(n_components=q or 0.95),
// LinearRegression()) (fixtures/gen_linear_family.py). Closed form: 1e-9 relative.
import { ModelInputError } from '@sml/stats';
import { expectClose } from '../../helpers';
import { linearFamily } from '../../../src/models/linear-family';
import { DATASETS, expectReference, referenceCases, specOf, summaryOf } from './fixture';

describe('pcr equals scikit-learn StandardScaler + PCA + LinearRegression', () => {
  it.each(referenceCases('pcr').map((c) => [c.name, c] as const))('%s', (_, c) => {
    const summary = summaryOf(DATASETS[c.data]);
    const model = linearFamily.pcr.build(summary, specOf(summary, 'pcr', c.inputs, c.target, c.params));
    expectReference(model, c, 1e-9);
    expect(model.info().q).toBe(String(c.components));
    c.explained_variance_ratio!.forEach((v, k) => expectClose(Number(model.extra()[`explained_variance_ratio_${k + 1}`]), v, 1e-9, 1e-12, `ratio ${k + 1}`));
  });

  it('refuses q outside [1, p] and a constant input, naming them', () => {
    const summary = summaryOf(DATASETS.iris);
    const build = (inputs: string[], params: Record<string, string>) => linearFamily.pcr.build(summary, specOf(summary, 'pcr', inputs, 'sepal_length', params));
    expect(() => build(['sepal_width', 'petal_length'], { q: '3' })).toThrow(/pcr: parameter q must be an integer in \[1, 2\], got "3"/);
    const constant = summaryOf({ names: ['x', 'k', 'y'], types: ['C', 'C', 'C'], rows: Array.from({ length: 10 }, (_, i) => [String(i), '0.3', String(2 * i + (i % 3))]) });
    expect(() => linearFamily.pcr.build(constant, specOf(constant, 'pcr', ['x', 'k'], 'y'))).toThrow(ModelInputError);
    expect(() => linearFamily.pcr.build(constant, specOf(constant, 'pcr', ['x', 'k'], 'y'))).toThrow(/pcr standardizes its inputs; zero variance in \[k\]/);
  });
});

import { Summary } from '@sml/stats';
import { bayes } from '../../../src/models/classifiers';
import { build, close, conformance, learnAll } from './conformance';
import { fixture, learnFrame, predictFrame } from './fixture';

// Reference: sklearn GaussianNB (C inputs; var_smoothing 1e-9) and, for mixed inputs,
// GaussianNB on the C inputs + BernoulliNB(alpha = laplace_factor) on the B inputs
// (fixtures/gen_classifiers.py). Prob = P(class 1 | x); closed form: 1e-9 relative
// (absolute 1e-15 for probabilities near 0).

describe('bayes (sklearn GaussianNB / BernoulliNB)', () => {
  for (const c of fixture.bayes) {
    it(`${c.dataset}: ${c.target} ~ ${c.inputs.join(' + ')} (laplace_factor ${c.laplace_factor}) has sklearn's probabilities and labels`, () => {
      const model = build({ algorithm: bayes, inputs: c.inputs, targets: [c.target], params: { laplace_factor: String(c.laplace_factor) } }, learnAll(learnFrame(c.dataset)));
      close(Number(model.info().epsilon), c.epsilon, 1e-9, 0, 'epsilon');
      model.predict(predictFrame(c.dataset)).forEach((p, r) => {
        close(Number(p.Prob), c.prob[r], 1e-9, 1e-6, `row ${r} Prob`);
        expect(p.res).toBe(String(c.labels[r]));
      });
    });
  }

  it('each input learns from the rows where it is present: a missing cell elsewhere changes nothing', () => {
    const rows = [['1.5', '1', '0'], ['2.5', '0', '1'], ['0.5', '1', '0'], ['3.0', '1', '1'], ['2.0', '0', '1']];
    const full = learnAll({ attributeNames: ['x', 'b', 'y'], attributeTypes: ['C', 'B', 'B'], data: rows });
    const gap = learnAll({ attributeNames: ['x', 'b', 'y'], attributeTypes: ['C', 'B', 'B'], data: [...rows, ['NA', '1', '1']] });
    const xOnly = (s: Summary) => bayes.build(s, { algo: 'bayes', inputs: [0], targets: [2], params: {} }).extra();
    const a = xOnly(full);
    const b = xOnly(gap);
    expect([b.mean0_x, b.var0_x, b.mean1_x, b.var1_x]).toEqual([a.mean0_x, a.var0_x, a.mean1_x, a.var1_x]);
  });

  it('refuses bad parameters, naming them', () => {
    const s = learnAll(learnFrame('iris'));
    const spec = (params: Record<string, string>) => ({ algo: 'bayes', inputs: [0, 4], targets: [13], params });
    expect(() => bayes.build(s, spec({ laplace_factor: '0' }))).toThrow('parameter [laplace_factor] must be a number > 0, got "0"');
    expect(() => bayes.build(s, spec({ var_smoothing: 'x' }))).toThrow(/parameter \[var_smoothing\]/);
    expect(() => bayes.build(s, { algo: 'bayes', inputs: [0], targets: [1], params: {} })).toThrow(/binary target.*\[sepal_width\] is continuous/);
  });
});

const mixed = fixture.bayes[2];
conformance({
  name: 'bayes',
  algorithm: bayes,
  learn: learnFrame('gauss'),
  inputs: mixed.inputs,
  targets: [mixed.target],
  predict: predictFrame('gauss'),
  keys: ['res', 'Prob'],
});

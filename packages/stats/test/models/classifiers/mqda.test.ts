import { ModelInputError, Summary } from '@sml/stats';
import { mqda } from '../../../src/models/classifiers';
import { build, close, conformance, learnAll } from './conformance';
import { fixture, learnFrame, predictFrame } from './fixture';

// Reference: sklearn QuadraticDiscriminantAnalysis(reg_param=0) `_decision_function`
// (per-class scores) and predict, on Iris (partition by species) and generated data
// (partition by grp), fixtures/gen_classifiers.py. Closed form: 1e-9 relative.

describe('mqda (sklearn QuadraticDiscriminantAnalysis)', () => {
  for (const c of fixture.mqda) {
    it(`${c.dataset}: classes of [${c.column}] on ${c.inputs.join(', ')} have sklearn's scores and labels`, () => {
      const model = build({ algorithm: mqda, inputs: c.inputs, targets: [] }, learnAll(learnFrame(c.dataset), { partitionSplit: c.column }));
      expect(model.targetNames).toEqual([c.column]);
      model.predict(predictFrame(c.dataset)).forEach((p, r) => {
        c.classes.forEach((k, j) => close(Number(p[k]), c.scores[r][j], 1e-9, 1, `row ${r} class ${k}`));
        expect(p.res).toBe(c.labels[r]);
      });
    });
  }

  it('counts a quadratic form per class and row in its predict steps (SML_MAX_PREDICT_STEPS)', () => {
    const c = fixture.mqda[0];
    const model = build({ algorithm: mqda, inputs: c.inputs, targets: [] }, learnAll(learnFrame(c.dataset), { partitionSplit: c.column }));
    expect(model.predictionSteps!(7)).toBe(7 * c.classes.length * c.inputs.length ** 2);
  });

  it('needs a partition project', () => {
    const s = learnAll(learnFrame('iris'));
    expect(() => mqda.build(s, { algo: 'mqda', inputs: [0, 1], targets: [], params: {} })).toThrow(new ModelInputError('mqda needs a partition project'));
  });

  it('a singular class covariance is refused naming the class and the attributes', () => {
    const s = new Summary({ partitionSplit: 'g' });
    const rows = Array.from({ length: 30 }, (_, i) => [String(i % 4), String(i % 3), String((i % 4) + 2 * (i % 3)), i < 15 ? 'u' : 'v']);
    s.learn({ attributeNames: ['a', 'b', 'c', 'g'], attributeTypes: ['C', 'C', 'C', 'T'], data: rows });
    expect(() => mqda.build(s, { algo: 'mqda', inputs: [0, 1, 2], targets: [], params: {} })).toThrow(/mqda: class \[u\]: .*collinear attributes \[a, b, c\]/);
  });
});

conformance({
  name: 'mqda',
  algorithm: mqda,
  options: { partitionSplit: 'grp' },
  learn: learnFrame('gauss'),
  inputs: fixture.mqda[1].inputs,
  targets: [],
  predict: predictFrame('gauss'),
  keys: ['res', 'alpha', 'beta', 'gamma'],
});

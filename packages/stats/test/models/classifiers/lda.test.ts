import { ModelInputError, Summary } from '@sml/stats';
import { lda, mlda } from '../../../src/models/classifiers';
import { build, close, conformance, learnAll } from './conformance';
import { fixture, learnFrame, predictFrame } from './fixture';

// Reference: sklearn LinearDiscriminantAnalysis (solver='lsqr'; 'svd' predicts the same),
// priors from class frequencies, on Iris and generated data (fixtures/gen_classifiers.py).
// resZ − z0 is sklearn's decision_function; closed form, so 1e-9 relative.

describe('lda (sklearn LinearDiscriminantAnalysis)', () => {
  for (const c of fixture.lda) {
    it(`${c.dataset}: ${c.target} ~ ${c.inputs.join(' + ')} has sklearn's decision function and labels`, () => {
      const model = build({ algorithm: lda, inputs: c.inputs, targets: [c.target] }, learnAll(learnFrame(c.dataset)));
      const predictions = model.predict(predictFrame(c.dataset));
      predictions.forEach((p, r) => {
        close(Number(p.resZ) - Number(p.z0), c.decision[r], 1e-9, 1, `row ${r} decision`);
        expect(p.res).toBe(String(c.labels[r]));
      });
    });
  }

  it('normZ is the decision in units of the Mahalanobis distance between the class means', () => {
    const c = fixture.lda[0];
    const model = build({ algorithm: lda, inputs: c.inputs, targets: [c.target] }, learnAll(learnFrame(c.dataset)));
    const d = Number(model.info().mahalanobis);
    for (const p of model.predict(predictFrame(c.dataset)).slice(0, 10)) close(Number(p.normZ) * d, Number(p.resZ) - Number(p.z0), 1e-12);
  });

  it('refuses a continuous target, a one-class target and a target among the inputs, naming them', () => {
    const s = learnAll(learnFrame('iris'));
    const spec = (targets: number[], inputs = [0, 1]) => ({ algo: 'lda', inputs, targets, params: {} });
    expect(() => lda.build(s, spec([2]))).toThrow(/binary target.*\[petal_length\] is continuous/);
    expect(() => lda.build(s, spec([12], [12, 1]))).toThrow(/target \[Iris_setosa\] cannot also be an input/);
    const one = new Summary();
    one.learn({ attributeNames: ['x', 'y'], attributeTypes: ['C', 'B'], data: [['1', '0'], ['2', '0'], ['3', '0']] });
    expect(() => lda.build(one, { algo: 'lda', inputs: [0], targets: [1], params: {} })).toThrow(ModelInputError);
    expect(() => lda.build(one, { algo: 'lda', inputs: [0], targets: [1], params: {} })).toThrow(/both classes of \[y\]: 3 rows with 0, 0 with 1/);
    expect(() => lda.build(s, spec([]))).toThrow(/exactly one binary target/);
  });

  it('a collinear input set is refused naming the attributes, unless matrix_use_pseudoinv=true', () => {
    const s = new Summary();
    s.learn({ attributeNames: ['a', 'b', 'c', 'y'], attributeTypes: ['C', 'C', 'C', 'B'], data: Array.from({ length: 40 }, (_, i) => [i % 7, i % 5, (i % 7) + (i % 5), i % 2].map(String)) });
    const spec = { algo: 'lda', inputs: [0, 1, 2], targets: [3], params: {} };
    expect(() => lda.build(s, spec)).toThrow(/collinear attributes \[a, b, c\]/);
    expect(lda.build(s, { ...spec, params: { matrix_use_pseudoinv: 'true' } }).predict({ names: ['a', 'b', 'c'], rows: [['1', '2', '3']] })[0].res).toMatch(/^[01]$/);
  });
});

describe('mlda (sklearn LinearDiscriminantAnalysis, several classes)', () => {
  for (const c of fixture.mlda) {
    it(`${c.dataset}: one-hot classes ${c.targets.join(', ')} have sklearn's scores and labels`, () => {
      const model = build({ algorithm: mlda, inputs: c.inputs, targets: c.targets }, learnAll(learnFrame(c.dataset)));
      model.predict(predictFrame(c.dataset)).forEach((p, r) => {
        c.classes.forEach((k, j) => close(Number(p[k]), c.scores[r][j], 1e-9, 1, `row ${r} class ${k}`));
        expect(p.res).toBe(c.labels[r]);
      });
    });

    it(`${c.dataset}: the partition column's values as classes give the same scores`, () => {
      const column = c.dataset === 'iris' ? 'species' : 'grp';
      const model = build({ algorithm: mlda, inputs: c.inputs, targets: [] }, learnAll(learnFrame(c.dataset), { partitionSplit: column }));
      expect(model.targetNames).toEqual([column]);
      model.predict(predictFrame(c.dataset)).forEach((p, r) => {
        c.partition_classes.forEach((k, j) => close(Number(p[k]), c.scores[r][j], 1e-9, 1, `row ${r} class ${k}`));
        expect(p.res).toBe(c.partition_classes[c.classes.indexOf(c.labels[r])]);
      });
    });
  }

  it('refuses class attributes that are not one-hot, naming them', () => {
    const s = learnAll(learnFrame('iris'));
    const spec = (targets: string[]) => ({ algo: 'mlda', inputs: [0, 1], targets: targets.map((t) => s.indexOf(t)), params: {} });
    expect(() => mlda.build(s, spec(['Iris_setosa', 'Iris_versicolor']))).toThrow(/50 of 150 rows are in no class/);
    expect(() => mlda.build(s, spec(['Iris_setosa', 'Iris_versicolor', 'Iris_virginica', 'petal_width_b1']))).toThrow(/\[Iris_setosa\] and \[petal_width_b1\] are both 1 on 50 rows/);
    expect(() => mlda.build(s, spec(['Iris_setosa']))).toThrow(/at least two class attributes/);
    expect(() => mlda.build(s, { algo: 'mlda', inputs: [0, 1], targets: [], params: {} })).toThrow('mlda needs a partition project');
  });
});

const iris = fixture.lda[0];
conformance({
  name: 'lda',
  algorithm: lda,
  learn: learnFrame('iris'),
  inputs: iris.inputs,
  targets: [iris.target],
  predict: predictFrame('iris'),
  keys: ['res', 'resZ', 'z0', 'normZ'],
});
conformance({
  name: 'mlda (one-hot targets)',
  algorithm: mlda,
  learn: learnFrame('gauss'),
  inputs: fixture.mlda[1].inputs,
  targets: ['grp'],
  predict: predictFrame('gauss'),
  keys: ['res', 'grp$alpha', 'grp$beta', 'grp$gamma'],
});
conformance({
  name: 'mlda (partition)',
  algorithm: mlda,
  options: { partitionSplit: 'species' },
  learn: learnFrame('iris'),
  inputs: fixture.mlda[0].inputs,
  targets: [],
  predict: predictFrame('iris'),
  keys: ['res', 'setosa', 'versicolor', 'virginica'],
});

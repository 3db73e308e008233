import { oospca, repca } from '../../../src/models/anomaly';
import { oversampledScore } from '../../../src/models/anomaly/oospca';
import { build, close, conformance, learnAll } from '../classifiers/conformance';
import { fixture, learnFrame, predictFrame } from './fixture';

// Reference: numpy (fixtures/gen_anomaly.py). repca: standardization, eigh of the
// correlation matrix, squared reconstruction error, Box's g·χ²_h limit (scipy chi2.ppf);
// oospca: eigh of the covariance of the learned rows with the scored row appended n·r
// times. Closed forms: 1e-9 relative; oospca scores (1 − |cos|, often ~1e-5) also 1e-12
// absolute, the precision of numpy's eigenvectors.

describe('repca (numpy PCA reconstruction error)', () => {
  for (const c of fixture.repca) {
    it(`${c.dataset}: ${c.inputs.join(', ')} with q = ${c.q ?? 'default'} has numpy's scores and threshold`, () => {
      const params: Record<string, string> = c.q === null ? {} : { q: String(c.q) };
      const model = build({ algorithm: repca, inputs: c.inputs, targets: [], params }, learnAll(learnFrame(c.dataset)));
      expect(Number(model.info().q)).toBe(c.q_used);
      close(Number(model.info().threshold), c.threshold, 1e-9, 1, 'threshold');
      model.predict(predictFrame(c.dataset)).forEach((p, r) => {
        close(Number(p.score), c.score[r], 1e-9, 1, `row ${r} score`);
        expect(p.res).toBe(String(c.labels[r]));
      });
    });

    it(`${c.dataset} q = ${c.q ?? 'default'}: the learned rows' mean score is the sum of the discarded eigenvalues`, () => {
      close(c.train_mean, c.discarded, 1e-12);
    });
  }

  it('counts 2·p·q steps a row, projection and reconstruction (SML_MAX_PREDICT_STEPS)', () => {
    const c = fixture.repca[0];
    const model = build({ algorithm: repca, inputs: c.inputs, targets: [], params: c.q === null ? {} : { q: String(c.q) } }, learnAll(learnFrame(c.dataset)));
    expect(model.predictionSteps!(7)).toBe(7 * 2 * c.inputs.length * c.q_used);
  });

  it('refuses a q that leaves no residual space and a constant input, naming them', () => {
    const s = learnAll(learnFrame('iris'));
    expect(() => repca.build(s, { algo: 'repca', inputs: [0, 1, 2, 3], targets: [], params: { q: '4' } })).toThrow('parameter [q] must be an integer in [1, 3] (fewer than the 4 inputs), got "4"');
    const constant = learnAll({ attributeNames: ['a', 'k'], attributeTypes: ['C', 'C'], data: [['1', '2'], ['2', '2'], ['4', '2']] });
    expect(() => repca.build(constant, { algo: 'repca', inputs: [0, 1], targets: [], params: {} })).toThrow('repca: [k] has zero variance and cannot be standardized');
    expect(() => repca.build(s, { algo: 'repca', inputs: [0], targets: [], params: {} })).toThrow(/at least 2 input attributes/);
  });
});

describe('oospca (numpy, literal over-sampling)', () => {
  for (const c of fixture.oospca) {
    it(`${c.dataset}: oospca_ratio ${c.ratio} has the scores of the over-sampled covariance`, () => {
      const model = build({ algorithm: oospca, inputs: c.inputs, targets: [], params: { oospca_ratio: String(c.ratio) } }, learnAll(learnFrame(c.dataset)));
      close(Number(model.info().threshold), c.threshold, 1e-9, 0, 'threshold');
      model.predict(predictFrame(c.dataset)).forEach((p, r) => {
        expect(Math.abs(Number(p.score) - c.score[r])).toBeLessThanOrEqual(1e-9 * c.score[r] + 1e-12);
        expect(p.res).toBe(String(c.labels[r]));
      });
    });
  }

  it('the secular equation handles a row orthogonal to the leading direction', () => {
    // diag(3, 1) + ρ·zzᵀ with z = (0, 2): the second direction rises to 1 + 4ρ.
    expect(oversampledScore([3, 1], [0, 2], 0.1)).toBe(0);
    expect(oversampledScore([3, 1], [0, 2], 0.6)).toBe(1);
    expect(oversampledScore([3, 1], [0, 0], 0.1)).toBe(0);
    // 2×2 closed form: the leading eigenvector of [[3 + ρ, 2ρ], [2ρ, 1 + 4ρ]] for z = (1, 2).
    const rho = 0.1;
    const [a, b, d] = [3 + rho, 2 * rho, 1 + 4 * rho];
    const lambda = (a + d) / 2 + Math.sqrt(((a - d) / 2) ** 2 + b * b);
    const v = [b, lambda - a];
    close(oversampledScore([3, 1], [1, 2], rho), 1 - Math.abs(v[0]) / Math.hypot(v[0], v[1]), 1e-12, 0);
  });

  it('counts p² steps a row and p per Newton step of the secular equation, at most 500 (SML_MAX_PREDICT_STEPS)', () => {
    const c = fixture.oospca[0];
    const model = build({ algorithm: oospca, inputs: c.inputs, targets: [], params: { oospca_ratio: String(c.ratio) } }, learnAll(learnFrame(c.dataset)));
    const p = c.inputs.length;
    expect(model.predictionSteps!(7)).toBe(7 * (p * p + 500 * p));
  });

  it('refuses a tied leading eigenvalue and a bad ratio', () => {
    const tied = learnAll({ attributeNames: ['a', 'b'], attributeTypes: ['C', 'C'], data: [['1', '0'], ['-1', '0'], ['0', '1'], ['0', '-1']] });
    expect(() => oospca.build(tied, { algo: 'oospca', inputs: [0, 1], targets: [], params: {} })).toThrow(/oospca: the largest eigenvalue of the covariance of \[a, b\] is not simple/);
    const s = learnAll(learnFrame('iris'));
    expect(() => oospca.build(s, { algo: 'oospca', inputs: [0, 1], targets: [], params: { oospca_ratio: '0' } })).toThrow('parameter [oospca_ratio] must be a number > 0, got "0"');
  });
});

conformance({
  name: 'repca',
  algorithm: repca,
  learn: learnFrame('mix'),
  inputs: ['x1', 'x2', 'x3', 'x4', 'b1'],
  targets: [],
  predict: predictFrame('mix'),
  keys: ['res', 'score'],
});
conformance({
  name: 'oospca',
  algorithm: oospca,
  learn: learnFrame('iris'),
  inputs: fixture.oospca[0].inputs,
  targets: [],
  predict: predictFrame('iris'),
  keys: ['res', 'score'],
});

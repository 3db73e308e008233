import { anomalyDetectors, covest } from '../../../src/models/anomaly';
import { build, close, conformance, learnAll } from '../classifiers/conformance';
import { fixture, learnFrame, predictFrame } from './fixture';

// Reference: sklearn EmpiricalCovariance, LedoitWolf, OAS, ShrunkCovariance
// (assume_centered=False), `mahalanobis` (squared distances), scipy chi2.ppf
// (fixtures/gen_anomaly.py). Closed forms: 1e-9 relative. Ledoit-Wolf's shrinkage needs the
// co-skewness sums Σx_i²x_j the summary does not keep: it equals the fixture's `lw_summary`
// (those terms set to 0) at 1e-9, and sklearn's only on centred data.

describe('covest (sklearn covariance estimators)', () => {
  for (const c of fixture.covest) {
    const exact = c.estimate_type !== 'ledoit_wolf' || c.dataset === 'centred';
    it(`${c.dataset}: ${c.estimate_type} ${exact ? 'equals sklearn' : 'uses the zero co-skewness shrinkage'}`, () => {
      const model = build({ algorithm: covest, inputs: c.inputs, targets: [], params: { estimate_type: c.estimate_type } }, learnAll(learnFrame(c.dataset)));
      const shrinkage = Number(model.info().shrinkage);
      close(shrinkage, c.estimate_type === 'ledoit_wolf' ? c.lw_summary : c.shrinkage, 1e-9, 1e-3, 'shrinkage');
      close(Number(model.info().threshold), c.threshold, 1e-10, 1, 'threshold');
      const predictions = model.predict(predictFrame(c.dataset));
      if (exact) {
        JSON.parse(model.extra().covariance).forEach((row: number[], i: number) => row.forEach((v, j) => close(v, c.covariance[i][j], 1e-9, 1e-3, `covariance ${i},${j}`)));
        predictions.forEach((p, r) => {
          close(Number(p.score), c.score[r], 1e-9, 1, `row ${r} score`);
          expect(p.res).toBe(String(c.labels[r]));
        });
      } else {
        // A different shrinkage moves distances by a fraction of the shrinkage difference.
        predictions.forEach((p, r) => close(Number(p.score), c.score[r], 0.05, 1, `row ${r} score`));
        const agree = predictions.filter((p, r) => p.res === String(c.labels[r])).length;
        expect(agree / predictions.length).toBeGreaterThanOrEqual(0.98);
      }
    });
  }

  it('ledoit_wolf is the default estimate and 0.975 the default quantile', () => {
    const model = build({ algorithm: covest, inputs: fixture.covest[0].inputs, targets: [] }, learnAll(learnFrame('iris')));
    expect(model.info().estimate_type).toBe('ledoit_wolf');
    expect(model.info().covest_quantile).toBe('0.975');
    expect(anomalyDetectors.covest).toBe(covest);
  });

  it('counts p² steps a row, its quadratic form (SML_MAX_PREDICT_STEPS)', () => {
    const inputs = fixture.covest[0].inputs;
    const model = build({ algorithm: covest, inputs, targets: [] }, learnAll(learnFrame('iris')));
    expect(model.predictionSteps!(7)).toBe(7 * inputs.length ** 2);
  });

  it('refuses bad parameters, naming them', () => {
    const s = learnAll(learnFrame('iris'));
    const spec = (params: Record<string, string>) => ({ algo: 'covest', inputs: [0, 1], targets: [], params });
    expect(() => covest.build(s, spec({ estimate_type: 'mcd' }))).toThrow('parameter [estimate_type] must be one of empirical, ledoit_wolf, oas, shrunk, got "mcd"');
    expect(() => covest.build(s, spec({ estimate_type: 'shrunk', alpha: '1.5' }))).toThrow(/parameter \[alpha\] must be a number in \[0, 1\]/);
    expect(() => covest.build(s, spec({ covest_quantile: '1' }))).toThrow(/parameter \[covest_quantile\] must be a number in \(0, 1\)/);
    expect(() => covest.build(s, { algo: 'covest', inputs: [], targets: [], params: {} })).toThrow(/covest needs at least 1 input attribute/);
  });
});

conformance({
  name: 'covest',
  algorithm: covest,
  learn: learnFrame('mix'),
  inputs: ['x1', 'x2', 'x3', 'x4'],
  targets: [],
  predict: predictFrame('mix'),
  keys: ['res', 'score'],
});

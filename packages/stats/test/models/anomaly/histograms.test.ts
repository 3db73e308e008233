import { ecod, hba } from '../../../src/models/anomaly';
import { build, close, conformance, learnAll } from '../classifiers/conformance';
import { fixture, learnFrame, predictFrame } from './fixture';

// Reference (formula tests, fixtures/gen_anomaly.py): transcriptions of pyod's HBOS (static
// bins: numpy.histogram density, digitize right=True, log2(density + alpha), tol) and of
// pyod's ECOD decision_function called with one row at a time; thresholds = mean + 3 sd of
// the learned rows' scores with the per-input variances added. Learned with exact
// histograms, the summary reproduces them to 1e-9 relative.

describe('hba (pyod HBOS)', () => {
  for (const c of fixture.hba) {
    it(`${c.dataset}: ${c.bins} bins, alpha ${c.alpha}, tol ${c.tol} give pyod's scores`, () => {
      const params = { hba_bins: String(c.bins), hba_alpha: String(c.alpha), hba_tol: String(c.tol) };
      const model = build({ algorithm: hba, inputs: c.inputs, targets: [], params }, learnAll(learnFrame(c.dataset), { histogram: 'exact' }));
      close(Number(model.info().threshold), c.threshold, 1e-9, 1, 'threshold');
      model.predict(predictFrame(c.dataset)).forEach((p, r) => {
        close(Number(p.score), c.score[r], 1e-9, 1, `row ${r} score`);
        expect(p.res).toBe(String(c.labels[r]));
      });
    });
  }

  it('a value far outside the learned range scores the input\'s smallest log-density', () => {
    const model = build({ algorithm: hba, inputs: ['x1'], targets: [] }, learnAll(learnFrame('mix'), { histogram: 'exact' }));
    const density: number[] = JSON.parse(model.extra().density_x1);
    const far = Number(model.predict({ names: ['x1'], rows: [['1000']] })[0].score);
    close(far, -Math.log2(Math.min(...density) + 0.1), 1e-12);
  });

  it('needs histograms for continuous inputs', () => {
    const s = learnAll(learnFrame('mix'));
    expect(() => hba.build(s, { algo: 'hba', inputs: [0], targets: [], params: {} })).toThrow('hba needs histograms: enable them on the project (no histogram for [x1])');
    expect(hba.build(s, { algo: 'hba', inputs: [4], targets: [], params: {} }).predict({ names: ['b1'], rows: [['1']] })[0].res).toMatch(/^[01]$/);
  });
});

describe('ecod (pyod ECOD, one row at a time)', () => {
  for (const c of fixture.ecod) {
    it(`${c.dataset}: ${c.inputs.join(', ')} give pyod's scores`, () => {
      const model = build({ algorithm: ecod, inputs: c.inputs, targets: [] }, learnAll(learnFrame(c.dataset), { histogram: 'exact' }));
      close(Number(model.info().threshold), c.threshold, 1e-9, 1, 'threshold');
      model.predict(predictFrame(c.dataset)).forEach((p, r) => {
        close(Number(p.ecodscore), c.score[r], 1e-9, 1, `row ${r} ecodscore`);
        expect(p.res).toBe(String(c.labels[r]));
      });
    });
  }

  it('needs histograms for continuous inputs', () => {
    expect(() => ecod.build(learnAll(learnFrame('mix')), { algo: 'ecod', inputs: [2], targets: [], params: {} })).toThrow('ecod needs histograms: enable them on the project (no histogram for [x3])');
  });
});

describe('streaming histograms approximate the exact ones', () => {
  // A streaming histogram places a bin's values at its midpoint (hba) or spreads them evenly
  // over the bin (ecod's ECDF): a score moves by at most a bin's share, labels rarely.
  for (const [algorithm, key] of [[hba, 'score'], [ecod, 'ecodscore']] as const) {
    it(`${algorithm.name}: scores close to the exact-histogram scores, the same labels`, () => {
      const spec = { algorithm, inputs: ['x1', 'x2', 'x3', 'x4', 'b1'], targets: [] };
      const exact = build(spec, learnAll(learnFrame('mix'), { histogram: 'exact' })).predict(predictFrame('mix'));
      const streaming = build(spec, learnAll(learnFrame('mix'), { histogram: 'streaming' })).predict(predictFrame('mix'));
      const diffs = streaming.map((p, r) => Math.abs(Number(p[key]) - Number(exact[r][key])) / Math.max(1, Number(exact[r][key])));
      expect(diffs.reduce((a, b) => a + b, 0) / diffs.length).toBeLessThan(0.05);
      expect(streaming.filter((p, r) => p.res === exact[r].res).length / streaming.length).toBeGreaterThanOrEqual(0.98);
    });
  }
});

conformance({
  name: 'hba',
  algorithm: hba,
  options: { histogram: 'exact' },
  learn: learnFrame('mix'),
  inputs: ['x1', 'x2', 'x3', 'x4', 'b1'],
  targets: [],
  predict: predictFrame('mix'),
  keys: ['res', 'score'],
});
conformance({
  name: 'ecod',
  algorithm: ecod,
  options: { histogram: 'streaming' },
  learn: learnFrame('iris'),
  inputs: fixture.ecod[0].inputs,
  targets: [],
  predict: predictFrame('iris'),
  keys: ['res', 'ecodscore'],
});

/**
 * Bad requests and degenerate data, checked by hand: input the caller must answer with a 400
 * throws ExploreInputError (naming the parameter or attribute at fault); n < 2, zero variance
 * and empty groups give NaN statistics, never a throw.
 */
import type { Summary } from '@sml/stats';
import { EXPLORE_METRICS, explore, ExploreInputError, type ExploreMetric, type MetricMap } from '../../src/explore';
import { frame } from '../helpers';
import { learned } from './fixture';

// x, y continuous; k constant 0.1 (its variance from raw sums is rounding, not spread); one has a single value;
// b, g binary; color categorical.
const rows = Array.from({ length: 30 }, (_, r) => [String((r * 7) % 11), String((r * r) % 13), '0.1', r === 4 ? '2' : '', String(r % 2), String(r % 3 === 0 ? 1 : 0), ['red', 'green', 'blue'][r % 3]]);
const summary: Summary = learned(frame(['x', 'y', 'k', 'one', 'b', 'g', 'color'], ['C', 'C', 'C', 'C', 'B', 'B', 'T'], rows));
const at = (name: string) => summary.indexOf(name);

function run(metric: string, inputs: string[], targets: string[] = [], extra: Record<string, string> = {}, histograms = false): MetricMap[] {
  return explore(summary, metric as ExploreMetric, { inputs: inputs.map(at), targets: targets.map(at), extra }, { histograms });
}

function rejects(message: string, metric: string, inputs: string[], targets: string[] = [], extra: Record<string, string> = {}): void {
  expect(() => run(metric, inputs, targets, extra)).toThrow(new ExploreInputError(message));
}

test('an unknown metric or attribute index is an input error', () => {
  rejects('bad metric:[median]', 'median', ['x']);
  expect(() => explore(summary, 'uni', { inputs: [99], targets: [], extra: {} }, { histograms: false })).toThrow(new ExploreInputError('unknown attribute index [99]'));
  expect(() => explore(summary, 'uni', { inputs: [0], targets: [-1], extra: {} }, { histograms: false })).toThrow(ExploreInputError);
});

test('too few (or too many) attributes is an input error naming the metric and the count', () => {
  rejects('uni needs 1 input attribute, got 0', 'uni', []);
  rejects('bi needs exactly 2 input attributes, got 1', 'bi', ['x']);
  rejects('ztest needs input attributes [c1, c2] or [c, b1, b2], got 1', 'ztest', ['x']);
  rejects('ttest needs input attributes [c1, c2] or [c, b1, b2], got 4', 'ttest', ['x', 'b', 'g', 'y']);
  rejects('ftest needs input attributes [c1, c2] or [c, b1, b2], got 0', 'ftest', []);
  rejects('ztestp needs exactly 2 input attributes, got 1', 'ztestp', ['b']);
  rejects('ttestmu needs exactly 1 input attributes, got 2', 'ttestmu', ['x', 'y'], [], { sml_explore_ttest_known_mu: '1' });
  rejects('anova needs at least 2 input attributes (or 1 input and at least 2 binary targets), got 1', 'anova', ['x']);
  rejects('anova needs at least 2 binary targets, got 1', 'anova', ['x'], ['b']);
  rejects('anova with targets needs exactly 1 input attribute, got 2', 'anova', ['x', 'y'], ['b', 'g']);
  rejects('chi2 needs at least 2 input attributes (rows) and 2 targets (columns), got 0 × 2', 'chi2', [], ['g', 'color$red']);
  rejects('chi2 without targets needs at least 2 categories, got 1', 'chi2', ['color$red']);
  rejects('gain needs at least 1 binary target, got 0', 'gain', ['b']);
  rejects('gain needs at least 1 input attribute, got 0', 'gain', [], ['b']);
});

test('a continuous attribute where a binary one is required is an input error naming it', () => {
  rejects('ztest needs binary attributes, [y] is continuous', 'ztest', ['x', 'b', 'y']);
  rejects('ztestp needs binary attributes, [x] is continuous', 'ztestp', ['x', 'b']);
  rejects('anova needs binary attributes, [y] is continuous', 'anova', ['x'], ['b', 'y']);
  rejects('chi2 needs binary attributes, [x] is continuous', 'chi2', ['b', 'x'], ['g', 'color$red']);
  rejects('chi2 needs binary attributes, [y] is continuous', 'chi2', ['b', 'y']);
  rejects('gain needs binary attributes, [x] is continuous', 'gain', ['b'], ['x']);
});

test('a missing, empty or non-numeric known value is an input error naming its key', () => {
  for (const [metric, key] of [
    ['ztestmu', 'sml_explore_ztest_known_mu'],
    ['ttestmu', 'sml_explore_ttest_known_mu'],
    ['ftestsigma', 'sml_explore_ftest_known_sigma'],
  ]) {
    rejects(`missing extra parameter ${key}`, metric, ['x']);
    rejects(`missing extra parameter ${key}`, metric, ['x'], [], { [`${key}x`]: '1' });
    for (const bad of ['', ' ', 'abc', '1,5', 'NaN', 'Infinity', '0x10']) {
      expect(() => run(metric, ['x'], [], { [key]: bad })).toThrow(new ExploreInputError(`extra parameter ${key} must be a number, not [${bad}]`));
    }
  }
  rejects('extra parameter sml_explore_ftest_known_sigma must be a positive standard deviation, not [0]', 'ftestsigma', ['x'], [], { sml_explore_ftest_known_sigma: '0' });
  rejects('extra parameter sml_explore_ftest_known_sigma must be a positive standard deviation, not [-2]', 'ftestsigma', ['x'], [], { sml_explore_ftest_known_sigma: '-2' });
});

test('expected chi2 proportions must be given for every category, positive and numeric', () => {
  const levels = ['color$blue', 'color$green', 'color$red'];
  rejects('missing extra parameter chi2_expected_color$red', 'chi2', levels, [], { 'chi2_expected_color$blue': '1', 'chi2_expected_color$green': '1' });
  rejects('extra parameter chi2_expected_color$red must be a number, not [lots]', 'chi2', levels, [], { 'chi2_expected_color$blue': '1', 'chi2_expected_color$green': '1', 'chi2_expected_color$red': 'lots' });
  rejects('extra parameter chi2_expected_color$green must be a positive proportion, not [0]', 'chi2', levels, [], { 'chi2_expected_color$blue': '1', 'chi2_expected_color$green': '0', 'chi2_expected_color$red': '1' });
  // Weights are normalized: 1:1:1 is the uniform default.
  expect(run('chi2', levels, [], { 'chi2_expected_color$blue': '2', 'chi2_expected_color$green': '2', 'chi2_expected_color$red': '2' })).toEqual(run('chi2', levels));
});

test('a constant attribute has variance exactly 0 and NaN for every statistic dividing by it', () => {
  const [uni] = run('uni', ['k']);
  expect(uni).toMatchObject({ count: 30, variance: 0, stddev: 0, stderr: 0, meanMarginErrorC95: 0, skewness: NaN, kurtosis: NaN, min: 0.1, max: 0.1 });
  expect(uni.mean).toBeCloseTo(0.1, 15);
  expect(run('bi', ['x', 'k'])[0].linCorr).toBeNaN();
  expect(run('ztest', ['k', 'k'])[0]).toMatchObject({ zs1: 0, zs2: 0, z: NaN, zp: NaN });
  expect(run('ztestmu', ['k'], [], { sml_explore_ztest_known_mu: '0' })[0]).toEqual({ z: NaN, zp: NaN });
  expect(run('ttest', ['k', 'k'])[0]).toMatchObject({ ts1: 0, t: NaN, tp: NaN, tu: NaN, tdfu: NaN, tpu: NaN });
  expect(run('ttestmu', ['k'], [], { sml_explore_ttest_known_mu: '1' })[0]).toEqual({ t: NaN, tdf: 29, tp: NaN });
  expect(run('ftest', ['x', 'k'])[0]).toMatchObject({ fs2: 0, f: NaN, fp: NaN });
  expect(run('anova', ['k', 'k'])[0]).toMatchObject({ SSb: 0, SSw: 0, MSw: 0, F: NaN, P: NaN });
  // Constant within the groups b = 1 and g = 1.
  expect(run('ttest', ['k', 'b', 'g'])[0]).toMatchObject({ t: NaN, tu: NaN });
});

test('a single value (n = 1) gives NaN where n − 1 divides, and no throw anywhere', () => {
  const [uni] = run('uni', ['one']);
  expect(uni).toMatchObject({ count: 1, mean: 2, variance: 0, stddev: 0, skewness: NaN, kurtosis: NaN, meanMarginErrorC95: NaN, min: 2, max: 2 });
  expect(run('ttestmu', ['one'], [], { sml_explore_ttest_known_mu: '1' })[0]).toEqual({ t: NaN, tdf: NaN, tp: NaN });
  expect(run('ttest', ['one', 'x'])[0]).toMatchObject({ tn1: 1, ts1: NaN, t: NaN, tp: NaN, tu: NaN, tpu: NaN });
  expect(run('ftest', ['one', 'x'])[0]).toMatchObject({ fdf1: NaN, f: NaN, fp: NaN });
  expect(run('ftestsigma', ['one'], [], { sml_explore_ftest_known_sigma: '1' })[0]).toEqual({ f: NaN, fdf: NaN, fp: NaN });
  // Every metric on the single-value attribute, with binaries where needed: values or NaN, never a throw.
  const inputs: Record<ExploreMetric, [string[], string[]]> = {
    uni: [['one'], []],
    bi: [['one', 'b'], []],
    gain: [['b'], ['g']],
    anova: [['one'], ['b', 'g']],
    ztest: [['one', 'b', 'g'], []],
    ztestp: [['b', 'g'], []],
    ztestmu: [['one'], []],
    ttest: [['one', 'b', 'g'], []],
    ttestmu: [['one'], []],
    ftest: [['one', 'b', 'g'], []],
    ftestsigma: [['one'], []],
    chi2: [['b', 'g'], ['color$red', 'color$blue']],
  };
  const extra = { sml_explore_ztest_known_mu: '1', sml_explore_ttest_known_mu: '1', sml_explore_ftest_known_sigma: '1' };
  for (const metric of EXPLORE_METRICS) {
    const [ins, targets] = inputs[metric];
    for (const m of run(metric, ins, targets, extra)) for (const v of Object.values(m)) expect(typeof v).toBe('number');
  }
});

test('an empty group (no row with b = 1) gives NaN, not a throw', () => {
  const s = learned(frame(['x', 'b', 'g'], ['C', 'B', 'B'], [['1', '0', '1'], ['2', '0', '1'], ['4', '0', '0']]));
  const groups = { inputs: [0, 1, 2], targets: [], extra: {} };
  expect(explore(s, 'ztest', groups, { histograms: false })[0]).toMatchObject({ zn1: 0, zm1: NaN, z: NaN, zp: NaN });
  expect(explore(s, 'ttest', groups, { histograms: false })[0]).toMatchObject({ tn1: 0, t: NaN, tu: NaN });
  expect(explore(s, 'anova', { inputs: [0], targets: [1, 2], extra: {} }, { histograms: false })[0]).toMatchObject({ SSb: NaN, F: NaN, P: NaN });
  expect(explore(s, 'gain', { inputs: [1], targets: [2], extra: {} }, { histograms: false })[0].b).toBe(0);
});

test('gain groups the levels of a categorical under its name, once, in input order', () => {
  const maps = run('gain', ['color$red', 'b', 'color$blue'], ['g']);
  expect(maps.map((m) => Object.keys(m))).toEqual([['color'], ['b']]);
  // g = 1 exactly in the rows where color = red (r % 3 = 0): X = color determines g.
  const p = 1 / 3;
  expect(maps[0].color).toBeCloseTo(-p * Math.log2(p) - (1 - p) * Math.log2(1 - p), 14);
});

/**
 * Reference: numpy and scipy (fixtures/gen_explore.py, run with Debian's /usr/bin/python3).
 * uni: count, np.mean, np.var (population), skewness = scipy.stats.skew(bias=True)·n²/((n−1)(n−2)),
 * kurtosis = ((n+1)g₂ + 6)(n−1)/((n−2)(n−3)) with g₂ = scipy kurtosis(bias=True) (asserted equal
 * to kurtosis(bias=False)), stderr = √(var/n), meanMarginErrorC95 = scipy t.ppf(0.975, n−1)·stderr,
 * np.min/median/max (exact histograms; without histograms median is NaN).
 * bi: np.cov(ddof=0), np.corrcoef and the sums Σy, Σxy, Σ(xy)² over the co-present rows.
 * Tolerance 1e-9 relative (STATS.md closed forms).
 */
import { approximateKeys, explore } from '../../src/explore';
import { frame } from '../helpers';
import { casesOf, expectMaps, FIXTURES, learned, load, run } from './fixture';

describe.each(FIXTURES)('%s', (name) => {
  const fixture = load(name);
  const plain = learned(fixture.frame);
  const exact = learned(fixture.frame, { histogram: 'exact' });

  test.each(casesOf(fixture, ['uni']))('%s equals numpy and scipy', (_, c) => {
    expectMaps(run(c.histograms ? exact : plain, c), c.expected);
  });

  test.each(casesOf(fixture, ['bi']))('%s equals numpy over the co-present rows', (_, c) => {
    expectMaps(run(plain, c), c.expected);
  });
});

test('uni without histograms reports the extremes ever learned (a forget does not undo them) and no median', () => {
  const all = frame(['x'], ['C'], [['1'], ['4'], ['9'], ['-3']]);
  const s = learned(all, { histogram: 'exact' });
  s.forget(frame(['x'], ['C'], [['9'], ['-3']]));
  const input = { inputs: [0], targets: [], extra: {} };
  const [without] = explore(s, 'uni', input, { histograms: false });
  expect([without.count, without.min, without.median, without.max]).toEqual([2, -3, NaN, 9]);
  const [withHistograms] = explore(s, 'uni', input, { histograms: true });
  expect([withHistograms.min, withHistograms.median, withHistograms.max]).toEqual([1, 2.5, 4]);
});

test('approximateKeys: uni marks what is not read from an exact histogram; the other metrics nothing', () => {
  const rows = frame(['x', 'y'], ['C', 'C'], [['1', '2'], ['4', '3'], ['9', '5']]);
  const x = { inputs: [0], targets: [], extra: {} };
  expect(approximateKeys(learned(rows, { histogram: 'streaming' }), 'uni', x, { histograms: true })).toEqual([['min', 'median', 'max']]);
  expect(approximateKeys(learned(rows, { histogram: 'exact' }), 'uni', x, { histograms: true })).toEqual([[]]);
  // Without histograms the extremes are those ever learned (the test above): a forget does not undo them.
  expect(approximateKeys(learned(rows, { histogram: 'exact' }), 'uni', x, { histograms: false })).toEqual([['min', 'max']]);
  expect(approximateKeys(learned(rows, { histogram: 'streaming' }), 'bi', { inputs: [0, 1], targets: [], extra: {} }, { histograms: true })).toEqual([[]]);
});

test('uni reads only inputAttributes[0]', () => {
  const s = learned(frame(['x', 'y'], ['C', 'C'], [['1', '5'], ['2', '7']]));
  expect(explore(s, 'uni', { inputs: [0, 1], targets: [], extra: {} }, { histograms: false })).toEqual(explore(s, 'uni', { inputs: [0], targets: [], extra: {} }, { histograms: false }));
});

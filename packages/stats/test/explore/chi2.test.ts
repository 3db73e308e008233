/**
 * Reference: scipy.stats.chi2_contingency(observed, correction=False) on the table counted from
 * the rows (cell = rows where row attribute = 1 and column attribute = 1), coef = Tschuprow's T
 * = √(χ²/(N√dof)); without targets scipy.stats.chisquare(observed, f_exp = N·p) with p uniform
 * or the normalized chi2_expected_* weights (fixtures/gen_explore.py, Debian's /usr/bin/python3).
 * Tolerance 1e-9 relative (STATS.md).
 */
import { explore } from '../../src/explore';
import { frame } from '../helpers';
import { casesOf, expectMaps, FIXTURES, learned, load, run } from './fixture';

describe.each(FIXTURES)('%s', (name) => {
  const fixture = load(name);
  const summary = learned(fixture.frame);
  test.each(casesOf(fixture, ['chi2']))('%s equals scipy', (_, c) => {
    expectMaps(run(summary, c), c.expected);
  });
});

test('a contingency table with an empty row has a zero expected count: NaN statistics, the observed cells still reported', () => {
  const s = learned(frame(['r1', 'r2', 'c1', 'c2'], ['B', 'B', 'B', 'B'], [['1', '0', '1', '0'], ['1', '0', '0', '1'], ['1', '0', '1', '0']]));
  const [m] = explore(s, 'chi2', { inputs: [0, 1], targets: [2, 3], extra: {} }, { histograms: false });
  expect(m).toEqual({ chiStat: NaN, df: 1, pval: NaN, coef: NaN, 'obs$r1:c1': 2, 'obs$r1:c2': 1, 'obs$r2:c1': 0, 'obs$r2:c2': 0 });
});

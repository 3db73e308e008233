/**
 * Reference: scipy.stats.chi2_contingency(observed, correction=False) on the table counted from
 * the rows (cell = rows where row attribute = 1 and column attribute = 1), coef = Tschuprow's T
 * = √(χ²/(N√dof)); without targets scipy.stats.chisquare(observed, f_exp = N·p) with p uniform
 * or the normalized chi2_expected_* weights (fixtures/gen_explore.py, Debian's /usr/bin/python3).
 * Contingency cells are keyed by project attribute indexes (`obs$<i>:<j>`); over all the levels
 * of ≥ 2 categorical attributes (explore_dice.json) chi2 is the test of homogeneity, keyed
 * `obs$<base>:<level>`. Tolerance 1e-9 relative (STATS.md).
 */
import { explore } from '../../src/explore';
import { frame } from '../helpers';
import { casesOf, expectMaps, FIXTURES, learned, load, run } from './fixture';

describe.each([...FIXTURES, 'explore_dice.json'])('%s', (name) => {
  const fixture = load(name);
  const summary = learned(fixture.frame);
  test.each(casesOf(fixture, ['chi2']))('%s equals scipy', (_, c) => {
    expectMaps(run(summary, c), c.expected);
  });
});

test('a contingency table with an empty row has a zero expected count: NaN statistics, the observed cells still reported', () => {
  const s = learned(frame(['r1', 'r2', 'c1', 'c2'], ['B', 'B', 'B', 'B'], [['1', '0', '1', '0'], ['1', '0', '0', '1'], ['1', '0', '1', '0']]));
  const [m] = explore(s, 'chi2', { inputs: [0, 1], targets: [2, 3], extra: {} }, { histograms: false });
  expect(m).toEqual({ chiStat: NaN, df: 1, pval: NaN, coef: NaN, 'obs$0:2': 2, 'obs$0:3': 1, 'obs$1:2': 0, 'obs$1:3': 0 });
});

test('levels of two categoricals that are not all of their levels are a goodness-of-fit request, not a homogeneity table', () => {
  const s = learned(frame(['a', 'b'], ['T', 'T'], [['x', 'x'], ['y', 'x'], ['x', 'y'], ['y', 'y'], ['x', 'x']]));
  const names = s.attributeNames;
  const all = names.map((_, i) => i);
  const [homogeneity] = explore(s, 'chi2', { inputs: all, targets: [], extra: {} }, { histograms: false });
  expect(Object.keys(homogeneity)).toEqual(['chiStat', 'df', 'pval', 'coef', 'obs$a:x', 'obs$a:y', 'obs$b:x', 'obs$b:y']);
  const partial = [names.indexOf('a$x'), names.indexOf('b$y')];
  const [fit] = explore(s, 'chi2', { inputs: partial, targets: [], extra: {} }, { histograms: false });
  expect(Object.keys(fit)).toEqual(['chiStat', 'df', 'pval', 'obs$a$x', 'obs$b$y']);
});

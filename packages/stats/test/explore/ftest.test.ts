/**
 * Reference: f = np.var(a, ddof=1)/np.var(b, ddof=1) with fp = 2·min(scipy.stats.f.cdf, f.sf);
 * ftestsigma f = np.var(ddof=1)/σ₀² with fp = 2·min(chi2.cdf, chi2.sf) at (n−1)·f
 * (fixtures/gen_explore.py, Debian's /usr/bin/python3). Tolerance 1e-9 relative (STATS.md).
 */
import { casesOf, expectMaps, FIXTURES, learned, load, run } from './fixture';

describe.each(FIXTURES)('%s', (name) => {
  const fixture = load(name);
  const summary = learned(fixture.frame);
  test.each(casesOf(fixture, ['ftest', 'ftestsigma']))('%s equals scipy', (_, c) => {
    expectMaps(run(summary, c), c.expected);
  });
});

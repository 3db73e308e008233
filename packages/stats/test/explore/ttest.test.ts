/**
 * Reference: scipy.stats.ttest_ind(equal_var=True) for t/tp, ttest_ind(equal_var=False) for
 * tu/tpu (Welch–Satterthwaite tdfu from numpy), scipy.stats.ttest_1samp for ttestmu; group
 * counts, means and np.var(ddof=1) (fixtures/gen_explore.py, Debian's /usr/bin/python3).
 * Tolerance 1e-9 relative (STATS.md), p-values included.
 */
import { casesOf, expectMaps, FIXTURES, learned, load, run } from './fixture';

describe.each(FIXTURES)('%s', (name) => {
  const fixture = load(name);
  const summary = learned(fixture.frame);
  test.each(casesOf(fixture, ['ttest', 'ttestmu']))('%s equals scipy', (_, c) => {
    expectMaps(run(summary, c), c.expected);
  });
});

/**
 * Reference: scipy.stats.f_oneway for F and P; SSb = Σnⱼ(mⱼ − M)², SSw = Σ(x − mⱼ)², Ssgamma =
 * Σ(x − M)² over the pooled groups (total sum of squares), Dfgamma = N − 1, with numpy
 * (fixtures/gen_explore.py, Debian's /usr/bin/python3). Both forms: groups = attributes, and
 * [c] with targets = rows where bⱼ = 1. Tolerance 1e-9 relative (STATS.md).
 */
import { casesOf, expectMaps, FIXTURES, learned, load, run } from './fixture';

describe.each(FIXTURES)('%s', (name) => {
  const fixture = load(name);
  const summary = learned(fixture.frame);
  test.each(casesOf(fixture, ['anova']))('%s equals scipy f_oneway', (_, c) => {
    expectMaps(run(summary, c), c.expected);
  });
});

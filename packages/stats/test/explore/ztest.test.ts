/**
 * Reference: closed forms evaluated with numpy, p-values from scipy.stats.norm.sf
 * (fixtures/gen_explore.py, Debian's /usr/bin/python3):
 * ztest z = (m₁ − m₂)/√(v₁/n₁ + v₂/n₂) with np.var (population), ztestmu z = (m − μ₀)/(σ/√n)
 * with np.std, ztestp the pooled two-proportion z; zp = 2·norm.sf(|z|).
 * Groups: [c1, c2] = each column's present values; [c, b1, b2] = c where bⱼ = 1.
 * Tolerance 1e-9 relative (STATS.md).
 */
import { casesOf, expectMaps, FIXTURES, learned, load, run } from './fixture';

describe.each(FIXTURES)('%s', (name) => {
  const fixture = load(name);
  const summary = learned(fixture.frame);
  test.each(casesOf(fixture, ['ztest', 'ztestmu', 'ztestp']))('%s equals the closed form with scipy norm', (_, c) => {
    expectMaps(run(summary, c), c.expected);
  });
});

import { type Attributes, knownValue, requireCount } from './attributes';
import { studentTwoSided } from './distributions';
import { twoGroups } from './groups';
import { attributeSample, ratio, unbiasedVariance } from './sample';
import type { MetricInput, MetricMap } from './types';

export const TTEST_KNOWN_MU = 'sml_explore_ttest_known_mu';

/**
 * `ttest`: two-sample t-tests with unbiased variances sⱼ² (keys tn, tm, ts = count, mean,
 * unbiased variance of each group), as scipy `ttest_ind`:
 * - Student (equal_var=True): s_p² = ((n₁−1)s₁² + (n₂−1)s₂²)/(n₁+n₂−2),
 *   t = (m₁ − m₂)/√(s_p²(1/n₁ + 1/n₂)), tdf = n₁ + n₂ − 2;
 * - Welch (equal_var=False): tu = (m₁ − m₂)/√(s₁²/n₁ + s₂²/n₂),
 *   tdfu = (s₁²/n₁ + s₂²/n₂)² / ((s₁²/n₁)²/(n₁−1) + (s₂²/n₂)²/(n₂−1)).
 */
export function ttest(attributes: Attributes, input: MetricInput): MetricMap {
  const [g1, g2] = twoGroups(attributes, input, 'ttest');
  const s1 = unbiasedVariance(g1);
  const s2 = unbiasedVariance(g2);
  const tdf = g1.n + g2.n - 2;
  // A group of one has no unbiased variance: NaN, as scipy, although the pooled formula would be defined.
  const pooled = ratio((g1.n - 1) * s1 + (g2.n - 1) * s2, tdf);
  const t = ratio(g1.mean - g2.mean, Math.sqrt(pooled * (1 / g1.n + 1 / g2.n)));
  const a = s1 / g1.n;
  const b = s2 / g2.n;
  const tu = ratio(g1.mean - g2.mean, Math.sqrt(a + b));
  const tdfu = ratio((a + b) ** 2, (a * a) / (g1.n - 1) + (b * b) / (g2.n - 1));
  return {
    tn1: g1.n,
    tn2: g2.n,
    tm1: g1.mean,
    tm2: g2.mean,
    ts1: s1,
    ts2: s2,
    t,
    tdf: tdf > 0 ? tdf : NaN,
    tp: studentTwoSided(t, tdf),
    tu,
    tdfu,
    tpu: studentTwoSided(tu, tdfu),
  };
}

/** `ttestmu`: one-sample t-test against `sml_explore_ttest_known_mu` (scipy `ttest_1samp`), t = (m − μ₀)/(s/√n), tdf = n − 1. */
export function ttestMu(attributes: Attributes, input: MetricInput): MetricMap {
  requireCount(input.inputs, 1, 'ttestmu');
  const mu = knownValue(input.extra, TTEST_KNOWN_MU);
  const s = attributeSample(attributes.summary, input.inputs[0]);
  const t = ratio(s.mean - mu, Math.sqrt(unbiasedVariance(s) / s.n));
  const tdf = s.n - 1;
  return { t, tdf: tdf > 0 ? tdf : NaN, tp: studentTwoSided(t, tdf) };
}

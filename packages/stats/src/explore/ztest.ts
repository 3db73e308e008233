import { type Attributes, knownValue, requireCount } from './attributes';
import { normalTwoSided } from './distributions';
import { twoGroups } from './groups';
import { attributeSample, ratio } from './sample';
import type { MetricInput, MetricMap } from './types';

export const ZTEST_KNOWN_MU = 'sml_explore_ztest_known_mu';

/**
 * `ztest`: two-sample z-test with population variances, z = (m₁ − m₂)/√(v₁/n₁ + v₂/n₂),
 * zp two-sided normal. Keys zn, zm, zs = count, mean, population variance of each group.
 */
export function ztest(attributes: Attributes, input: MetricInput): MetricMap {
  const [g1, g2] = twoGroups(attributes, input, 'ztest');
  const se2 = ratio(g1.variance, g1.n) + ratio(g2.variance, g2.n);
  const z = ratio(g1.mean - g2.mean, Math.sqrt(se2));
  return { zn1: g1.n, zn2: g2.n, zm1: g1.mean, zm2: g2.mean, zs1: g1.variance, zs2: g2.variance, z, zp: normalTwoSided(z) };
}

/** `ztestmu`: one-sample z-test against `sml_explore_ztest_known_mu`, z = (m − μ₀)/(σ/√n), σ the population standard deviation. */
export function ztestMu(attributes: Attributes, input: MetricInput): MetricMap {
  requireCount(input.inputs, 1, 'ztestmu');
  const mu = knownValue(input.extra, ZTEST_KNOWN_MU);
  const s = attributeSample(attributes.summary, input.inputs[0]);
  const z = ratio(s.mean - mu, Math.sqrt(ratio(s.variance, s.n)));
  return { z, zp: normalTwoSided(z) };
}

/**
 * `ztestp`: pooled two-proportion z-test of binary [b1, b2], pⱼ = mean of bⱼ over its present
 * rows, p = (n₁p₁ + n₂p₂)/(n₁ + n₂), z = (p₁ − p₂)/√(p(1 − p)(1/n₁ + 1/n₂)).
 */
export function ztestProportions(attributes: Attributes, input: MetricInput): MetricMap {
  requireCount(input.inputs, 2, 'ztestp');
  const [b1, b2] = input.inputs;
  attributes.requireBinary(b1, 'ztestp');
  attributes.requireBinary(b2, 'ztestp');
  const g1 = attributeSample(attributes.summary, b1);
  const g2 = attributeSample(attributes.summary, b2);
  const pooled = ratio(g1.n * g1.mean + g2.n * g2.mean, g1.n + g2.n);
  const z = ratio(g1.mean - g2.mean, Math.sqrt(pooled * (1 - pooled) * (ratio(1, g1.n) + ratio(1, g2.n))));
  return { z, zp: normalTwoSided(z), zn1: g1.n, zn2: g2.n, zm1: g1.mean, zm2: g2.mean };
}

import { type Attributes, knownValue, requireCount } from './attributes';
import { chiSquareTails, fTails, twoSided } from './distributions';
import { ExploreInputError } from './errors';
import { twoGroups } from './groups';
import { attributeSample, ratio, unbiasedVariance } from './sample';
import type { MetricInput, MetricMap } from './types';

export const FTEST_KNOWN_SIGMA = 'sml_explore_ftest_known_sigma';

/**
 * `ftest`: variance-ratio test f = s₁²/s₂² (unbiased variances), fdf1 = n₁ − 1,
 * fdf2 = n₂ − 1, fp = 2·min(F.cdf(f), F.sf(f)). Keys fn, fm, fs = count, mean, unbiased
 * variance of each group.
 */
export function ftest(attributes: Attributes, input: MetricInput): MetricMap {
  const [g1, g2] = twoGroups(attributes, input, 'ftest');
  const s1 = unbiasedVariance(g1);
  const s2 = unbiasedVariance(g2);
  const f = ratio(s1, s2);
  const fdf1 = g1.n - 1;
  const fdf2 = g2.n - 1;
  return {
    fn1: g1.n,
    fn2: g2.n,
    fm1: g1.mean,
    fm2: g2.mean,
    fs1: s1,
    fs2: s2,
    fdf1: fdf1 > 0 ? fdf1 : NaN,
    fdf2: fdf2 > 0 ? fdf2 : NaN,
    f,
    fp: twoSided(fTails(f, fdf1, fdf2)),
  };
}

/**
 * `ftestsigma`: test of the variance against a known standard deviation σ₀
 * (`sml_explore_ftest_known_sigma`, > 0): f = s²/σ₀², fdf = n − 1, fp = two-sided from
 * χ²ₙ₋₁ at (n − 1)·f.
 */
export function ftestSigma(attributes: Attributes, input: MetricInput): MetricMap {
  requireCount(input.inputs, 1, 'ftestsigma');
  const sigma = knownValue(input.extra, FTEST_KNOWN_SIGMA);
  if (!(sigma > 0)) throw new ExploreInputError(`extra parameter ${FTEST_KNOWN_SIGMA} must be a positive standard deviation, not [${input.extra[FTEST_KNOWN_SIGMA]}]`);
  const s = attributeSample(attributes.summary, input.inputs[0]);
  const f = unbiasedVariance(s) / (sigma * sigma);
  const fdf = s.n - 1;
  return { f, fdf: fdf > 0 ? fdf : NaN, fp: twoSided(chiSquareTails(fdf * f, fdf)) };
}

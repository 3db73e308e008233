import type { Attributes } from './attributes';
import { fTails } from './distributions';
import { manyGroups } from './groups';
import { ratio } from './sample';
import type { MetricInput, MetricMap } from './types';

/**
 * `anova`: one-way analysis of variance over k groups (scipy `f_oneway`), group j with
 * count nⱼ, mean mⱼ, population variance vⱼ, N = Σnⱼ, grand mean M = Σnⱼmⱼ/N:
 *
 * - SSb = Σnⱼ(mⱼ − M)², Dfb = k − 1, MSb = SSb/Dfb (between groups);
 * - SSw = Σnⱼvⱼ, Dfw = N − k, MSw = SSw/Dfw (within groups);
 * - F = MSb/MSw, P = F(Dfb, Dfw).sf(F);
 * - Ssgamma = SSb + SSw = Σ(x − M)², the total sum of squares, and Dfgamma = N − 1 its
 *   degrees of freedom (STATS.md names them without defining them: "gamma" read as total).
 *
 * An empty group makes everything NaN; F is NaN when every group is constant (MSw = 0).
 */
export function anova(attributes: Attributes, input: MetricInput): MetricMap {
  const groups = manyGroups(attributes, input, 'anova');
  const k = groups.length;
  const total = groups.reduce((n, g) => n + g.n, 0);
  const grandMean = groups.some((g) => g.n === 0) ? NaN : groups.reduce((s, g) => s + g.n * g.mean, 0) / total;
  const ssb = groups.reduce((s, g) => s + g.n * (g.mean - grandMean) ** 2, 0);
  const ssw = groups.reduce((s, g) => s + g.n * g.variance, 0);
  const dfb = k - 1;
  const dfw = total - k;
  const msb = ratio(ssb, dfb);
  const msw = ratio(ssw, dfw);
  const f = ratio(msb, msw);
  return {
    SSb: ssb,
    SSw: ssw,
    Dfb: dfb,
    Dfw: dfw > 0 ? dfw : NaN,
    MSb: msb,
    MSw: msw,
    F: f,
    Ssgamma: ssb + ssw,
    Dfgamma: total > 1 ? total - 1 : NaN,
    P: fTails(f, dfb, dfw)[1],
  };
}

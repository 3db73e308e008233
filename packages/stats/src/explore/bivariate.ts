import { type Attributes, requireCount } from './attributes';
import { ratio, snapVariance } from './sample';
import type { MetricInput, MetricMap } from './types';

/**
 * `bi` (STATS.md §3) of [x, y], over the rows where both are present:
 *
 * - covar = Σxy/n − x̄ȳ (population), linCorr = covar/(σₓσᵧ) (Pearson; NaN if either is constant);
 * - y as a weight (for a binary y, the rows where y = 1): condCount = Σy, condSum = Σxy,
 *   condMean = Σxy/Σy, condVariance = Σ(xy)²/Σy − condMean², condStddev = √condVariance.
 */
export function bivariate(attributes: Attributes, input: MetricInput): MetricMap {
  requireCount(input.inputs, 2, 'bi');
  const [x, y] = input.inputs;
  const m = attributes.summary.comoments(x, y);
  const n = m.count;
  const mx = ratio(m.sumX, n);
  const my = ratio(m.sumY, n);
  const vx = snapVariance(Math.max(0, m.sumXX / n - mx * mx), mx);
  const vy = snapVariance(Math.max(0, m.sumYY / n - my * my), my);
  const covar = ratio(m.sumXY - m.sumX * my, n);
  const linCorr = vx > 0 && vy > 0 ? Math.min(1, Math.max(-1, covar / Math.sqrt(vx * vy))) : NaN;
  const condMean = m.sumY !== 0 ? m.sumXY / m.sumY : NaN;
  const condVariance = snapVariance(Math.max(0, m.sumXXYY / m.sumY - condMean * condMean), condMean);
  return {
    covar,
    linCorr,
    condCount: m.sumY,
    condMean,
    condVariance,
    condSum: m.sumXY,
    condStddev: Math.sqrt(condVariance),
  };
}

import type { Summary } from '../../summary';
import type { RegressionMoments } from '../linear';
import { ModelInputError, type ModelSpec } from '../types';

/**
 * Refuses a target that is not a 0/1 attribute with both classes present. The test needs
 * only the power sums: Σ(x² − x)² = Σx⁴ − 2Σx³ + Σx² is zero exactly when every value is 0
 * or 1 (and the sums of such values are exact integers).
 */
export function requireBinaryTarget(summary: Summary, spec: ModelSpec): void {
  const target = spec.targets[0];
  const name = summary.attributeNames[target];
  const m = summary.moments(target);
  if (m.sumFourths - 2 * m.sumCubes + m.sumSquares !== 0) {
    throw new ModelInputError(`${spec.algo} needs a binary 0/1 target; [${name}] has other values`);
  }
  if (m.sum === 0 || m.sum === m.count) {
    throw new ModelInputError(`${spec.algo} needs both classes in the target; [${name}] is ${m.sum === 0 ? 0 : 1} in every row (${m.count})`);
  }
}

/** The moments of the ±1 labels t = 2y − 1 of a 0/1 target y. */
export function signedLabelMoments(m: RegressionMoments): RegressionMoments {
  return { ...m, yMean: 2 * m.yMean - 1, sxy: m.sxy.map((v) => 2 * v), syy: 4 * m.syy };
}

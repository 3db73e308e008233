import { Matrix } from 'ml-matrix';
import { ZERO_VARIANCE } from '../../matrix';
import type { RegressionMoments } from '../linear';
import { ModelInputError } from '../types';

/** The regression moments of the standardized inputs z_j = (x_j − x̄_j)/sd_j (population sd). */
export interface StandardizedMoments {
  sd: number[];
  /** Covariance of the z's: the inputs' correlation matrix. */
  zz: Matrix;
  /** Covariances of the z's with y. */
  zy: number[];
}

/**
 * Standardizes the inputs, refusing any input whose variance rounding of the power sums
 * could explain (≤ ZERO_VARIANCE of its mean square, as the matrix explorations do): its
 * standardized values would be noise.
 */
export function standardizedMoments(algo: string, m: RegressionMoments): StandardizedMoments {
  const p = m.inputNames.length;
  const variances = m.inputNames.map((_, i) => m.sxx.get(i, i));
  const constant = m.inputNames.filter((_, i) => !(variances[i] > ZERO_VARIANCE * (variances[i] + m.xMean[i] ** 2)));
  if (constant.length > 0) throw new ModelInputError(`${algo} standardizes its inputs; zero variance in [${constant.join(', ')}]`);
  const sd = variances.map(Math.sqrt);
  const zz = new Matrix(p, p);
  for (let i = 0; i < p; i++) for (let j = 0; j < p; j++) zz.set(i, j, m.sxx.get(i, j) / (sd[i] * sd[j]));
  return { sd, zz, zy: m.sxy.map((v, i) => v / sd[i]) };
}

import type { Matrix } from 'ml-matrix';
import type { Summary } from '../../summary';
import { ModelInputError } from '../types';

/** Rows every statistic of the inputs can rely on: the smallest pairwise co-present count. */
export function commonCount(summary: Summary, inputs: readonly number[]): number {
  let n = Infinity;
  for (let a = 0; a < inputs.length; a++) for (let b = a; b < inputs.length; b++) n = Math.min(n, summary.comoments(inputs[a], inputs[b]).count);
  return n;
}

/** The population covariance of the inputs, every entry defined; ModelInputError naming the pair otherwise. */
export function checkedCovariance(summary: Summary, algo: string, inputs: readonly number[], names: readonly string[]): Matrix {
  const cov = summary.covariance(inputs);
  for (let a = 0; a < inputs.length; a++) {
    for (let b = a; b < inputs.length; b++) {
      if (Number.isNaN(cov.get(a, b))) throw new ModelInputError(`${algo}: no rows where both [${names[a]}] and [${names[b]}] are present`);
    }
  }
  return cov;
}

/**
 * Σ_r (x_ri − m_i)²(x_rj − m_j)² for every pair, the centred fourth co-moments Ledoit-Wolf's
 * shrinkage needs, from the summary's power sums.
 * - i = j: exact, Σ(x − m)⁴ = Σx⁴ − 4mΣx³ + 6m²Σx² − 3n·m⁴.
 * - i ≠ j: with A = x_i − m_i, B = x_j − m_j over the co-present rows,
 *     Σx_i²x_j² = ΣA²B² + 2m_jΣA²B + 2m_iΣAB² + m_j²ΣA² + m_i²ΣB² + 4m_im_jΣAB + n·m_i²m_j².
 *   The summary keeps Σx_i²x_j² but not the third-order sums Σx_i²x_j and Σx_i·x_j², so
 *   the co-skewness terms ΣA²B and ΣAB² are taken as 0 (exact for data centred at 0 and
 *   for a joint distribution symmetric about its mean; otherwise an approximation whose
 *   error grows with |m|·co-skewness), and the result is clamped into the Cauchy-Schwarz
 *   bounds every true value obeys: (ΣAB)²/n ≤ ΣA²B² ≤ √(ΣA⁴·ΣB⁴).
 */
export function centredFourthMoments(summary: Summary, inputs: readonly number[]): number[][] {
  const p = inputs.length;
  const out = Array.from({ length: p }, () => new Array<number>(p).fill(0));
  for (let a = 0; a < p; a++) {
    const m = summary.moments(inputs[a]);
    const mean = m.sum / m.count;
    out[a][a] = Math.max(0, m.sumFourths - 4 * mean * m.sumCubes + 6 * mean * mean * m.sumSquares - 3 * m.count * mean ** 4);
  }
  for (let a = 0; a < p; a++) {
    for (let b = a + 1; b < p; b++) {
      const c = summary.comoments(inputs[a], inputs[b]);
      const mi = c.sumX / c.count;
      const mj = c.sumY / c.count;
      const aa = c.sumXX - c.count * mi * mi;
      const bb = c.sumYY - c.count * mj * mj;
      const ab = c.sumXY - c.count * mi * mj;
      const estimate = c.sumXXYY - mj * mj * aa - mi * mi * bb - 4 * mi * mj * ab - c.count * mi * mi * mj * mj;
      const v = Math.min(Math.sqrt(out[a][a] * out[b][b]), Math.max((ab * ab) / c.count, estimate));
      out[a][b] = v;
      out[b][a] = v;
    }
  }
  return out;
}

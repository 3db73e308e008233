import type { RegressionMoments } from '../linear';

/**
 * Defaults of `lasso` and `elasticnet` (STATS.md §4): run to the optimum — duality gap below
 * 1e-12·var(y), checked once the largest update is below 1e-12 of the largest |w_j| — not to
 * scikit-learn's loose default `tol` 1e-4 (`max_iter` 1000). A sweep costs O(p²) on the Gram
 * matrix, whatever the row count, so 100 000 sweeps (= SML_MAX_ITERATIONS' default cap) stay
 * affordable; `tol` / `max_iter` in the parameters override both.
 */
export const DEFAULT_TOL = 1e-12;
export const DEFAULT_MAX_ITER = 100_000;

export interface ElasticNetFit {
  coef: number[];
  /** Sweeps over the coordinates. */
  iterations: number;
  /** The duality gap fell below tol·var(y) (false: max_iter ran out, scikit-learn's ConvergenceWarning). */
  converged: boolean;
  /** Duality gap of the last check, per row. */
  gap: number;
}

/**
 * Minimises scikit-learn's elastic-net objective on centred data
 *   (1/2n)‖y − Xw‖² + λ·η‖w‖₁ + (λ/2)(1 − η)‖w‖²
 * by cyclic coordinate descent from w = 0 on the Gram matrix: with everything divided by n,
 * the update of w_j is S(sxy_j − Σ_{k≠j} Sxx_jk·w_k, λη) / (Sxx_jj + λ(1 − η)), S the soft
 * threshold. This is scikit-learn's `enet_coordinate_descent` (same sweeps, same stopping
 * rule: when the largest update is below tol × the largest |w_j|, stop if the duality gap
 * is below tol·‖y − ȳ‖²), so with the same tol both stop at the same sweep.
 */
export function elasticNetDescent(m: RegressionMoments, lambda: number, eta: number, tol: number, maxIter: number): ElasticNetFit {
  const p = m.inputNames.length;
  const l1 = lambda * eta;
  const l2 = lambda * (1 - eta);
  const s = m.sxx.to2DArray();
  const w = new Array<number>(p).fill(0);
  const gapTol = tol * m.syy;
  let gap = Infinity;
  for (let iter = 1; iter <= maxIter; iter++) {
    let wMax = 0;
    let dwMax = 0;
    for (let j = 0; j < p; j++) {
      if (s[j][j] === 0) continue;
      let rho = m.sxy[j];
      for (let k = 0; k < p; k++) if (k !== j) rho -= s[j][k] * w[k];
      const next = (Math.sign(rho) * Math.max(Math.abs(rho) - l1, 0)) / (s[j][j] + l2);
      dwMax = Math.max(dwMax, Math.abs(next - w[j]));
      wMax = Math.max(wMax, Math.abs(next));
      w[j] = next;
    }
    if (wMax === 0 || dwMax / wMax < tol || iter === maxIter) {
      gap = dualityGap(s, m, w, l1, l2);
      // gap ≤ 0: exactly optimal, which also ends a constant target's fit (tol·var(y) = 0).
      if (gap < gapTol || gap <= 0) return { coef: w, iterations: iter, converged: true, gap };
    }
  }
  return { coef: w, iterations: maxIter, converged: false, gap };
}

/**
 * scikit-learn's duality gap of the elastic net, divided by n (R = y − Xw, A = the dual point).
 * Without an L1 term (η = 0: ridge by coordinate descent) that gap's dual point, R scaled by
 * l1/‖XᵀR/n − l2·w‖∞ = 0, is degenerate: the gap stays at ½‖R‖²/n + … at the optimum, so every
 * such fit ran all max_iter sweeps (100 000). There the dual of ridge itself is used,
 * D(θ) = θᵀy/n − ½‖θ‖²/n − ‖Xᵀθ/n‖²/(2·l2) at θ = R, whose gap is 0 at the optimum (scikit-learn
 * made the same change for l1_ratio = 0, its PR 32845).
 */
function dualityGap(s: number[][], m: RegressionMoments, w: number[], l1: number, l2: number): number {
  const p = w.length;
  let rr = m.syy; // ‖R‖²/n
  let ry = m.syy; // Rᵀy/n
  let dualNorm = 0; // max |Xᵀ R/n − l2·w|
  let l1Norm = 0;
  let w2 = 0;
  let gradient2 = 0; // ‖Xᵀ R/n‖²
  for (let i = 0; i < p; i++) {
    let sw = 0;
    for (let j = 0; j < p; j++) sw += s[i][j] * w[j];
    rr += w[i] * sw - 2 * w[i] * m.sxy[i];
    ry -= w[i] * m.sxy[i];
    dualNorm = Math.max(dualNorm, Math.abs(m.sxy[i] - sw - l2 * w[i]));
    gradient2 += (m.sxy[i] - sw) ** 2;
    l1Norm += Math.abs(w[i]);
    w2 += w[i] * w[i];
  }
  if (l1 === 0 && l2 > 0) return rr - ry + 0.5 * l2 * w2 + (0.5 / l2) * gradient2;
  const c = dualNorm > l1 ? l1 / dualNorm : 1;
  const gap = dualNorm > l1 ? 0.5 * (rr + rr * c * c) : rr;
  return gap + l1 * l1Norm - c * ry + 0.5 * l2 * (1 + c * c) * w2;
}

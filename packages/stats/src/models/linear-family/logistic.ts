import type { Summary } from '../../summary';
import { regressionMoments } from '../linear';
import type { Algorithm, ModelSpec } from '../types';
import { requireBinaryTarget, signedLabelMoments } from './binary-target';
import { LinearClassifier, type LinearClassifierState } from './classifier';
import { linearState } from './coefficients';
import { numberParam, usePseudoInverse } from './params';
import { ridgeCoefficients } from './ridge';
import { readClassifierState } from './classifier';

/** Default half-width R of the interval [−R, R] on which the log-likelihood is approximated (`lr_approx_radius`). */
export const DEFAULT_LR_RADIUS = 4;
/** Larger radii would need more quadrature nodes than CHEBYSHEV_NODES for 1e-15 coefficients. */
export const MAX_LR_RADIUS = 100;
const CHEBYSHEV_NODES = 2048;

/** The quadratic a0 + a1·s + a2·s² approximating φ(s) = −log(1 + e^−s) on [−R, R]. */
export interface QuadraticApproximation {
  a0: number;
  a1: number;
  a2: number;
}

/**
 * The degree-2 truncation of the Chebyshev series of φ on [−R, R] (Huggins, Adams and
 * Broderick, "PASS-GLM", NeurIPS 2017), in monomials. The coefficients c_k are computed by
 * Gauss-Chebyshev quadrature, exact to rounding for an analytic φ with this many nodes.
 */
export function chebyshevQuadratic(radius: number): QuadraticApproximation {
  const c = [0, 0, 0];
  for (let j = 0; j < CHEBYSHEV_NODES; j++) {
    const theta = (Math.PI * (j + 0.5)) / CHEBYSHEV_NODES;
    const f = logSigmoid(radius * Math.cos(theta));
    for (let k = 0; k < 3; k++) c[k] += f * Math.cos(k * theta);
  }
  const [c0, c1, c2] = c.map((v, k) => ((k === 0 ? 1 : 2) / CHEBYSHEV_NODES) * v);
  // T0 = 1, T1 = u, T2 = 2u² − 1 with u = s/R.
  return { a0: c0 - c2, a1: c1 / radius, a2: (2 * c2) / (radius * radius) };
}

/** φ(s) = −log(1 + e^−s), without overflow for large |s|. */
function logSigmoid(s: number): number {
  return -(Math.max(-s, 0) + Math.log1p(Math.exp(-Math.abs(s))));
}

/**
 * `lr` (STATS.md §4): logistic regression in one pass over the summary (PASS-GLM with a
 * quadratic). With labels t = 2y − 1 the log-likelihood Σ φ(tᵢ·x̃ᵢᵀθ), x̃ = (1, x), becomes
 * Σ a0 + a1·tᵢ·x̃ᵢᵀθ + a2·(x̃ᵢᵀθ)² (tᵢ² = 1): it needs only Σx̃x̃ᵀ and Σtx̃, and its maximum is
 * θ = −a1/(2a2)·(Σx̃x̃ᵀ)⁻¹·Σtx̃, the least-squares fit of t scaled by a constant. Approximate
 * by design: it ranks rows as that least-squares fit does, and can differ from the
 * maximum-likelihood fit where the classes (nearly) separate (README "Decisions").
 * `lr_approx_radius` R ∈ (0, 100], default 4. Predicts `prob` = 1/(1 + e^−x̃ᵀθ) and `res` =
 * 1 when prob > 0.5.
 */
export const lr: Algorithm = {
  name: 'lr',
  task: 'binary',
  build(summary: Summary, spec: ModelSpec) {
    const radius = numberParam(spec, 'lr_approx_radius', DEFAULT_LR_RADIUS, { min: 0, minExclusive: true, max: MAX_LR_RADIUS });
    const m = signedLabelMoments(regressionMoments(summary, spec));
    requireBinaryTarget(summary, spec);
    const q = chebyshevQuadratic(radius);
    const scale = -q.a1 / (2 * q.a2);
    // λ = 0: the least-squares fit of t, under the singular-matrix rule.
    const coef = ridgeCoefficients(m, 0, usePseudoInverse(spec)).map((b) => b * scale);
    const info = { lr_approx_radius: String(radius), a0: String(q.a0), a1: String(q.a1), a2: String(q.a2) };
    const state: LinearClassifierState = { ...linearState('lr', { ...m, yMean: scale * m.yMean }, coef, info), output: 'logistic' };
    return new LinearClassifier(state);
  },
  restore: (state) => new LinearClassifier(readClassifierState(state, 'lr')),
};

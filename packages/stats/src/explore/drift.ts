import { CholeskyDecomposition, Matrix } from 'ml-matrix';
import { checkedMatrix, symmetricEigen } from '../matrix/matrices';
import type { Summary } from '../summary';
import { ExploreInputError } from './errors';
import { alignHistograms } from './histograms';
import type { MetricMap } from './types';

/**
 * Data drift between a baseline and an analysis project, from their summaries and histograms
 * (never rows). `<a>_drift` per attribute and one `driftScore`:
 * - `marginal_stat`: two-sample Kolmogorov–Smirnov D (+ `<a>_pvalue`, Kolmogorov's limit law);
 * - `marginal_non_stat`: Jensen–Shannon distance, base 2, of the binned distributions;
 * - `global`: Hellinger distance of fitted normals (univariate per attribute, multivariate score);
 * - `pca_reconstruction_error`: the analysis data's residual mean square off the baseline's
 *   principal subspace, relative to the baseline's own (1 = no drift).
 */
export const DRIFT_METRICS = ['pca_reconstruction_error', 'global', 'marginal_stat', 'marginal_non_stat'] as const;
export type DriftMetric = (typeof DRIFT_METRICS)[number];

/** Fraction of the baseline's correlation-matrix variance its principal components keep (`pca_reconstruction_error`). */
export const DRIFT_PCA_VARIANCE = 0.95;

/** One side of a drift comparison: the project's name (errors name it) and its summary. */
export interface DriftSide {
  name: string;
  summary: Summary;
}

export interface DriftOptions {
  /** `pca_num_components`: the baseline's components kept (1 ≤ k ≤ p − 1), instead of DRIFT_PCA_VARIANCE. */
  pcaComponents?: number;
}

/** The drift of `attributes` (names present in both projects) from `baseline` to `analysis` by `metric`. */
export function dataDrift(baseline: DriftSide, analysis: DriftSide, attributes: readonly string[], metric: DriftMetric, options: DriftOptions = {}): MetricMap {
  if (attributes.length === 0) throw new ExploreInputError('dataDrift needs at least one attribute');
  for (const side of [baseline, analysis]) {
    const missing = attributes.find((a) => side.summary.indexOf(a) < 0);
    if (missing !== undefined) throw new ExploreInputError(`attribute [${missing}] is not in project [${side.name}]`);
  }
  switch (metric) {
    case 'marginal_stat':
    case 'marginal_non_stat':
      return marginal(baseline, analysis, attributes, metric);
    case 'global':
      return globalHellinger(baseline.summary, analysis.summary, attributes);
    case 'pca_reconstruction_error':
      return pcaReconstruction(baseline.summary, analysis.summary, attributes, options.pcaComponents);
  }
}

/** Present counts of one attribute's values in both projects on a common grid (binary: [zeros, ones]). */
function binned(baseline: DriftSide, analysis: DriftSide, name: string): number[][] {
  if (isBinary(baseline.summary, name) && isBinary(analysis.summary, name)) {
    return [baseline.summary, analysis.summary].map((s) => {
      const n = s.count(name);
      const ones = n * s.mean(name);
      return n === 0 ? [0, 0] : [n - ones, ones];
    });
  }
  const histograms = [baseline, analysis].map((side) => {
    const h = side.summary.histogram(name);
    if (h === undefined) throw new ExploreInputError(`histograms of project [${side.name}] are not enabled: drift of continuous attribute [${name}] needs them`);
    return h;
  });
  return alignHistograms(histograms).counts;
}

const isBinary = (summary: Summary, name: string) => summary.attributeTypes[summary.indexOf(name)] === 'B';

function marginal(baseline: DriftSide, analysis: DriftSide, attributes: readonly string[], metric: 'marginal_stat' | 'marginal_non_stat'): MetricMap {
  const perAttribute: MetricMap = {};
  let sum = 0;
  for (const name of attributes) {
    const [b, a] = binned(baseline, analysis, name);
    if (metric === 'marginal_non_stat') {
      perAttribute[`${name}_drift`] = jensenShannon(b, a);
    } else {
      const [d, pvalue] = kolmogorovSmirnov(b, a);
      perAttribute[`${name}_drift`] = d;
      perAttribute[`${name}_pvalue`] = pvalue;
    }
    sum += perAttribute[`${name}_drift`];
  }
  return { driftScore: sum / attributes.length, ...perAttribute };
}

const total = (counts: readonly number[]) => counts.reduce((s, c) => s + c, 0);

/**
 * KS D = max |F₁ − F₂| over the common grid's upper edges (on exact values this is scipy
 * `ks_2samp`'s D); the p-value is Kolmogorov's limit law at √(n₁n₂/(n₁+n₂))·D.
 */
export function kolmogorovSmirnov(b: readonly number[], a: readonly number[]): [d: number, pvalue: number] {
  const nb = total(b);
  const na = total(a);
  if (nb === 0 || na === 0) return [NaN, NaN];
  let cb = 0;
  let ca = 0;
  let d = 0;
  for (let k = 0; k < b.length; k++) {
    cb += b[k];
    ca += a[k];
    d = Math.max(d, Math.abs(cb / nb - ca / na));
  }
  return [d, kolmogorovSurvival(Math.sqrt((nb * na) / (nb + na)) * d)];
}

/**
 * P(K > x) for Kolmogorov's distribution (scipy `kstwobign.sf`): below x = 1 from the
 * Jacobi-theta form of the CDF, above from the alternating series 2 Σ (−1)^(k−1) e^(−2k²x²)
 * (both converge in a handful of terms there).
 */
export function kolmogorovSurvival(x: number): number {
  if (!(x > 0)) return Number.isNaN(x) ? NaN : 1;
  if (x < 1) {
    const c = (-Math.PI * Math.PI) / (8 * x * x);
    let s = 0;
    for (let k = 1; k <= 20; k++) s += Math.exp((2 * k - 1) ** 2 * c);
    return 1 - (Math.sqrt(2 * Math.PI) / x) * s;
  }
  let s = 0;
  for (let k = 1; k <= 100; k++) {
    const term = Math.exp(-2 * k * k * x * x);
    s += k % 2 === 1 ? term : -term;
    if (term < 1e-300) break;
  }
  return Math.min(1, 2 * s);
}

/** Jensen–Shannon distance, base 2, of two count vectors on one grid (each normalized; scipy `jensenshannon`). */
export function jensenShannon(b: readonly number[], a: readonly number[]): number {
  const nb = total(b);
  const na = total(a);
  if (nb === 0 || na === 0) return NaN;
  let divergence = 0;
  for (let k = 0; k < b.length; k++) {
    const p = b[k] / nb;
    const q = a[k] / na;
    const m = (p + q) / 2;
    if (p > 0) divergence += p * Math.log2(p / m);
    if (q > 0) divergence += q * Math.log2(q / m);
  }
  return Math.sqrt(Math.max(0, divergence / 2));
}

/** Hellinger distance of N(μ₁, σ₁²) and N(μ₂, σ₂²) (population variances). */
export function normalHellinger(m1: number, v1: number, m2: number, v2: number): number {
  const h2 = 1 - Math.sqrt((2 * Math.sqrt(v1 * v2)) / (v1 + v2)) * Math.exp(-((m1 - m2) ** 2) / (4 * (v1 + v2)));
  return Math.sqrt(Math.max(0, h2));
}

function logDeterminant(m: Matrix): number {
  const chol = new CholeskyDecomposition(m);
  if (!chol.isPositiveDefinite()) return NaN;
  const l = chol.lowerTriangularMatrix;
  let s = 0;
  for (let i = 0; i < m.rows; i++) s += 2 * Math.log(l.get(i, i));
  return s;
}

/**
 * Hellinger distance of the multivariate normals with the projects' means and population
 * covariances: H² = 1 − det Σ₁^¼ det Σ₂^¼ / det Σ̄^½ · exp(−⅛ Δμᵀ Σ̄⁻¹ Δμ), Σ̄ = (Σ₁+Σ₂)/2,
 * in log-determinants; NaN when a covariance is singular.
 */
function globalHellinger(baseline: Summary, analysis: Summary, attributes: readonly string[]): MetricMap {
  const perAttribute: MetricMap = {};
  for (const a of attributes) perAttribute[`${a}_drift`] = normalHellinger(baseline.mean(a), baseline.variance(a), analysis.mean(a), analysis.variance(a));
  const s1 = baseline.covariance(attributes);
  const s2 = analysis.covariance(attributes);
  const mean = Matrix.add(s1, s2).mul(0.5);
  const delta = Matrix.columnVector(attributes.map((a) => analysis.mean(a) - baseline.mean(a)));
  const chol = new CholeskyDecomposition(mean);
  let driftScore = NaN;
  if (chol.isPositiveDefinite()) {
    const mahalanobis = delta.transpose().mmul(chol.solve(delta)).get(0, 0);
    const h2 = 1 - Math.exp(0.25 * logDeterminant(s1) + 0.25 * logDeterminant(s2) - 0.5 * logDeterminant(mean) - mahalanobis / 8);
    driftScore = Math.sqrt(Math.max(0, h2));
  }
  return { driftScore, ...perAttribute };
}

/**
 * In the baseline's standardized coordinates z = (x − μ_b)/σ_b: P = I − VVᵀ projects off the
 * baseline's top k correlation eigenvectors; S_a = D⁻¹(Σ_a + ΔμΔμᵀ)D⁻¹ is the analysis data's
 * mean square about the baseline mean. Per attribute (P S_a P)_aa / (P R_b P)_aa, score
 * tr(P S_a P) / tr(P R_b P): exact from the moments.
 */
function pcaReconstruction(baseline: Summary, analysis: Summary, attributes: readonly string[], components: number | undefined): MetricMap {
  const p = attributes.length;
  const indexes = attributes.map((a) => baseline.indexOf(a));
  const r = checkedMatrix(baseline, indexes, 'correlation');
  const { values, vectors } = symmetricEigen(r);
  const k = components ?? componentsFor(values);
  if (k > p - 1) throw new ExploreInputError(`pca_num_components = ${k} must be at most ${p - 1} (the attributes less one)`);
  const v = k === 0 ? Matrix.zeros(p, 1) : vectors.subMatrix(0, p - 1, 0, k - 1);
  const projector = Matrix.eye(p).sub(v.mmul(v.transpose()));
  const sd = attributes.map((a) => Math.sqrt(baseline.variance(a)));
  const delta = attributes.map((a) => analysis.mean(a) - baseline.mean(a));
  const sa = analysis.covariance(attributes);
  const s = new Matrix(p, p);
  for (let i = 0; i < p; i++) for (let j = 0; j < p; j++) s.set(i, j, (sa.get(i, j) + delta[i] * delta[j]) / (sd[i] * sd[j]));
  const residual = projector.mmul(s).mmul(projector);
  const reference = projector.mmul(r).mmul(projector);
  const perAttribute: MetricMap = {};
  attributes.forEach((a, i) => (perAttribute[`${a}_drift`] = residual.get(i, i) / reference.get(i, i)));
  return { driftScore: residual.trace() / reference.trace(), ...perAttribute };
}

/** The fewest leading components whose eigenvalues reach DRIFT_PCA_VARIANCE of the trace, at most p − 1. */
function componentsFor(values: readonly number[]): number {
  const trace = total(values);
  let kept = 0;
  let sum = 0;
  while (kept < values.length - 1 && sum < DRIFT_PCA_VARIANCE * trace) sum += values[kept++];
  return kept;
}

/**
 * The keys of a drift map that are approximate: a marginal metric of a continuous attribute
 * read from a streaming histogram in either project (its values binned), and then the score.
 */
export function driftApproximateKeys(baseline: DriftSide, analysis: DriftSide, attributes: readonly string[], metric: DriftMetric): string[] {
  if (metric !== 'marginal_stat' && metric !== 'marginal_non_stat') return [];
  const binnedAttribute = (name: string) =>
    !(isBinary(baseline.summary, name) && isBinary(analysis.summary, name)) && [baseline, analysis].some((side) => side.summary.histogram(name)?.mode === 'streaming');
  const keys = attributes.filter(binnedAttribute).flatMap((name) => (metric === 'marginal_stat' ? [`${name}_drift`, `${name}_pvalue`] : [`${name}_drift`]));
  return keys.length > 0 ? ['driftScore', ...keys] : [];
}

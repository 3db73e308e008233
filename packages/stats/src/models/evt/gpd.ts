/**
 * The generalized Pareto distribution of the excesses Y over the initial threshold t
 * (Siffer et al., KDD 2017, §3): P(Y > y) = (1 + γy/σ)^(−1/γ) (exp(−y/σ) when γ = 0).
 */
export interface GpdFit {
  gamma: number;
  /** 0 only when there is no excess to fit. */
  sigma: number;
}

/**
 * Grimshaw's grid points over (0, 1) for the negative side x = −g/Y_max: dense near both ends
 * (near g = 1 the log-likelihood's terms blow up; roots of any g < 1e-6 are exponential fits
 * to rounding, the candidate x = 0 covers them).
 */
const NEGATIVE_GRID: readonly number[] = (() => {
  const g = new Set<number>();
  for (let k = 1; k < 20; k++) g.add(k / 20);
  for (let k = 0; k <= 24; k++) g.add(10 ** (-2 - (4 * k) / 24));
  for (let k = 0; k <= 40; k++) g.add(1 - 10 ** (-2 - (10 * k) / 40));
  return [...g].sort((a, b) => a - b);
})();
/** Points per decade of the geometric grid over the positive interval. */
const POSITIVE_POINTS_PER_DECADE = 12;

/**
 * Maximum-likelihood fit by Grimshaw's method (the paper's §3.3): with x = γ/σ, a stationary
 * point of the likelihood is a root of w(x) = u(x)·v(x) − 1, u(x) = 1 + mean ln(1 + xYᵢ),
 * v(x) = mean 1/(1 + xYᵢ), then γ = u(x) − 1 and σ = γ/x. Roots lie in (−1/Y_M, 0) and in
 * (0, 2(Ȳ − Y_m)/Y_m²] (Grimshaw 1993; the paper's lower bound 2(Ȳ − Y_m)/(Ȳ·Y_m) for the
 * positive side would miss them, README); they are bracketed on a grid and bisected to
 * machine precision. The candidate of largest log-likelihood wins, x = 0 (γ = 0, σ = Ȳ:
 * exponential) included. No excess: γ = σ = 0.
 */
export function grimshaw(peaks: readonly number[]): GpdFit {
  const n = peaks.length;
  if (n === 0) return { gamma: 0, sigma: 0 };
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  for (const y of peaks) {
    min = Math.min(min, y);
    max = Math.max(max, y);
    sum += y;
  }
  const mean = sum / n;
  const w = (x: number) => {
    let logs = 0;
    let inverses = 0;
    for (const y of peaks) {
      logs += Math.log1p(x * y);
      inverses += 1 / (1 + x * y);
    }
    return (1 + logs / n) * (inverses / n) - 1;
  };
  const roots = [
    ...bracketedRoots(w, NEGATIVE_GRID.map((g) => -g / max).reverse()),
    ...(mean > min ? bracketedRoots(w, geometric(NEGATIVE_GRID[0] / max, (2 * (mean - min)) / (min * min))) : []),
  ];
  let best: GpdFit = { gamma: 0, sigma: mean };
  let bestLikelihood = -n * (1 + Math.log(mean));
  for (const x of roots) {
    let logs = 0;
    for (const y of peaks) logs += Math.log1p(x * y);
    const gamma = logs / n;
    const sigma = gamma / x;
    if (gamma === 0 || !(sigma > 0)) continue;
    // Σ ln(1 + γYᵢ/σ) = n·γ at a root, so the log-likelihood is −n·ln σ − n(1 + γ).
    const likelihood = -n * Math.log(sigma) - n * (1 + gamma);
    if (likelihood > bestLikelihood) {
      best = { gamma, sigma };
      bestLikelihood = likelihood;
    }
  }
  return best;
}

/**
 * Method of moments: mean Ȳ and unbiased variance s² of the excesses give
 * γ = (1 − Ȳ²/s²)/2, σ = Ȳ(1 + Ȳ²/s²)/2. Fewer than two excesses or no spread: exponential
 * (γ = 0, σ = Ȳ).
 */
export function momentsFit(peaks: readonly number[]): GpdFit {
  const n = peaks.length;
  if (n === 0) return { gamma: 0, sigma: 0 };
  const mean = peaks.reduce((s, y) => s + y, 0) / n;
  const variance = n < 2 ? 0 : peaks.reduce((s, y) => s + (y - mean) ** 2, 0) / (n - 1);
  if (!(variance > 0)) return { gamma: 0, sigma: mean };
  const ratio = (mean * mean) / variance;
  return { gamma: (1 - ratio) / 2, sigma: (mean * (1 + ratio)) / 2 };
}

/**
 * z_q = t + (σ/γ)((q/ratio)^(−γ) − 1), ratio = N_t/n the fraction of scores above t
 * (γ = 0: t − σ·ln(q/ratio)); expm1 keeps it exact for small |γ|. No excess: t.
 */
export function extremeQuantile(t: number, fit: GpdFit, q: number, ratio: number): number {
  if (fit.sigma === 0 || ratio === 0) return t;
  const r = Math.log(q / ratio);
  return fit.gamma === 0 ? t - fit.sigma * r : t + (fit.sigma * Math.expm1(-fit.gamma * r)) / fit.gamma;
}

/** The estimated P(X > x) for x > t: ratio·(1 + γ(x − t)/σ)^(−1/γ); 0 beyond a bounded tail's end. */
export function tailProbability(x: number, t: number, fit: GpdFit, ratio: number): number {
  if (fit.sigma === 0) return 0;
  const y = x - t;
  if (fit.gamma === 0) return ratio * Math.exp(-y / fit.sigma);
  const base = (fit.gamma * y) / fit.sigma;
  return base <= -1 ? 0 : ratio * Math.exp(-Math.log1p(base) / fit.gamma);
}

function geometric(from: number, to: number): number[] {
  if (!(to > from) || !(from > 0)) return [];
  const ratio = Math.log(to / from);
  const points = Math.max(16, Math.ceil((ratio / Math.LN10) * POSITIVE_POINTS_PER_DECADE) + 1);
  return Array.from({ length: points }, (_, k) => (k === points - 1 ? to : from * Math.exp((ratio * k) / (points - 1))));
}

/** Roots of f between consecutive grid points (ascending) where f changes sign, bisected to machine precision. */
function bracketedRoots(f: (x: number) => number, grid: readonly number[]): number[] {
  const roots: number[] = [];
  let x0 = grid[0];
  let f0 = f(x0);
  for (let k = 1; k < grid.length; k++) {
    const x1 = grid[k];
    const f1 = f(x1);
    if (f0 === 0) roots.push(x0);
    else if ((f0 < 0 && f1 > 0) || (f0 > 0 && f1 < 0)) roots.push(bisect(f, x0, f0, x1));
    x0 = x1;
    f0 = f1;
  }
  if (f0 === 0) roots.push(x0);
  return roots;
}

function bisect(f: (x: number) => number, lo: number, fLo: number, hi: number): number {
  for (let i = 0; i < 200; i++) {
    const mid = lo + (hi - lo) / 2;
    if (mid === lo || mid === hi) break;
    const fMid = f(mid);
    if (fMid === 0) return mid;
    if ((fMid < 0) === (fLo < 0)) {
      lo = mid;
      fLo = fMid;
    } else hi = mid;
  }
  return lo + (hi - lo) / 2;
}

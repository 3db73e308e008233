import { squaredDistance, type WeightedPoints } from './micro-clusters';
import type { Summary } from '../../summary';
import { integerParam, SnapshotModel, type SnapshotState } from '../classifiers/model';
import { num } from '../rows';
import { mulberry32 } from '../selection';
import { type Algorithm, ModelInputError, type ModelSpec } from '../types';
import { as, matrix, readSnapshotState } from '../state-read';

/** Defaults of the kmeans extraParameters. */
export const KMEANS_DEFAULTS = { kmeans_k: 2, rnd_seed: 0, kmeans_n_init: 10, max_iter: 300 };

/** A clustering of weighted points: centers, each point's center, the weighted SSE. */
export interface Clustering {
  centers: Float64Array[];
  labels: number[];
  /** Σ over points of within + weight·‖center − point‖²: the SSE of the rows the points summarize. */
  inertia: number;
  iterations: number;
}

function assign(points: WeightedPoints, centers: Float64Array[]): { labels: number[]; inertia: number } {
  let inertia = 0;
  const labels = points.centers.map((x, i) => {
    let best = 0;
    let bestD = Infinity;
    centers.forEach((c, j) => {
      const d = squaredDistance(x, c);
      if (d < bestD) {
        bestD = d;
        best = j;
      }
    });
    inertia += points.within[i] + points.weights[i] * bestD;
    return best;
  });
  return { labels, inertia };
}

/** Weighted k-means++ (Arthur & Vassilvitskii): each next center drawn with probability ∝ weight·D². */
function kmeansPlusPlus(points: WeightedPoints, k: number, next: () => number): Float64Array[] {
  const { centers: xs, weights } = points;
  const draw = (mass: number[]): number => {
    const total = mass.reduce((a, b) => a + b, 0);
    let u = next() * total;
    for (let i = 0; i < mass.length; i++) {
      u -= mass[i];
      if (u < 0 && mass[i] > 0) return i;
    }
    for (let i = mass.length - 1; i >= 0; i--) if (mass[i] > 0) return i;
    return -1;
  };
  const chosen = [draw(weights)];
  const gap = xs.map((x) => squaredDistance(x, xs[chosen[0]]));
  while (chosen.length < k) {
    const mass = gap.map((g, i) => weights[i] * g);
    const c = mass.some((m) => m > 0) ? draw(mass) : -1;
    if (c < 0) break; // fewer distinct points than k
    chosen.push(c);
    for (let i = 0; i < xs.length; i++) gap[i] = Math.min(gap[i], squaredDistance(xs[i], xs[c]));
  }
  return chosen.map((i) => Float64Array.from(xs[i]));
}

/** Weighted Lloyd iterations from `start` until no point changes center (or maxIter). */
function lloyd(points: WeightedPoints, start: Float64Array[], maxIter: number): Clustering {
  const d = start[0].length;
  let centers = start;
  let { labels, inertia } = assign(points, centers);
  let iterations = 0;
  while (iterations < maxIter) {
    iterations++;
    const sums = centers.map(() => new Float64Array(d));
    const mass = centers.map(() => 0);
    points.centers.forEach((x, i) => {
      const j = labels[i];
      mass[j] += points.weights[i];
      for (let k = 0; k < d; k++) sums[j][k] += points.weights[i] * x[k];
    });
    // An emptied center keeps its place (it may win points back); the centroid of its points otherwise.
    centers = sums.map((s, j) => (mass[j] > 0 ? s.map((v) => v / mass[j]) : centers[j]));
    const next = assign(points, centers);
    const changed = next.labels.some((l, i) => l !== labels[i]);
    labels = next.labels;
    inertia = next.inertia;
    if (!changed) break;
  }
  return { centers, labels, inertia, iterations };
}

/**
 * Weighted k-means on `points`: `nInit` runs of k-means++ then Lloyd, each seeded from a
 * generator seeded with `seed` (deterministic), keeping the run of least inertia (the
 * earliest on ties), as sklearn's KMeans(n_init) on the rows the points summarize.
 */
export function weightedKMeans(points: WeightedPoints, k: number, options: { seed: number; nInit: number; maxIter: number }): Clustering {
  const next = mulberry32(options.seed);
  let best: Clustering | null = null;
  for (let run = 0; run < options.nInit; run++) {
    const result = lloyd(points, kmeansPlusPlus(points, k, next), options.maxIter);
    if (best === null || result.inertia < best.inertia) best = result;
  }
  return best!;
}

/** The micro-centroids of `summary` over the model's inputs: the input names and the points. */
export function clusterInputs(summary: Summary, spec: ModelSpec): { inputNames: string[]; points: WeightedPoints } {
  const clusters = summary.clusters;
  if (!clusters) {
    throw new ModelInputError(`${spec.algo} needs the online micro-centroids of a project created with cluster_features (and optionally cluster_num_centroids, cluster_warmup_period)`);
  }
  const features = clusters.options.features;
  const names = summary.attributeNames;
  const asked = new Set(spec.inputs.map((i) => names[i]));
  for (const name of asked) {
    if (!features.includes(name)) throw new ModelInputError(`${spec.algo}: input attribute [${name}] is not one of the project's cluster_features (${features.join(':')})`);
  }
  // Inputs in cluster_features order, so their order in the request does not matter; none = all.
  const dims = features.map((_, k) => k).filter((k) => asked.size === 0 || asked.has(features[k]));
  const points = clusters.points(dims);
  if (points.centers.length === 0) throw new ModelInputError(`${spec.algo}: no complete row of the cluster_features was learned yet`);
  return { inputNames: dims.map((k) => features[k]), points };
}

/** The k-means options of an MLContext's extraParameters. */
export function kmeansOptions(spec: ModelSpec): { seed: number; nInit: number; maxIter: number } {
  return {
    seed: integerParam(spec, 'rnd_seed', Number.isSafeInteger, 'an integer') ?? KMEANS_DEFAULTS.rnd_seed,
    nInit: integerParam(spec, 'kmeans_n_init', (v) => v >= 1 && v <= 100, 'an integer in [1, 100]') ?? KMEANS_DEFAULTS.kmeans_n_init,
    maxIter: integerParam(spec, 'max_iter', (v) => v >= 1, 'an integer ≥ 1') ?? KMEANS_DEFAULTS.max_iter,
  };
}

interface KmeansState extends SnapshotState {
  centers: number[][];
}

/**
 * `kmeans` (STATS.md §4): weighted k-means++ then weighted Lloyd on the project's online
 * micro-centroids (micro-clusters.ts), each weighted by its row count; k = `kmeans_k` (default 2),
 * `rnd_seed` (0), `kmeans_n_init` runs (10, the least inertia kept), `max_iter` (300).
 * Inputs: a subset of `cluster_features` (none: all of them). Predictions: `cluster`, the
 * index of the nearest center (Euclidean, on the raw values), and `distance` to it.
 * modelInfo `inertia` is the SSE of the learned rows with each micro-cluster's rows
 * assigned together (exact for that assignment).
 */
export const kmeans: Algorithm = {
  name: 'kmeans',
  task: 'other',
  build(summary: Summary, spec: ModelSpec) {
    const { inputNames, points } = clusterInputs(summary, spec);
    const k = integerParam(spec, 'kmeans_k', (v) => v >= 1, 'an integer ≥ 1') ?? KMEANS_DEFAULTS.kmeans_k;
    if (k > points.centers.length) {
      throw new ModelInputError(`kmeans: kmeans_k = ${k} is more than the ${points.centers.length} micro-centroids the project keeps (cluster_num_centroids)`);
    }
    const options = kmeansOptions(spec);
    const result = weightedKMeans(points, k, options);
    const sizes = result.centers.map(() => 0);
    result.labels.forEach((l, i) => (sizes[l] += points.weights[i]));
    const state: KmeansState = {
      algo: 'kmeans',
      inputNames,
      targetNames: [],
      means: inputNames.map((name) => summary.mean(name)),
      info: {
        k: num(k), n: num(points.weights.reduce((a, b) => a + b, 0)), micro_centroids: num(points.centers.length),
        inertia: num(result.inertia), iterations: num(result.iterations), rnd_seed: num(options.seed), kmeans_n_init: num(options.nInit),
      },
      extra: { centers: JSON.stringify(result.centers.map((c) => Array.from(c))), cluster_sizes: JSON.stringify(sizes) },
      centers: result.centers.map((c) => Array.from(c)),
    };
    return kmeansModel(state);
  },
  restore(state) {
    const { s, p } = readSnapshotState(state, 'kmeans');
    matrix(s.centers, 'state.centers', undefined, p);
    return kmeansModel(as<KmeansState>(s));
  },
};

function kmeansModel(state: KmeansState) {
  return new SnapshotModel(state, (x, s) => {
    let best = 0;
    let bestD = Infinity;
    s.centers.forEach((c, j) => {
      const d = squaredDistance(x, c);
      if (d < bestD) {
        bestD = d;
        best = j;
      }
    });
    return { cluster: String(best), distance: num(Math.sqrt(bestD)) };
  }, (s) => s.centers.length * s.inputNames.length);
}

/** The keys of a KmeansScore that are approximate: the silhouette, from the micro-clusters (below). */
export const KMEANS_SCORE_APPROXIMATE = ['silhouette'];

/** One k of kmeansOptimize. */
export interface KmeansScore {
  k: number;
  /** Within-set sum of squared errors of the learned rows (micro-clusters assigned whole). */
  wssse: number;
  /** Mean silhouette with every row at its micro-centroid (see kmeansOptimize). */
  silhouette: number;
}

/**
 * kmeansOptimize (API.md §12): k-means for each k in [kMin, kMax] on the micro-centroids
 * (weightedKMeans), with per k
 * - `wssse`: the SSE of the learned rows when each micro-cluster's rows go to the center its
 *   centroid is nearest to (exact for that assignment; the micro-clusters' own spread counts);
 * - `silhouette`: the mean silhouette (Euclidean) of the rows, approximated from the
 *   micro-clusters: the rows of a micro-cluster share its silhouette, and the mean distance
 *   between a row of micro-cluster i and one of j is taken as the root mean square one,
 *   √(‖cᵢ − cⱼ‖² + σᵢ² + σⱼ²) (σ² = the micro-cluster's mean squared deviation; between two
 *   rows of the same micro-cluster √(2σᵢ²)). Root mean squares are slightly larger than mean
 *   distances, so the approximation errs where micro-clusters are wide; it costs O(m²) for m
 *   micro-centroids, whatever the number of rows.
 * k must be in [2, m − 1].
 */
export function kmeansOptimize(summary: Summary, spec: ModelSpec, kMin: number, kMax: number): KmeansScore[] {
  const { points } = clusterInputs(summary, spec);
  const m = points.centers.length;
  if (kMin < 2 || kMax < kMin || kMax > m - 1) {
    throw new ModelInputError(`kmeansOptimize: the range of k [${kMin}, ${kMax}] must lie in [2, ${m - 1}] (the project keeps ${m} micro-centroids)`);
  }
  const options = kmeansOptions(spec);
  const spread = points.within.map((w, i) => w / points.weights[i]);
  // Computed when needed, not stored: m² numbers would not fit for the largest m.
  const distance = (i: number, j: number) => Math.sqrt((i === j ? 0 : squaredDistance(points.centers[i], points.centers[j])) + spread[i] + spread[j]);
  const out: KmeansScore[] = [];
  for (let k = kMin; k <= kMax; k++) {
    const result = weightedKMeans(points, k, options);
    out.push({ k, wssse: result.inertia, silhouette: weightedSilhouette(distance, points.weights, result.labels, k) });
  }
  return out;
}

/**
 * sklearn's silhouette_score over rows, `weights[i]` of them at point i (labels per point),
 * `distance(i, j)` the mean distance between a row of i and one of j (`distance(i, i)`:
 * between two rows of i).
 */
export function weightedSilhouette(distance: (i: number, j: number) => number, weights: number[], labels: number[], k: number): number {
  const clusterMass = Array.from({ length: k }, () => 0);
  labels.forEach((l, i) => (clusterMass[l] += weights[i]));
  let total = 0;
  let mass = 0;
  for (let i = 0; i < labels.length; i++) {
    const sums = Array.from({ length: k }, () => 0);
    // A row's own cluster holds the other rows of its micro-cluster (weight − 1 of them).
    for (let j = 0; j < labels.length; j++) sums[labels[j]] += (j === i ? weights[j] - 1 : weights[j]) * distance(i, j);
    const own = labels[i];
    mass += weights[i];
    // A row alone in its cluster has silhouette 0 (sklearn).
    if (clusterMass[own] <= 1) continue;
    const a = sums[own] / (clusterMass[own] - 1);
    let b = Infinity;
    for (let c = 0; c < k; c++) if (c !== own && clusterMass[c] > 0) b = Math.min(b, sums[c] / clusterMass[c]);
    const s = Math.max(a, b) > 0 && Number.isFinite(b) ? (b - a) / Math.max(a, b) : 0;
    total += weights[i] * s;
  }
  return mass > 0 ? total / mass : NaN;
}

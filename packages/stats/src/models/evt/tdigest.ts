/** Default compression δ: at most about δ centroids, tails resolved finest. */
export const DEFAULT_TDIGEST_COMPRESSION = 100;

export interface TDigestState {
  compression: number;
  /** Centroids, ascending by mean. */
  means: number[];
  weights: number[];
  /** Values added since the last merge. */
  buffer: number[];
  /** Extremes; null while empty. */
  min: number | null;
  max: number | null;
}

/**
 * A merging t-digest (Dunning & Ertl, "Computing extremely accurate quantiles using
 * t-digests", 2019) with the k₁ scale k(q) = δ/(2π)·asin(2q − 1): values are buffered, then
 * merged with the centroids in one sorted pass that lets a centroid grow while it spans at
 * most one unit of k. Quantiles interpolate linearly between centroid centres, and between
 * the extremes and the outer centres. Its size is bounded by δ, whatever the number of values.
 */
export class TDigest {
  private readonly s: TDigestState;

  constructor(compression = DEFAULT_TDIGEST_COMPRESSION) {
    this.s = { compression, means: [], weights: [], buffer: [], min: null, max: null };
  }

  static restore(state: TDigestState): TDigest {
    const digest = new TDigest(state.compression);
    Object.assign(digest.s, { means: [...state.means], weights: [...state.weights], buffer: [...state.buffer], min: state.min, max: state.max });
    return digest;
  }

  get count(): number {
    return this.s.weights.reduce((a, b) => a + b, 0) + this.s.buffer.length;
  }

  add(x: number): void {
    const s = this.s;
    s.buffer.push(x);
    s.min = s.min === null ? x : Math.min(s.min, x);
    s.max = s.max === null ? x : Math.max(s.max, x);
    if (s.buffer.length >= 5 * s.compression) this.merge();
  }

  /** The p-quantile estimate (0 ≤ p ≤ 1); NaN while empty. */
  quantile(p: number): number {
    this.merge();
    const { means, weights, min, max } = this.s;
    if (means.length === 0 || min === null || max === null) return NaN;
    if (p <= 0) return min;
    if (p >= 1) return max;
    const n = means.length;
    if (n === 1) return means[0];
    const total = weights.reduce((a, b) => a + b, 0);
    const index = p * total;
    if (index < weights[0] / 2) return min + ((means[0] - min) * index) / (weights[0] / 2);
    let before = 0;
    for (let i = 0; i < n - 1; i++) {
      const left = before + weights[i] / 2;
      const right = before + weights[i] + weights[i + 1] / 2;
      if (index <= right) return means[i] + ((means[i + 1] - means[i]) * (index - left)) / (right - left);
      before += weights[i];
    }
    const lastCentre = total - weights[n - 1] / 2;
    return means[n - 1] + ((max - means[n - 1]) * (index - lastCentre)) / (weights[n - 1] / 2);
  }

  state(): TDigestState {
    const s = this.s;
    return { compression: s.compression, means: [...s.means], weights: [...s.weights], buffer: [...s.buffer], min: s.min, max: s.max };
  }

  private merge(): void {
    const s = this.s;
    if (s.buffer.length === 0) return;
    const items: [number, number][] = s.means.map((m, i): [number, number] => [m, s.weights[i]]);
    for (const x of s.buffer) items.push([x, 1]);
    items.sort((a, b) => a[0] - b[0]);
    const total = items.reduce((sum, [, w]) => sum + w, 0);
    const delta = s.compression;
    const k = (q: number) => (delta / (2 * Math.PI)) * Math.asin(2 * Math.min(1, Math.max(0, q)) - 1);
    const qOf = (kk: number) => (kk >= delta / 4 ? 1 : (Math.sin((kk * 2 * Math.PI) / delta) + 1) / 2);
    const means: number[] = [];
    const weights: number[] = [];
    let [mean, weight] = items[0];
    let before = 0;
    let limit = total * qOf(k(0) + 1);
    for (let i = 1; i < items.length; i++) {
      const [m, w] = items[i];
      if (before + weight + w <= limit) {
        weight += w;
        mean += ((m - mean) * w) / weight;
      } else {
        means.push(mean);
        weights.push(weight);
        before += weight;
        limit = total * qOf(k(before / total) + 1);
        [mean, weight] = [m, w];
      }
    }
    means.push(mean);
    weights.push(weight);
    Object.assign(s, { means, weights, buffer: [] });
  }
}

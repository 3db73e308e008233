import type { ByteReader, ByteWriter } from '../../binary';
import { SummaryError } from '../../errors';
import type { ParsedFrame } from '../../frame';
import type { Sign, SummaryPart } from '../../parts';

/**
 * The `cluster_*` create parameters of a project (API.md §4, STATS.md §4 `kmeans`):
 * the attributes clustered (`cluster_features`, C or B columns), how many micro-centroids
 * are kept (`cluster_num_centroids`) and how many rows are buffered before they are seeded
 * (`cluster_warmup_period`, greater than the number of centroids).
 */
export interface ClusterOptions {
  features: string[];
  centroids: number;
  warmup: number;
}

/** Defaults of SymetryML's clustering parameters (`modeling-api.md`, "About Clustering"). */
export const CLUSTER_DEFAULTS = { centroids: 100, warmup: 101 };

/**
 * The largest state the micro-clusters may hold, in numbers: (warm-up rows + 2 × centroids)
 * × features. A project's state must not depend on how many rows it learns (STATS.md §1),
 * and these parameters come from customers: 10⁶ numbers are 8 MB per project.
 */
export const MAX_CLUSTER_CELLS = 1_000_000;

/**
 * A row is absorbed by its nearest micro-cluster when it lies within this many RMS
 * deviations of the micro-cluster's centroid (CluStream's maximal boundary factor t = 2).
 */
export const BOUNDARY_FACTOR = 2;

/** Why `o` is not a valid set of cluster options, or null. */
export function clusterOptionsProblem(o: ClusterOptions): string | null {
  if (!Array.isArray(o.features) || o.features.length === 0) return 'cluster_features must name at least one attribute';
  if (o.features.some((f) => typeof f !== 'string' || f.trim() === '')) return 'cluster_features must be attribute names separated by colons';
  if (new Set(o.features).size !== o.features.length) return 'cluster_features names an attribute twice';
  if (!Number.isSafeInteger(o.centroids) || o.centroids < 1) return 'cluster_num_centroids must be an integer ≥ 1';
  if (!Number.isSafeInteger(o.warmup) || o.warmup <= o.centroids) return 'cluster_warmup_period must be an integer greater than cluster_num_centroids';
  const cells = (o.warmup + 2 * o.centroids) * o.features.length;
  if (cells > MAX_CLUSTER_CELLS) {
    return `(cluster_warmup_period + 2 × cluster_num_centroids) × features = ${cells} is over the limit of ${MAX_CLUSTER_CELLS} numbers of clustering state`;
  }
  return null;
}

/** The clustering options of the project parameters `cluster_*`, or null when cluster_features is absent. */
export function clusterOptionsOf(params: Readonly<Record<string, string>>): ClusterOptions | null {
  const features = params.cluster_features?.trim();
  if (!features) return null;
  return {
    features: features.split(':').map((f) => f.trim()),
    centroids: Number(params.cluster_num_centroids ?? CLUSTER_DEFAULTS.centroids),
    warmup: Number(params.cluster_warmup_period ?? CLUSTER_DEFAULTS.warmup),
  };
}

/** Weighted points for k-means: micro-centroids, each the mean of `weight` rows. */
export interface WeightedPoints {
  /** Centroid of each point (its rows' mean), over the requested dimensions. */
  centers: Float64Array[];
  /** Rows summarized by each point. */
  weights: number[];
  /** Σ‖x − centroid‖² over each point's rows (0 for a buffered row). */
  within: number[];
}

/**
 * The online micro-cluster summary of a project (STATS.md §1 "online models"), CluStream
 * style: per micro-cluster the row count n, the linear sum LS and the sum of squares SS of
 * each feature, so its centroid is LS/n and its RMS deviation √(ΣSS/n − ‖LS/n‖²).
 *
 * Learning, row by row in learn order (so the state does not depend on how rows were cut
 * into frames; a row with a missing feature is skipped):
 * - the first `warmup` rows are buffered; when the buffer is full it is **seeded**: seeds are
 *   chosen by farthest-first traversal from the first buffered row (each next seed is the
 *   row farthest from the seeds so far, the earliest on ties), at most `centroids` of them,
 *   and each buffered row joins its nearest seed (the earliest on ties); seeds left with no
 *   row are dropped. No randomness is involved.
 * - afterwards a row x joins its nearest micro-cluster (the earliest on ties) when its
 *   distance is at most t = 2 RMS deviations of that micro-cluster — or, for a micro-cluster
 *   of one row (or of identical rows), at most the distance to the nearest other
 *   micro-centroid. Otherwise x starts a micro-cluster of its own: appended while fewer than
 *   `centroids` exist, else the two closest micro-centroids (the lexicographically first pair
 *   on ties) are merged into the first one's slot and x takes the second's.
 * So the state is a deterministic function of the rows in learn order: snapshot + replay of
 * the learn log gives the identical state, bit for bit.
 *
 * Bounded: at most `warmup` buffered rows, then at most `centroids` micro-clusters, each of
 * 2·d + 1 numbers (clusterOptionsProblem caps the total).
 *
 * Merge (merging projects, data-source learns): when both sides are still warming up,
 * the other's buffered rows are appended to this one's, as if learned after them (seeding
 * when the buffer fills, the rest learned online): the same as learning them in that order.
 * Otherwise every buffered row becomes a micro-cluster of one row, the other's
 * micro-clusters are appended to this one's, and the two closest are merged until at most
 * `centroids` remain: a mergeable approximation, not the state learning all rows would give.
 *
 * Forget does not apply: micro-clusters cannot tell which rows they absorbed, so forget
 * and subtract leave them unchanged (documented in STATS.md / README).
 */
/** The micro-clusters' state as MicroClusters.detach gives it. */
export interface ClusterParts {
  seeded: boolean;
  buffer: number[][];
  n: number[];
  ls: Float64Array[];
  ss: Float64Array[];
}

export class MicroClusters implements SummaryPart<MicroClusters> {
  readonly dims: number;
  /** Buffered rows (warm-up), d numbers each; empty once seeded. */
  private buffer: number[][] = [];
  private seeded = false;
  private n: number[] = [];
  private ls: Float64Array[] = [];
  private ss: Float64Array[] = [];

  constructor(readonly options: ClusterOptions) {
    this.dims = options.features.length;
  }

  /** Whether the state is out (detach) and not yet back (attach): see MondrianForest.detach. */
  private away = false;

  /**
   * Hands the state out as plain data (the sums' arrays not copied, so they can be transferred
   * to a worker thread): until attach() gives it back, the micro-clusters may not be read or changed.
   */
  detach(): ClusterParts {
    this.here();
    this.away = true;
    return { seeded: this.seeded, buffer: this.buffer, n: this.n, ls: this.ls, ss: this.ss };
  }

  /** Takes back the state detach() gave (updated on another thread, or as it was). */
  attach(parts: ClusterParts): void {
    this.away = false;
    this.seeded = parts.seeded;
    this.buffer = parts.buffer;
    this.n = parts.n;
    this.ls = parts.ls;
    this.ss = parts.ss;
  }

  private here(): void {
    if (this.away) throw new Error('the micro-clusters are being updated on another thread: wait for their update before reading them');
  }

  /** Whether the warm-up is over. */
  get isSeeded(): boolean {
    this.here();
    return this.seeded;
  }

  /** Micro-clusters kept (0 during warm-up). */
  get size(): number {
    this.here();
    return this.n.length;
  }

  /** Rows the micro-clusters (or the warm-up buffer) summarize. */
  get rowCount(): number {
    this.here();
    return this.seeded ? this.n.reduce((a, b) => a + b, 0) : this.buffer.length;
  }

  /**
   * Learns the rows of a frame, in order; rows missing a feature (or lacking its column) are
   * skipped. Forget (sign -1) does not apply (see the class comment).
   */
  learn(parsed: Pick<ParsedFrame, 'numeric'>, sign: Sign): void {
    this.here();
    if (sign === -1) return;
    const columns = this.options.features.map((f) => parsed.numeric.find((c) => c.name === f)?.values);
    if (columns.some((c) => c === undefined)) return;
    const rows = columns[0]!.length;
    for (let r = 0; r < rows; r++) {
      const x = columns.map((c) => c![r]);
      if (x.some((v) => Number.isNaN(v))) continue;
      this.learnRow(x);
    }
  }

  /** Learns one complete row (d finite numbers). */
  learnRow(x: readonly number[]): void {
    if (!this.seeded) {
      this.buffer.push([...x]);
      if (this.buffer.length >= this.options.warmup) this.seed();
      return;
    }
    const nearest = this.nearest(x);
    if (nearest.distance <= this.boundary(nearest.index)) {
      this.absorb(nearest.index, x);
      return;
    }
    if (this.n.length < this.options.centroids) {
      this.push(1, Float64Array.from(x), Float64Array.from(x, (v) => v * v));
      return;
    }
    const [a, b] = this.closestPair();
    this.mergeInto(a, b);
    this.n[b] = 1;
    this.ls[b] = Float64Array.from(x);
    this.ss[b] = Float64Array.from(x, (v) => v * v);
  }

  /** Adds another summary's micro-clusters (see the class comment for the rule); subtracting (sign -1) does not apply. */
  merge(other: MicroClusters, sign: Sign): void {
    this.here();
    if (sign === -1) return;
    if (!this.seeded && !other.seeded) {
      for (const x of other.buffer) this.learnRow(x);
      return;
    }
    this.bufferToSingletons();
    // Summary.merge never passes this summary itself (it merges a clone).
    const o = other;
    for (const x of o.buffer) this.push(1, Float64Array.from(x), Float64Array.from(x, (v) => v * v));
    for (let i = 0, size = o.n.length; i < size; i++) this.push(o.n[i], Float64Array.from(o.ls[i]), Float64Array.from(o.ss[i]));
    this.seeded = true;
    while (this.n.length > this.options.centroids) {
      const [a, b] = this.closestPair();
      this.mergeInto(a, b);
      this.remove(b);
    }
  }

  /** Nothing can fail: merge and subtraction are approximate or do not apply. */
  checkMerge(): void {}

  /**
   * The micro-centroids as weighted points over the feature positions `dims` (all when
   * omitted); during warm-up, the buffered rows with weight 1.
   */
  points(dims?: readonly number[]): WeightedPoints {
    this.here();
    const use = dims ?? this.options.features.map((_, k) => k);
    if (!this.seeded) {
      return { centers: this.buffer.map((x) => Float64Array.from(use, (k) => x[k])), weights: this.buffer.map(() => 1), within: this.buffer.map(() => 0) };
    }
    const centers = this.n.map((n, i) => Float64Array.from(use, (k) => this.ls[i][k] / n));
    const within = this.n.map((n, i) => {
      let s = 0;
      for (const k of use) s += this.ss[i][k] - (this.ls[i][k] * this.ls[i][k]) / n;
      return Math.max(0, s);
    });
    return { centers, weights: [...this.n], within };
  }

  write(w: ByteWriter): void {
    this.here();
    w.u8(this.seeded ? 1 : 0);
    w.u32(this.buffer.length);
    for (const x of this.buffer) w.f64s(Float64Array.from(x));
    w.u32(this.n.length);
    for (let i = 0; i < this.n.length; i++) {
      w.f64(this.n[i]);
      w.f64s(this.ls[i]);
      w.f64s(this.ss[i]);
    }
  }

  /** Reads what write() wrote, checking the bounds before allocating. */
  read(r: ByteReader): void {
    const bad = (what: string) => new SummaryError('damaged', `damaged summary serialization: micro-clusters (${what})`);
    const flag = r.u8();
    if (flag > 1) throw bad('flag');
    this.seeded = flag === 1;
    const buffered = r.u32();
    if (buffered >= this.options.warmup || (this.seeded && buffered > 0)) throw bad('buffer size');
    const vector = () => {
      const v = r.f64s();
      if (v.length !== this.dims) throw bad('dimension');
      if (!v.every(Number.isFinite)) throw bad('a number is not finite');
      return v;
    };
    this.buffer = Array.from({ length: buffered }, () => Array.from(vector()));
    const size = r.u32();
    if (size > this.options.centroids || (!this.seeded && size > 0)) throw bad('count');
    this.n = [];
    this.ls = [];
    this.ss = [];
    for (let i = 0; i < size; i++) {
      const n = r.f64();
      if (!(n >= 1 && n <= Number.MAX_SAFE_INTEGER)) throw bad('row count');
      this.push(n, vector(), vector());
    }
  }

  // ---- internals ----

  private push(n: number, ls: Float64Array, ss: Float64Array): void {
    this.n.push(n);
    this.ls.push(ls);
    this.ss.push(ss);
  }

  private remove(i: number): void {
    this.n.splice(i, 1);
    this.ls.splice(i, 1);
    this.ss.splice(i, 1);
  }

  private absorb(i: number, x: readonly number[]): void {
    this.n[i] += 1;
    const ls = this.ls[i];
    const ss = this.ss[i];
    for (let k = 0; k < this.dims; k++) {
      ls[k] += x[k];
      ss[k] += x[k] * x[k];
    }
  }

  /** Adds micro-cluster b's sums to a's (b's slot is then reused or removed by the caller). */
  private mergeInto(a: number, b: number): void {
    this.n[a] += this.n[b];
    for (let k = 0; k < this.dims; k++) {
      this.ls[a][k] += this.ls[b][k];
      this.ss[a][k] += this.ss[b][k];
    }
  }

  private centroid(i: number): Float64Array {
    const n = this.n[i];
    return this.ls[i].map((v) => v / n);
  }

  private nearest(x: ArrayLike<number>, skip = -1): { index: number; distance: number } {
    let index = -1;
    let best = Infinity;
    for (let i = 0; i < this.n.length; i++) {
      if (i === skip) continue;
      const n = this.n[i];
      const ls = this.ls[i];
      let d = 0;
      for (let k = 0; k < this.dims; k++) {
        const e = x[k] - ls[k] / n;
        d += e * e;
      }
      if (d < best) {
        best = d;
        index = i;
      }
    }
    return { index, distance: Math.sqrt(best) };
  }

  /** How far from micro-cluster i's centroid a row may lie and still join it. */
  private boundary(i: number): number {
    const n = this.n[i];
    let s = 0;
    for (let k = 0; k < this.dims; k++) {
      const mean = this.ls[i][k] / n;
      s += this.ss[i][k] / n - mean * mean;
    }
    const rms = Math.sqrt(Math.max(0, s));
    if (n >= 2 && rms > 0) return BOUNDARY_FACTOR * rms;
    return this.nearest(this.centroid(i), i).distance;
  }

  /** The two closest micro-centroids, the lexicographically first pair (a < b) on ties. */
  private closestPair(): [number, number] {
    const centroids = this.n.map((_, i) => this.centroid(i));
    let best = Infinity;
    let pair: [number, number] = [0, 1];
    for (let a = 0; a < centroids.length; a++) {
      for (let b = a + 1; b < centroids.length; b++) {
        const d = squaredDistance(centroids[a], centroids[b]);
        if (d < best) {
          best = d;
          pair = [a, b];
        }
      }
    }
    return pair;
  }

  /** Farthest-first seeds among the buffered rows, then each buffered row joins its nearest seed. */
  private seed(): void {
    const rows = this.buffer;
    const seeds: number[] = [0];
    const gap = rows.map((x) => squaredDistance(x, rows[0]));
    while (seeds.length < this.options.centroids) {
      let far = -1;
      for (let r = 0; r < rows.length; r++) if (far < 0 || gap[r] > gap[far]) far = r;
      if (gap[far] === 0) break; // every row equals a seed
      seeds.push(far);
      for (let r = 0; r < rows.length; r++) gap[r] = Math.min(gap[r], squaredDistance(rows[r], rows[far]));
    }
    const zeros = () => new Float64Array(this.dims);
    const n = seeds.map(() => 0);
    const ls = seeds.map(zeros);
    const ss = seeds.map(zeros);
    for (const x of rows) {
      let best = 0;
      let bestD = Infinity;
      seeds.forEach((s, j) => {
        const d = squaredDistance(x, rows[s]);
        if (d < bestD) {
          bestD = d;
          best = j;
        }
      });
      n[best]++;
      for (let k = 0; k < this.dims; k++) {
        ls[best][k] += x[k];
        ss[best][k] += x[k] * x[k];
      }
    }
    this.buffer = [];
    this.seeded = true;
    seeds.forEach((_, j) => {
      if (n[j] > 0) this.push(n[j], ls[j], ss[j]);
    });
  }

  private bufferToSingletons(): void {
    if (this.seeded) return;
    for (const x of this.buffer) this.push(1, Float64Array.from(x), Float64Array.from(x, (v) => v * v));
    this.buffer = [];
    this.seeded = true;
  }
}

export function squaredDistance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let d = 0;
  for (let k = 0; k < a.length; k++) {
    const e = a[k] - b[k];
    d += e * e;
  }
  return d;
}

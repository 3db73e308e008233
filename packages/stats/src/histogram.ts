import type { ByteReader, ByteWriter } from './binary';
import { SummaryError } from './errors';
import { INDEX_LIMIT } from './kernels/histogram';
import { kernels } from './kernels/select';
import type { Sign, SummaryPart } from './parts';

/**
 * Per-attribute histograms (STATS.md §1). Missing cells are not in a histogram: the
 * summary derives an attribute's missing count as rowCount − count.
 */
export type HistogramMode = 'streaming' | 'exact';
export const DEFAULT_HISTOGRAM_BINS = 256;
export const DEFAULT_EXACT_HISTOGRAM_CAP = 10_000;

export interface HistogramBin {
  /** Inclusive lower edge (the value itself for an exact histogram). */
  readonly lower: number;
  /** Exclusive upper edge (the value itself for an exact histogram). */
  readonly upper: number;
  readonly count: number;
}

const MIN_EXPONENT = -1074;
/** Slots of a streaming histogram's window before it first grows. */
const INITIAL_WINDOW = 8;

/** The smallest bin-width exponent at which `value`'s bin index is below INDEX_LIMIT. */
function exponentFor(value: number): number {
  const a = Math.abs(value);
  if (a === 0) return MIN_EXPONENT;
  // Math.log2 may be off by one; start below the answer and step up to the smallest exponent.
  let e = Math.max(MIN_EXPONENT, Math.floor(Math.log2(a)) - 54);
  while (a / 2 ** e >= INDEX_LIMIT) e++;
  return e;
}

/** The bin of `value` at exponent e. A quotient that underflows to −0 belongs to bin −1, not 0. */
function binOf(value: number, e: number): number {
  const q = value / 2 ** e;
  return q === 0 && value < 0 ? -1 : Math.floor(q);
}

/** floor(k / 2^m) in steps, since 2^m overflows for m > 1023 (nested floors compose exactly). */
function coarser(k: number, m: number): number {
  while (m > 1000) {
    k = Math.floor(k / 2 ** 1000);
    m -= 1000;
  }
  return Math.floor(k / 2 ** m);
}

/**
 * At most `bins` occupied bins of width w = 2^exponent on the grid anchored at 0 (bin k is
 * [k·w, (k+1)·w)), with exact integer counts. A value outside the span doubles the width
 * (merging bins pairwise) until everything fits. The width is always the smallest power of
 * two at which the values ever held fit, so it depends on the data, not on the order or
 * chunking of learning: histograms of the same values are identical, and two histograms
 * merge or subtract exactly after widening to the larger width. Widths never shrink, so
 * after a subtraction the grid may be coarser than the remaining values need.
 */
class StreamingHistogram {
  private exponentValue = MIN_EXPONENT;
  /** 2^exponentValue, cached: add() runs per learned cell and Math.pow is not free. */
  private binWidth = 2 ** MIN_EXPONENT;
  /**
   * Absolute bin index of counts[0]. The window starts small and doubles (up to 2·bins slots)
   * when a bin falls outside it, so a histogram of few distinct bins (a binary attribute, a
   * sparse conditional histogram) stays small.
   */
  private lo = 0;
  private counts: Float64Array;
  private kmin = Infinity;
  private kmax = -Infinity;
  private totalCount = 0;

  constructor(readonly bins: number) {
    this.counts = new Float64Array(Math.min(2 * bins, INITIAL_WINDOW));
  }

  get exponent(): number {
    return this.exponentValue;
  }

  get width(): number {
    return 2 ** this.exponentValue;
  }

  get total(): number {
    return this.totalCount;
  }

  private get isEmpty(): boolean {
    return this.kmin > this.kmax;
  }

  add(value: number, count = 1): void {
    if (count === 0) return;
    const q = value / this.binWidth;
    const k = q === 0 && value < 0 ? -1 : Math.floor(q);
    const fits = k > -INDEX_LIMIT && k < INDEX_LIMIT && (this.isEmpty || (k > this.kmax - this.bins && k < this.kmin + this.bins));
    if (fits) return this.bump(k, count);
    const e = Math.max(this.exponentValue, exponentFor(value));
    const at = binOf(value, e);
    this.regrid(this.fittingExponent(e, at, at));
    this.bump(binOf(value, this.exponentValue), count);
  }

  /**
   * add(v) for every present value (NaN = missing) among values[rows[t]] (values[t] when rows
   * is null), t < count, with the same result: values whose bin is already inside the window
   * and the span are counted in a tight loop; any other value goes through add().
   */
  addColumn(values: Float64Array, rows: Int32Array | null, count: number): void {
    let t = 0;
    while (t < count) {
      if (this.kmin <= this.kmax) {
        // The values whose bin already fits, in the histogram kernel (kernels/histogram.ts).
        const state = Float64Array.of(this.binWidth, this.lo, this.bins, this.kmin, this.kmax, 0);
        t = kernels().histogram.binColumn(values, rows, t, count, this.counts, state);
        this.kmin = state[3];
        this.kmax = state[4];
        this.totalCount += state[5];
      }
      // The value that stopped the loop (or the first one when empty): the general way.
      for (; t < count; t++) {
        const v = values[rows === null ? t : rows[t]];
        if (v !== v) continue;
        this.add(v);
        t++;
        break;
      }
    }
  }

  merge(other: StreamingHistogram): void {
    const e = Math.max(this.exponentValue, other.exponentValue);
    const m = e - other.exponentValue;
    const low = other.isEmpty ? Infinity : coarser(other.kmin, m);
    const high = other.isEmpty ? -Infinity : coarser(other.kmax, m);
    this.regrid(this.fittingExponent(e, low, high));
    for (const [k, c] of other.entries()) this.bump(coarser(k, this.exponentValue - other.exponentValue), c);
  }

  /** This histogram minus `other`, on the wider of the two grids; throws if a bin would go negative. */
  difference(other: StreamingHistogram): StreamingHistogram {
    const out = this.clone();
    out.regrid(Math.max(this.exponentValue, other.exponentValue));
    for (const [k, c] of other.entries()) {
      const bin = coarser(k, out.exponentValue - other.exponentValue);
      const slot = bin - out.lo;
      if (out.isEmpty || bin < out.kmin || bin > out.kmax || out.counts[slot] < c) {
        throw new SummaryError('not-learned', 'cannot forget values that were never learned: a histogram bin would become negative');
      }
      out.counts[slot] -= c;
      out.totalCount -= c;
    }
    out.shrinkSpan();
    return out;
  }

  /** Same counts once both are on the wider grid. */
  equals(other: StreamingHistogram): boolean {
    const e = Math.max(this.exponentValue, other.exponentValue);
    const a = new Map<number, number>();
    for (const [k, c] of this.entries()) a.set(coarser(k, e - this.exponentValue), (a.get(coarser(k, e - this.exponentValue)) ?? 0) + c);
    const b = new Map<number, number>();
    for (const [k, c] of other.entries()) b.set(coarser(k, e - other.exponentValue), (b.get(coarser(k, e - other.exponentValue)) ?? 0) + c);
    return a.size === b.size && [...a].every(([k, c]) => b.get(k) === c);
  }

  clone(): StreamingHistogram {
    const out = new StreamingHistogram(this.bins);
    out.exponentValue = this.exponentValue;
    out.binWidth = this.binWidth;
    out.lo = this.lo;
    out.counts = this.counts.slice();
    out.kmin = this.kmin;
    out.kmax = this.kmax;
    out.totalCount = this.totalCount;
    return out;
  }

  /** Occupied bins as [absolute index, count], ascending. */
  *entries(): IterableIterator<[number, number]> {
    for (let k = this.kmin; k <= this.kmax; k++) {
      const c = this.counts[k - this.lo];
      if (c !== 0) yield [k, c];
    }
  }

  toBins(): HistogramBin[] {
    const w = this.width;
    return [...this.entries()].map(([k, count]) => ({ lower: k * w, upper: (k + 1) * w, count }));
  }

  /** The r-th smallest value (0-based), interpolated inside its bin: within one bin width. */
  orderStatistic(r: number): number {
    let before = 0;
    for (const [k, c] of this.entries()) {
      if (r < before + c) return (k + (r - before + 0.5) / c) * this.width;
      before += c;
    }
    return NaN;
  }

  /** The smallest widening, from `e` up, at which the occupied span plus [low, high] (indexes at `e`) fits. */
  private fittingExponent(e: number, low: number, high: number): number {
    if (!this.isEmpty) {
      const m = e - this.exponentValue;
      low = Math.min(low, coarser(this.kmin, m));
      high = Math.max(high, coarser(this.kmax, m));
    }
    while (high - low + 1 > this.bins) {
      e++;
      low = Math.floor(low / 2);
      high = Math.floor(high / 2);
    }
    return e;
  }

  /** Moves the counts to the coarser grid of exponent `e` (merging bins), re-centring the window. */
  private regrid(e: number): void {
    const m = e - this.exponentValue;
    if (m === 0) return;
    this.exponentValue = e;
    this.binWidth = 2 ** e;
    if (this.isEmpty) return;
    const kmin = coarser(this.kmin, m);
    const kmax = coarser(this.kmax, m);
    const lo = kmin - Math.floor((this.counts.length - (kmax - kmin + 1)) / 2);
    const next = new Float64Array(this.counts.length);
    for (let k = this.kmin; k <= this.kmax; k++) {
      const c = this.counts[k - this.lo];
      if (c !== 0) next[coarser(k, m) - lo] += c;
    }
    this.counts = next;
    this.lo = lo;
    this.kmin = kmin;
    this.kmax = kmax;
  }

  /** Adds `count` to bin k, which is known to fit in the span. */
  private bump(k: number, count: number): void {
    if (this.isEmpty) {
      this.counts.fill(0);
      this.lo = k - (this.counts.length >> 1);
    } else if (k < this.lo || k >= this.lo + this.counts.length) {
      const low = Math.min(this.kmin, k);
      const high = Math.max(this.kmax, k);
      // The span fits in bins slots (the caller widened the grid); leave room on both sides.
      let size = this.counts.length;
      while (size < 2 * (high - low + 1) && size < 2 * this.bins) size *= 2;
      size = Math.min(size, 2 * this.bins);
      const lo = low - Math.floor((size - (high - low + 1)) / 2);
      const next = new Float64Array(size);
      for (let j = this.kmin; j <= this.kmax; j++) next[j - lo] = this.counts[j - this.lo];
      this.counts = next;
      this.lo = lo;
    }
    this.counts[k - this.lo] += count;
    this.totalCount += count;
    this.kmin = Math.min(this.kmin, k);
    this.kmax = Math.max(this.kmax, k);
  }

  /** Re-derives the occupied span after bins were emptied. */
  private shrinkSpan(): void {
    let kmin = Infinity;
    let kmax = -Infinity;
    for (let k = this.kmin; k <= this.kmax; k++) {
      if (this.counts[k - this.lo] !== 0) {
        kmin = Math.min(kmin, k);
        kmax = k;
      }
    }
    this.kmin = kmin;
    this.kmax = kmax;
  }

  write(w: ByteWriter): void {
    w.i32(this.exponentValue);
    w.f64(this.isEmpty ? 0 : this.kmin);
    w.f64s(this.isEmpty ? new Float64Array(0) : this.counts.slice(this.kmin - this.lo, this.kmax - this.lo + 1));
  }

  static read(r: ByteReader, bins: number): StreamingHistogram {
    const out = new StreamingHistogram(bins);
    out.exponentValue = r.i32();
    out.binWidth = 2 ** out.exponentValue;
    const kmin = r.f64();
    const counts = r.f64s();
    if (counts.length > bins) throw new SummaryError('damaged', 'damaged summary serialization: histogram wider than its bin count');
    counts.forEach((c, i) => {
      if (c !== 0) out.bump(kmin + i, c);
    });
    return out;
  }
}

/**
 * One attribute's histogram. `exact` keeps value → count until more than `cap` distinct
 * values, then degrades for good to `streaming` (which gives the same histogram as learning
 * the values in streaming mode from the start).
 */
export class Histogram implements SummaryPart<Histogram, Float64Array> {
  private exact: Map<number, number> | null;
  private streaming: StreamingHistogram | null;

  constructor(
    mode: HistogramMode,
    readonly bins = DEFAULT_HISTOGRAM_BINS,
    readonly cap = DEFAULT_EXACT_HISTOGRAM_CAP,
  ) {
    this.exact = mode === 'exact' ? new Map() : null;
    this.streaming = mode === 'streaming' ? new StreamingHistogram(bins) : null;
  }

  /** `exact` until degraded. */
  get mode(): HistogramMode {
    return this.exact !== null ? 'exact' : 'streaming';
  }

  /** Bin width of a streaming histogram (0 while exact). */
  get width(): number {
    return this.streaming?.width ?? 0;
  }

  get count(): number {
    if (this.streaming !== null) return this.streaming.total;
    let n = 0;
    for (const c of this.exact!.values()) n += c;
    return n;
  }

  add(value: number, count = 1): void {
    if (count === 0) return;
    if (this.streaming !== null) return this.streaming.add(value, count);
    const exact = this.exact!;
    exact.set(value, (exact.get(value) ?? 0) + count);
    if (exact.size > this.cap) this.degrade();
  }

  /** add(v) for every present value (NaN = missing) among values[rows[t]] (values[t] when rows is null), t < count. */
  addColumn(values: Float64Array, rows: Int32Array | null, count: number): void {
    if (this.streaming !== null) return this.streaming.addColumn(values, rows, count);
    for (let t = 0; t < count; t++) {
      const v = values[rows === null ? t : rows[t]];
      if (v === v) this.add(v);
    }
  }

  /** learn(values, -1) removes the present values: throws SummaryError and changes nothing if one was never learned. */
  learn(values: Float64Array, sign: Sign): void {
    const added = sign === 1 ? this : new Histogram(this.mode, this.bins, this.cap);
    added.addColumn(values, null, values.length);
    if (sign === -1) this.merge(added, -1);
  }

  merge(other: Histogram, sign: Sign): void {
    if (sign === -1) return this.remove(other);
    if (this.exact !== null && other.exact !== null) {
      for (const [v, c] of other.exact) this.exact.set(v, (this.exact.get(v) ?? 0) + c);
      if (this.exact.size > this.cap) this.degrade();
      return;
    }
    this.degrade();
    this.streaming!.merge(other.asStreaming());
  }

  checkMerge(other: Histogram, sign: Sign): void {
    if (sign === 1) return;
    if (this.exact !== null && other.exact !== null) {
      for (const [v, c] of other.exact) {
        if ((this.exact.get(v) ?? 0) < c) throw new SummaryError('not-learned', `cannot forget values that were never learned: value ${v} would have a negative count`);
      }
      return;
    }
    this.asStreaming().difference(other.asStreaming());
  }

  /**
   * merge(other, -1). Two exact histograms subtract in place once checked (a summary's forget
   * removes from every attribute: no copy of maps of up to `cap` values); otherwise on the
   * streaming grid, through a new histogram, so a failure changes nothing.
   */
  private remove(other: Histogram): void {
    if (this.exact !== null && other.exact !== null) {
      this.checkMerge(other, -1);
      for (const [v, c] of other.exact) {
        const left = this.exact.get(v)! - c;
        if (left === 0) this.exact.delete(v);
        else this.exact.set(v, left);
      }
      return;
    }
    this.streaming = this.asStreaming().difference(other.asStreaming());
    this.exact = null;
  }

  clone(): Histogram {
    const out = new Histogram(this.mode, this.bins, this.cap);
    out.exact = this.exact && new Map(this.exact);
    out.streaming = this.streaming && this.streaming.clone();
    return out;
  }

  /**
   * A streaming copy: an exact histogram's values binned on the grid learning them in streaming
   * mode would give (the bins a federation may share instead of the values themselves).
   */
  streamingCopy(): Histogram {
    const out = new Histogram('streaming', this.bins, this.cap);
    out.streaming = this.streaming !== null ? this.streaming.clone() : this.asStreaming();
    return out;
  }

  /** Same counts (streaming: once both are on the wider grid; exact vs streaming: as streaming). */
  equals(other: Histogram): boolean {
    if (this.exact !== null && other.exact !== null) {
      return this.exact.size === other.exact.size && [...this.exact].every(([v, c]) => other.exact!.get(v) === c);
    }
    return this.asStreaming().equals(other.asStreaming());
  }

  /** Exact: the values; streaming: the occupied bins. Ascending. */
  toBins(): HistogramBin[] {
    if (this.streaming !== null) return this.streaming.toBins();
    return [...this.exact!]
      .sort((a, b) => a[0] - b[0])
      .map(([v, count]) => ({ lower: v, upper: v, count }));
  }

  /** Exact: the smallest value; streaming: the lower edge of the lowest occupied bin. NaN when empty. */
  min(): number {
    const bins = this.toBins();
    return bins.length === 0 ? NaN : bins[0].lower;
  }

  /** Exact: the largest value; streaming: the upper edge of the highest occupied bin. NaN when empty. */
  max(): number {
    const bins = this.toBins();
    return bins.length === 0 ? NaN : bins[bins.length - 1].upper;
  }

  /** numpy's default (linear) quantile; exact for exact histograms, within one bin width for streaming. */
  quantile(q: number): number {
    const n = this.count;
    if (n === 0) return NaN;
    const h = (n - 1) * q;
    const below = this.orderStatistic(Math.floor(h));
    const above = this.orderStatistic(Math.ceil(h));
    return below + (h - Math.floor(h)) * (above - below);
  }

  median(): number {
    return this.quantile(0.5);
  }

  /**
   * Counts in `bins` equal-width bins over [lower, upper], the last bin closed (STATS.md §3,
   * densityEstimate). A streaming bin counts where its midpoint falls (clamped into the range).
   */
  density(bins: number, range: readonly [lower: number, upper: number]): number[] {
    const [lower, upper] = range;
    const out = new Array<number>(bins).fill(0);
    const width = (upper - lower) / bins;
    const binOf = (v: number) => (width > 0 ? Math.min(bins - 1, Math.floor((v - lower) / width)) : 0);
    for (const bin of this.toBins()) {
      if (this.streaming === null ? bin.lower < lower || bin.lower > upper : bin.upper <= lower || bin.lower > upper) continue;
      const at = this.streaming === null ? bin.lower : Math.min(upper, Math.max(lower, (bin.lower + bin.upper) / 2));
      out[binOf(at)] += bin.count;
    }
    return out;
  }

  private orderStatistic(r: number): number {
    if (this.streaming !== null) return this.streaming.orderStatistic(r);
    let before = 0;
    for (const bin of this.toBins()) {
      before += bin.count;
      if (r < before) return bin.lower;
    }
    return NaN;
  }

  private degrade(): void {
    if (this.streaming !== null) return;
    this.streaming = this.asStreaming();
    this.exact = null;
  }

  private asStreaming(): StreamingHistogram {
    if (this.streaming !== null) return this.streaming;
    const out = new StreamingHistogram(this.bins);
    for (const [v, c] of this.exact!) out.add(v, c);
    return out;
  }

  write(w: ByteWriter): void {
    if (this.streaming !== null) {
      w.u8(1);
      this.streaming.write(w);
      return;
    }
    w.u8(0);
    const values = this.toBins();
    w.f64s(Float64Array.from(values, (b) => b.lower));
    w.f64s(Float64Array.from(values, (b) => b.count));
  }

  /** Reads what write() wrote; the bytes say whether it is exact or streaming. */
  read(r: ByteReader): void {
    if (r.u8() === 1) {
      this.exact = null;
      this.streaming = StreamingHistogram.read(r, this.bins);
      return;
    }
    const values = r.f64s();
    const counts = r.f64s();
    if (values.length !== counts.length) throw new SummaryError('damaged', 'damaged summary serialization: exact histogram');
    this.streaming = null;
    this.exact = new Map();
    values.forEach((v, i) => this.exact!.set(v, counts[i]));
  }

  /** A histogram as write() wrote it, with the summary's bin count and cap. */
  static read(r: ByteReader, bins: number, cap: number): Histogram {
    const out = new Histogram('exact', bins, cap);
    out.read(r);
    return out;
  }
}

import { ByteReader, ByteWriter } from './binary';
import { compensatedValue } from './compensated';
import { ConditionalHistograms } from './conditional';
import { CapacityError, FrameError, SummaryError } from './errors';
import type { ParsedFrame } from './frame';
import { Histogram } from './histogram';
import { type Alignment, ATTR, type AttributeSource, type CategoricalGroup, categoricalGroups, MomentStore, PAIR, pairCount, pairOffset } from './moments';
import type { ResolvedOptions } from './options';
import type { Sign, SummaryPart } from './parts';
import { type AttributeInfo, type AttributeKind, Schema } from './schema';

const KIND_CODES: readonly AttributeKind[] = ['C', 'B', 'T'];

/**
 * The largest magnitude a learned value may have. The summary keeps power sums up to the
 * fourth (Σx⁴, Σx²y²): with |x| ≤ 1e64 they stay below 1e256 per row, so even 2⁵³ rows cannot
 * overflow, and forget stays the exact inverse of learn. Larger values are refused.
 */
export const MAX_ABS_VALUE = 1e64;

/**
 * Slack of the moment inequalities of checkStatistics, relative to n·M² (M the largest |x| the
 * extremes allow): forgetting rows leaves a few ulps of the largest partial sum in a sum.
 */
export const MOMENT_TOLERANCE = 1e-6;

/** Characters (code points) of a string, counted only when its UTF-16 length passes `max`. */
export function overLength(text: string, max: number): number {
  if (text.length <= max) return 0;
  let n = 0;
  for (const _ of text) n++;
  return n > max ? n : 0;
}

/** What reading checks beyond the bytes' own consistency (a foreign summary's limits). */
export interface AttributeReadChecks {
  /** Summary format version (1: no conditional histograms). */
  version: number;
  /** Refuse more attributes than the options allow. */
  limitAttributes: boolean;
  maxNameLength: number;
}

/**
 * The statistics of a summary's attributes (STATS.md §1), one part of the summary
 * (parts.ts): the attribute table (schema.ts), each attribute's moments and each pair's
 * co-moments (moments.ts), the per-attribute and conditional histograms, and the rows they
 * were learned from. Categorical levels are attributes whose statistics are counts. Merging
 * aligns the two attribute tables: a level one side lacks is 0 wherever its column is present.
 */
export class AttributeStatistics implements SummaryPart<AttributeStatistics> {
  readonly schema = new Schema();
  readonly store = new MomentStore();
  /** One per attribute when histograms are enabled, else empty. */
  histograms: Histogram[] = [];
  /** Histogram of t over the rows where binary c = 1, when histograms are enabled (conditional.ts). */
  readonly conditional = new ConditionalHistograms(
    () => this.newHistogram(),
    (a, b) => this.sameColumn(a, b),
    (c, t) => `${this.schema.info(t).name} given ${this.schema.info(c).name} = 1`,
  );
  rows = 0;

  constructor(readonly options: ResolvedOptions) {}

  /** Learns (1) or removes (-1) the frame's rows; a removal throws SummaryError and changes nothing if they were never learned. */
  learn(parsed: ParsedFrame, sign: Sign): void {
    if (sign === 1) return this.prepareLearn(parsed, null)();
    const removed = new AttributeStatistics(this.options);
    removed.prepareLearn(parsed, null)();
    this.merge(removed, -1);
  }

  merge(other: AttributeStatistics, sign: Sign): void {
    this.prepareMerge(other, sign)();
  }

  checkMerge(other: AttributeStatistics, sign: Sign): void {
    this.prepareMerge(other, sign);
  }

  /**
   * Checks everything merge(other, sign) could violate (attribute conflicts and the limit;
   * for a removal, every count); returns the merge itself, which cannot fail.
   */
  prepareMerge(other: AttributeStatistics, sign: Sign): () => void {
    return sign === 1 ? this.prepareAdd(other) : this.prepareRemove(other);
  }

  get keepsConditional(): boolean {
    return this.options.histogram !== undefined && this.options.conditionalHistograms !== false;
  }

  /** Whether attributes i and j are two levels of one categorical column. */
  sameColumn(i: number, j: number): boolean {
    const a = this.schema.info(i);
    const b = this.schema.info(j);
    return a.kind === 'T' && b.kind === 'T' && a.base === b.base;
  }

  /** Rows where the binary attribute i is 1 (its Σx, an exact integer). */
  ones(i: number): number {
    return this.sum(i, ATTR.S1);
  }

  attr(i: number, field: number): number {
    return this.store.attrs[i * ATTR.STRIDE + field];
  }

  sum(i: number, field: number): number {
    return compensatedValue(this.store.attrs, i * ATTR.STRIDE + field);
  }

  /**
   * The statistics of the attributes `kept` alone (ascending indexes), renumbered 0…:
   * every statistic copied, never recomputed (Summary.restrict). With `streaming` (options
   * whose histograms are streaming) every histogram is copied as streaming bins (Summary.shareable).
   */
  restrict(kept: readonly number[], streaming?: ResolvedOptions): AttributeStatistics {
    const out = new AttributeStatistics(streaming ?? this.options);
    const copy = streaming === undefined ? (h: Histogram) => h.clone() : (h: Histogram) => h.streamingCopy();
    out.rows = this.rows;
    for (const i of kept) out.schema.add(this.schema.info(i));
    const m = kept.length;
    out.store.grow(m, m);
    const from = this.store;
    const to = out.store;
    for (let a = 0; a < m; a++) copyDoubles(from.attrs, kept[a] * ATTR.STRIDE, to.attrs, a * ATTR.STRIDE, ATTR.STRIDE);
    // Ascending indexes keep each pair's sides (the lower index is side i of a stored pair).
    for (let b = 0; b < m; b++) {
      for (let a = 0; a <= b; a++) copyDoubles(from.pairs, pairOffset(kept[a], kept[b]), to.pairs, pairOffset(a, b), PAIR.STRIDE);
    }
    if (this.options.histogram !== undefined) out.histograms = kept.map((i) => copy(this.histograms[i]));
    if (this.keepsConditional) this.conditional.copyRestricted(out.conditional, kept, copy);
    return out;
  }

  write(w: ByteWriter): void {
    w.f64(this.rows);
    const size = this.schema.size;
    w.u32(size);
    for (let i = 0; i < size; i++) {
      const info = this.schema.info(i);
      w.string(info.name);
      w.u8(KIND_CODES.indexOf(info.kind));
      w.string(info.base);
    }
    w.f64s(this.store.attrs.subarray(0, size * ATTR.STRIDE));
    w.f64s(this.store.pairs.subarray(0, pairCount(size) * PAIR.STRIDE));
    for (const h of this.histograms) h.write(w);
    if (this.keepsConditional) this.conditional.write(w);
  }

  /** Reads what write() wrote into these (empty) statistics; `checks` bound what a foreign summary may hold. */
  read(r: ByteReader, checks: AttributeReadChecks = { version: 2, limitAttributes: false, maxNameLength: Infinity }): void {
    this.rows = r.f64();
    const size = r.u32();
    if (checks.limitAttributes && size > this.options.maxAttributes) throw new CapacityError('attributes', 'attributes', size, this.options.maxAttributes);
    const maxName = checks.maxNameLength;
    for (let i = 0; i < size; i++) {
      const name = r.string();
      const kind = KIND_CODES[r.u8()];
      const base = r.string();
      if (kind === undefined || this.schema.indexOf(name) >= 0) throw new SummaryError('damaged', 'damaged summary serialization: attribute table');
      if (overLength(name, maxName) > 0) throw new SummaryError('damaged', `the attribute name has more than ${maxName} characters`, name);
      this.schema.add({ name, kind, base });
    }
    this.store.grow(size, Math.max(size, this.options.maxAttributes));
    // Straight into the store: no second copy of the (at 2000 attributes, 200 MB) pairs.
    const attrs = r.f64sInto(this.store.attrs);
    const pairs = r.f64sInto(this.store.pairs);
    if (attrs !== size * ATTR.STRIDE || pairs !== pairCount(size) * PAIR.STRIDE) {
      throw new SummaryError('damaged', 'damaged summary serialization: statistics size');
    }
    if (this.options.histogram !== undefined) {
      this.histograms = Array.from({ length: size }, () => Histogram.read(r, this.options.histogramBins, this.options.exactHistogramCap));
      if (checks.version >= 2 && this.keepsConditional) {
        const binary = (i: number) => this.schema.info(i).kind !== 'C';
        this.conditional.read(r, size, binary, this.options.histogramBins, this.options.exactHistogramCap);
      }
    }
  }

  /** Summary.checkStatistics of these statistics (partitions aside); `bad` makes its error. */
  check(bad: (what: string, attribute?: string) => SummaryError): void {
    const count = (v: number, what: string, attribute = '') => {
      if (!(Number.isSafeInteger(v) && v >= 0)) throw bad(`${what} is ${v}, not a whole number ≥ 0`, attribute);
      return v;
    };
    const rows = count(this.rows, 'the row count');
    const size = this.schema.size;
    const attrs = this.store.attrs;
    const sums = [ATTR.S1, ATTR.S2, ATTR.S3, ATTR.S4];
    const levels = new Map<string, { n: number; ones: number }>();
    for (let i = 0; i < size; i++) {
      const { name, kind, base } = this.schema.info(i);
      const at = i * ATTR.STRIDE;
      const n = count(attrs[at + ATTR.N], 'the count', name);
      if (n > rows) throw bad(`the count ${n} is over the ${rows} rows`, name);
      for (const k of sums) if (!Number.isFinite(attrs[at + k]) || !Number.isFinite(attrs[at + k + 1])) throw bad('a power sum is not finite', name);
      if (kind === 'T') {
        const ones = this.sum(i, ATTR.S1);
        if (!(Number.isSafeInteger(ones) && ones >= 0 && ones <= n)) throw bad(`a categorical level's Σx ${ones} is not a whole number in [0, ${n}]`, name);
        const group = levels.get(base);
        if (group === undefined) levels.set(base, { n, ones });
        else if (group.n !== n) throw bad(`the levels of [${base}] are present in ${group.n} and ${n} rows`, name);
        else group.ones += ones;
      }
      const h = this.histograms[i];
      if (h !== undefined) {
        let total = 0;
        for (const b of h.toBins()) {
          total += count(b.count, 'a histogram count', name);
          if (!(Number.isFinite(b.lower) && Number.isFinite(b.upper))) throw bad('a histogram bin is not finite', name);
        }
        if (total !== n) throw bad(`its histogram counts ${total} values, its count is ${n}`, name);
      }
      if (n > 0) {
        const [lo, hi] = [attrs[at + ATTR.MIN], attrs[at + ATTR.MAX]];
        if (!(lo >= -MAX_ABS_VALUE && hi <= MAX_ABS_VALUE && lo <= hi)) throw bad(`min ${lo} and max ${hi} are not an interval of values`, name);
        const [s1, s2, s4] = [this.sum(i, ATTR.S1), this.sum(i, ATTR.S2), this.sum(i, ATTR.S4)];
        if (!consistentMoments(n, Math.max(-lo, hi), s1, s2, s4)) throw bad(`n ${n}, Σx ${s1}, Σx² ${s2}, Σx⁴ ${s4} are not the power sums of any values`, name);
      }
    }
    for (const [base, group] of levels) if (group.ones !== group.n) throw bad(`the levels of [${base}] add up to ${group.ones} of the ${group.n} rows it is present in`, base);
    const pairs = this.store.pairs;
    const pairSums = [PAIR.SI, PAIR.SJ, PAIR.SII, PAIR.SJJ, PAIR.SIJ, PAIR.SIIJJ];
    for (let j = 0; j < size; j++) {
      for (let i = 0; i <= j; i++) {
        const at = pairOffset(i, j);
        const names = () => `${this.schema.info(i).name}, ${this.schema.info(j).name}`;
        const n = pairs[at + PAIR.N];
        if (!(Number.isSafeInteger(n) && n >= 0)) throw bad(`a pair count is ${n}, not a whole number ≥ 0`, names());
        if (n > attrs[i * ATTR.STRIDE + ATTR.N] || n > attrs[j * ATTR.STRIDE + ATTR.N]) throw bad(`the pair count ${n} is over an attribute's count`, names());
        for (const k of pairSums) if (!Number.isFinite(pairs[at + k]) || !Number.isFinite(pairs[at + k + 1])) throw bad('a pair sum is not finite', names());
      }
    }
  }

  /** Plans the new attributes of learning `rows` (all when null) of a frame; returns the learning itself. */
  prepareLearn(parsed: ParsedFrame, rows: Int32Array | null): () => void {
    const separator = this.options.categorySeparator;
    const planned = new Map<string, AttributeInfo>();
    // Errors name the frame's column (for a categorical level, the categorical column).
    const plan = (column: string, info: AttributeInfo) => {
      const conflict = this.schema.conflict(info);
      if (conflict !== null) throw new FrameError(-1, column, conflict);
      if (planned.has(info.name)) throw new FrameError(-1, column, `two columns of the frame expand to attribute [${info.name}]`);
      if (this.schema.indexOf(info.name) < 0) planned.set(info.name, info);
    };
    for (const column of parsed.numeric) plan(column.name, { name: column.name, kind: column.kind, base: '' });
    const count = rows === null ? parsed.rows.length : rows.length;
    for (const column of parsed.categorical) {
      // Only levels occurring in the learned rows become attributes, so the attribute set
      // depends on the rows alone, not on how they were split into frames.
      const used = new Uint8Array(column.levels.length);
      for (let t = 0; t < count; t++) {
        const code = column.codes[rows === null ? t : rows[t]];
        if (code >= 0) used[code] = 1;
      }
      column.levels.forEach((level, code) => {
        if (used[code] === 1) plan(column.name, { name: column.name + separator + level, kind: 'T', base: column.name });
      });
    }
    this.checkAttributeLimit(planned.size, (i) => [...planned.keys()][i], (name, reason) => new FrameError(-1, name, reason));
    return () => {
      for (const info of planned.values()) this.append(info);
      this.accumulate(parsed, rows, count);
    };
  }

  private checkAttributeLimit(added: number, nameOf: (i: number) => string, error: (name: string, reason: string) => Error): void {
    const limit = this.options.maxAttributes;
    if (this.schema.size + added <= limit) return;
    const firstOver = nameOf(limit - this.schema.size);
    throw error(firstOver, `too many attributes: ${this.schema.size + added} would exceed the limit of ${limit}`);
  }

  private append(info: AttributeInfo): void {
    const siblings = info.kind === 'T' ? this.schema.levelsOf(info.base) : [];
    const sibling = siblings.length > 0 ? siblings[0] : -1;
    const index = this.schema.add(info);
    this.store.grow(1, this.options.maxAttributes);
    if (sibling >= 0) this.store.fillLevelFromSibling(index, sibling);
    if (this.options.histogram !== undefined) {
      const h = this.newHistogram();
      if (sibling >= 0) h.add(0, this.attr(sibling, ATTR.N));
      this.histograms.push(h);
      if (sibling >= 0) this.conditional.addLevel(index, sibling);
    }
  }

  private accumulate(parsed: ParsedFrame, rows: Int32Array | null, count: number): void {
    const sources: AttributeSource[] = [];
    for (const column of parsed.numeric) {
      sources.push({ index: this.schema.indexOf(column.name), values: column.values, codes: null, level: 0 });
    }
    const prefix = this.options.categorySeparator.length;
    for (const column of parsed.categorical) {
      const codeOf = new Map(column.levels.map((level, code) => [level, code]));
      for (const index of this.schema.levelsOf(column.name)) {
        const level = this.schema.info(index).name.slice(column.name.length + prefix);
        // A known level absent from this frame never matches a code (-2), so it is 0 where the attribute is present.
        sources.push({ index, values: null, codes: column.codes, level: codeOf.get(level) ?? -2 });
      }
    }
    sources.sort((a, b) => a.index - b.index);
    // Each categorical column's codes counted once, for the moments and the level histograms.
    const groups = categoricalGroups(sources, count, rows);
    this.store.accumulate(sources, count, rows, groups);
    if (this.options.histogram !== undefined) {
      const groupOf = new Map(groups.map((g) => [g.levels[0].codes!, g]));
      for (const source of sources) this.addToHistogram(source, count, rows, groupOf);
      if (this.keepsConditional) this.conditional.learn(sources, count, rows, (i) => this.schema.info(i).kind !== 'C');
    }
    this.rows += count;
  }

  /** Adds the source's values to its histogram; a categorical level's from its column's code counts (`groupOf`). */
  private addToHistogram(source: AttributeSource, count: number, rows: Int32Array | null, groupOf: Map<Int32Array, CategoricalGroup>): void {
    const h = this.histograms[source.index];
    if (source.values !== null) return h.addColumn(source.values, rows, count);
    const group = groupOf.get(source.codes!)!;
    const ones = group.count(source.level);
    h.add(1, ones);
    h.add(0, group.present - ones);
  }

  newHistogram(): Histogram {
    return new Histogram(this.options.histogram!, this.options.histogramBins, this.options.exactHistogramCap);
  }

  /** How `other`'s attributes line up with these (see Alignment). */
  private alignTo(other: AttributeStatistics): Alignment {
    const source = new Int32Array(this.schema.size).fill(-1);
    const zero = new Uint8Array(this.schema.size);
    for (let i = 0; i < this.schema.size; i++) {
      const info = this.schema.info(i);
      const j = other.schema.indexOf(info.name);
      if (j >= 0) {
        source[i] = j;
      } else if (info.kind === 'T' && other.schema.levelsOf(info.base).length > 0) {
        source[i] = other.schema.levelsOf(info.base)[0];
        zero[i] = 1;
      }
    }
    return { source, zero };
  }

  private prepareAdd(other: AttributeStatistics): () => void {
    const planned: AttributeInfo[] = [];
    for (let j = 0; j < other.schema.size; j++) {
      const info = other.schema.info(j);
      const conflict = this.schema.conflict(info);
      if (conflict !== null) throw new SummaryError('incompatible', conflict, info.name);
      if (this.schema.indexOf(info.name) < 0) planned.push(info);
    }
    this.checkAttributeLimit(planned.length, (i) => planned[i].name, (name, reason) => new SummaryError('incompatible', reason, name));
    return () => {
      for (const info of planned) this.append(info);
      const alignment = this.alignTo(other);
      this.store.merge(other.store, alignment, 1);
      this.histograms.forEach((h, i) => {
        const s = alignment.source[i];
        if (s < 0) return;
        if (alignment.zero[i] === 1) h.add(0, other.attr(s, ATTR.N));
        else h.merge(other.histograms[s], 1);
      });
      if (this.keepsConditional) this.conditional.merge(this.conditionalFrom(other, alignment), 1);
      this.rows += other.rows;
    };
  }

  private prepareRemove(other: AttributeStatistics): () => void {
    const never = (name: string) => new SummaryError('not-learned', 'cannot forget rows that were never learned', name);
    if (other.rows > this.rows) throw never('');
    for (let j = 0; j < other.schema.size; j++) {
      const info = other.schema.info(j);
      const conflict = this.schema.conflict(info);
      if (conflict !== null) throw new SummaryError('not-learned', conflict, info.name);
      if (this.schema.indexOf(info.name) >= 0 || other.attr(j, ATTR.N) === 0) continue;
      // A level this summary lacks is fine if it is 0 wherever present, and this summary knows a sibling.
      const zeroLevel = info.kind === 'T' && other.sum(j, ATTR.S1) === 0 && this.schema.levelsOf(info.base).length > 0;
      if (!zeroLevel) throw never(info.name);
    }
    const alignment = this.alignTo(other);
    const negative = this.store.firstNegative(other.store, alignment, (i) => this.schema.info(i).kind !== 'C');
    if (negative >= 0) throw never(this.schema.info(negative).name);

    // Every histogram checked now, so the commit cannot fail.
    const removals = this.histograms.flatMap((h, i) => {
      const s = alignment.source[i];
      if (s < 0) return [];
      let removed = other.histograms[s];
      if (alignment.zero[i] === 1) {
        removed = this.newHistogram();
        removed.add(0, other.attr(s, ATTR.N));
      }
      try {
        h.checkMerge(removed, -1);
      } catch (e) {
        throw e instanceof SummaryError ? new SummaryError(e.kind, e.reason, this.schema.info(i).name) : e;
      }
      return [{ h, removed }];
    });
    const conditional = this.keepsConditional ? this.conditionalFrom(other, alignment) : [];
    this.conditional.checkMerge(conditional, -1);
    return () => {
      this.store.merge(other.store, alignment, -1);
      for (const { h, removed } of removals) h.merge(removed, -1);
      this.conditional.merge(conditional, -1);
      this.rows -= other.rows;
    };
  }

  /** `other`'s conditional histograms per pair of these attributes. */
  private conditionalFrom(other: AttributeStatistics, alignment: Alignment): Array<[number, number, Histogram]> {
    return this.conditional.contributions(other.conditional, alignment, other.schema.size, (j) => other.ones(j));
  }
}

/**
 * Whether n values of magnitude at most `m` can have these power sums: Σx² ≥ 0, Σx⁴ ≥ 0,
 * (Σx)² ≤ n·Σx² and (Σx²)² ≤ n·Σx⁴ (Cauchy-Schwarz), within MOMENT_TOLERANCE of n·m², n·m⁴.
 */
function consistentMoments(n: number, m: number, s1: number, s2: number, s4: number): boolean {
  const m2 = n * m * m;
  const m4 = m2 * m * m;
  const tol = MOMENT_TOLERANCE;
  return s2 >= -tol * m2 && s4 >= -tol * m4 && n * s2 - s1 * s1 >= -tol * n * m2 && n * s4 - s2 * s2 >= -tol * m2 * m2;
}

function copyDoubles(from: Float64Array, at: number, to: Float64Array, into: number, count: number): void {
  for (let k = 0; k < count; k++) to[into + k] = from[at + k];
}

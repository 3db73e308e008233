import type { ByteReader, ByteWriter } from './binary';
import { SummaryError } from './errors';
import { Histogram } from './histogram';
import type { Alignment, AttributeSource } from './moments';
import type { Sign } from './parts';

/** `other`'s histogram of t given c, as the summary's attribute indexes c and t. */
export type Contribution = readonly [c: number, t: number, histogram: Histogram];

/**
 * Conditional histograms (STATS.md §3, `conditional_pair[c,t]`): for every binary attribute
 * c (B or a categorical level) and every other attribute t, the histogram of t's present
 * values over the rows where c = 1, with the same mode, bins and cap as the per-attribute
 * histograms. Stored sparsely, c → t → histogram, created on the first row with c = 1 and t
 * present; a histogram emptied by a subtraction is dropped, so equal data gives equal maps.
 *
 * Attributes are summary indexes. New attributes start empty (their earlier rows are
 * missing), except a categorical level t appended after a sibling s: every earlier row where
 * s was present had t = 0, so (c, t) starts as rows(c = 1, s present) zeros (see addLevel).
 * A new level as the condition c starts empty: it was 0 in every earlier row.
 */
export class ConditionalHistograms {
  private readonly byCondition = new Map<number, Map<number, Histogram>>();

  /**
   * `sameColumn(a, b)`: a and b are levels of one categorical column. Such pairs are never
   * stored: where one level is 1 the other is present and 0, so the histogram is derived
   * (Summary.conditionalHistogram) — stored, a column of L levels held L² histograms (about
   * 500 MB at L = 1000).
   */
  constructor(
    private readonly create: () => Histogram,
    private readonly sameColumn: (a: number, b: number) => boolean,
    /** Names a pair in errors. */
    private readonly pairName: (c: number, t: number) => string,
  ) {}

  /** The histogram of t over the rows where c = 1; undefined when there is no such row with t present. */
  get(c: number, t: number): Histogram | undefined {
    const h = this.byCondition.get(c)?.get(t);
    return h !== undefined && h.count > 0 ? h : undefined;
  }

  /** Number of (c, t) histograms held. */
  get size(): number {
    let n = 0;
    for (const inner of this.byCondition.values()) n += inner.size;
    return n;
  }

  private slot(c: number, t: number): Histogram {
    let inner = this.byCondition.get(c);
    if (inner === undefined) {
      inner = new Map();
      this.byCondition.set(c, inner);
    }
    let h = inner.get(t);
    if (h === undefined) {
      h = this.create();
      inner.set(t, h);
    }
    return h;
  }

  /**
   * Rows with c = 1 and t present. `onesOf(c)` answers c = t (the rows where c = 1, which
   * is not stored as a pair).
   */
  private coCount(c: number, t: number, onesOf: (i: number) => number): number {
    if (c === t) return onesOf(c);
    return this.byCondition.get(c)?.get(t)?.count ?? 0;
  }

  /**
   * Learns the rows `rows` (all `count` rows when null) of a frame, column-wise: per binary
   * source c, the rows where c = 1, then per other source t its values at those rows.
   * Nothing runs per row when no source is binary; otherwise the cost is about
   * Σ_c ones(c) · (number of sources) histogram adds, categorical levels of one column taking
   * one tally of the column's codes per c.
   */
  learn(sources: readonly AttributeSource[], count: number, rows: Int32Array | null, binary: (index: number) => boolean): void {
    if (count === 0) return;
    let anyBinary = false;
    for (const s of sources) if (binary(s.index)) anyBinary = true;
    if (!anyBinary) return;

    // Targets: numeric columns, and categorical columns with their known levels.
    const numeric: AttributeSource[] = [];
    const columns = new Map<Int32Array, CategoricalTargets>();
    for (const s of sources) {
      if (s.values !== null) {
        numeric.push(s);
        continue;
      }
      const codes = s.codes!;
      let column = columns.get(codes);
      if (column === undefined) {
        column = bucketRows(codes, count, rows);
        columns.set(codes, column);
      }
      column.levels.push(s);
    }

    const scratch = new Int32Array(count);
    for (const c of sources) {
      if (!binary(c.index)) continue;
      let ones: Int32Array;
      if (c.values !== null) {
        const values = c.values;
        let n = 0;
        for (let k = 0; k < count; k++) {
          const r = rows === null ? k : rows[k];
          if (values[r] === 1) scratch[n++] = r;
        }
        ones = scratch.subarray(0, n);
      } else {
        ones = columns.get(c.codes!)!.rowsOf(c.level);
      }
      if (ones.length === 0) continue;
      for (const t of numeric) {
        if (t.index !== c.index) this.addValues(c.index, t, ones, binary(t.index));
      }
      for (const column of columns.values()) if (column.codes !== c.codes) this.addLevels(c.index, column, ones);
    }
  }

  private addValues(c: number, t: AttributeSource, ones: Int32Array, isBinary: boolean): void {
    const values = t.values!;
    if (isBinary) {
      let present = 0;
      let one = 0;
      for (let k = 0; k < ones.length; k++) {
        const v = values[ones[k]];
        if (v === v) present++;
        if (v === 1) one++;
      }
      if (present === 0) return;
      const h = this.slot(c, t.index);
      h.add(1, one);
      h.add(0, present - one);
      return;
    }
    let h: Histogram | undefined;
    for (let k = 0; k < ones.length; k++) {
      const v = values[ones[k]];
      if (v !== v) continue;
      h ??= this.slot(c, t.index);
      h.add(v);
    }
  }

  private addLevels(c: number, column: CategoricalTargets, ones: Int32Array): void {
    const tally = column.tally;
    tally.fill(0);
    const codes = column.codes;
    let present = 0;
    for (let k = 0; k < ones.length; k++) {
      const code = codes[ones[k]];
      if (code >= 0) {
        present++;
        tally[code]++;
      }
    }
    if (present === 0) return;
    for (const level of column.levels) {
      if (level.index === c) continue;
      const one = level.level >= 0 && level.level < tally.length ? tally[level.level] : 0;
      const h = this.slot(c, level.index);
      h.add(1, one);
      h.add(0, present - one);
    }
  }

  /**
   * A categorical level `level` was appended after its sibling `sibling`: every row learned
   * so far where the sibling was present had level = 0, so for each c, (c, level) holds
   * rows(c = 1, sibling present) zeros; for c = sibling those are its `siblingOnes` rows.
   */
  addLevel(level: number, sibling: number): void {
    for (const [c, inner] of this.byCondition) {
      if (this.sameColumn(c, level)) continue; // derived, not stored
      const n = inner.get(sibling)?.count ?? 0;
      if (n > 0) this.slot(c, level).add(0, n);
    }
  }

  /**
   * What `other` (aligned to this summary's attributes by `alignment`, see Alignment) holds
   * for each of this summary's pairs, as [c, t, histogram] with this summary's indexes.
   * A level other never saw (`zero`) is 0 wherever its sibling is present in other: as c it
   * contributes nothing, as t it contributes rows(c = 1, sibling present) zeros. Pairs whose
   * attributes this summary lacks are left out (in other they are empty or only zeros of a
   * level this summary lacks; the moment checks cover them).
   */
  contributions(other: ConditionalHistograms, alignment: Alignment, otherSize: number, otherOnes: (j: number) => number): Array<[number, number, Histogram]> {
    const { source, zero } = alignment;
    const mine = new Int32Array(otherSize).fill(-1);
    for (let i = 0; i < source.length; i++) if (source[i] >= 0 && zero[i] === 0) mine[source[i]] = i;
    const out: Array<[number, number, Histogram]> = [];
    for (const [oc, inner] of other.byCondition) {
      const c = mine[oc];
      if (c < 0) continue;
      for (const [ot, h] of inner) {
        const t = mine[ot];
        if (t >= 0 && h.count > 0 && !this.sameColumn(c, t)) out.push([c, t, h]);
      }
    }
    for (let t = 0; t < source.length; t++) {
      if (zero[t] === 0 || source[t] < 0) continue;
      const sibling = source[t];
      const conditions = new Set<number>(other.byCondition.keys());
      conditions.add(sibling);
      for (const oc of conditions) {
        const c = mine[oc];
        if (c < 0 || c === t || this.sameColumn(c, t)) continue;
        const n = other.coCount(oc, sibling, otherOnes);
        if (n <= 0) continue;
        const h = this.create();
        h.add(0, n);
        out.push([c, t, h]);
      }
    }
    return out;
  }

  /**
   * Adds (sign 1) or removes (-1) contributions (from `contributions`). Removing throws
   * SummaryError and changes nothing when a bin would go negative.
   */
  merge(contributions: readonly Contribution[], sign: Sign): void {
    if (sign === 1) {
      for (const [c, t, h] of contributions) this.slot(c, t).merge(h, 1);
      return;
    }
    this.checkMerge(contributions, -1);
    for (const [c, t, removed] of contributions) {
      const inner = this.byCondition.get(c);
      const held = inner?.get(t);
      // Absent: checkMerge found the contribution empty.
      if (inner === undefined || held === undefined) continue;
      held.merge(removed, -1);
      if (held.count > 0) continue;
      inner.delete(t);
      if (inner.size === 0) this.byCondition.delete(c);
    }
  }

  checkMerge(contributions: readonly Contribution[], sign: Sign): void {
    if (sign === 1) return;
    for (const [c, t, removed] of contributions) {
      const held = this.byCondition.get(c)?.get(t);
      if (held === undefined) {
        if (removed.count === 0) continue;
        throw new SummaryError('not-learned', 'cannot forget rows that were never learned: a conditional histogram would become negative', this.pairName(c, t));
      }
      try {
        held.checkMerge(removed, -1);
      } catch (e) {
        throw e instanceof SummaryError ? new SummaryError(e.kind, e.reason, this.pairName(c, t)) : e;
      }
    }
  }

  /**
   * Copies into `into` (empty) the pairs among `kept` (ascending indexes of this map's
   * summary), renumbered by their position in `kept`: Summary.restrict.
   */
  copyRestricted(into: ConditionalHistograms, kept: readonly number[], copy: (h: Histogram) => Histogram = (h) => h.clone()): void {
    const position = new Map(kept.map((i, a) => [i, a]));
    kept.forEach((c, a) => {
      const inner = this.byCondition.get(c);
      if (inner === undefined) return;
      const copied = new Map<number, Histogram>();
      const add = (t: number, h: Histogram | undefined) => {
        const b = position.get(t);
        if (h !== undefined && b !== undefined && h.count > 0) copied.set(b, copy(h));
      };
      // Whichever is shorter: a condition's targets, or the kept attributes.
      if (inner.size <= kept.length) for (const [t, h] of inner) add(t, h);
      else for (const t of kept) add(t, inner.get(t));
      if (copied.size > 0) into.byCondition.set(a, copied);
    });
  }

  /** Canonical: conditions, then targets, ascending; empty histograms left out. */
  write(w: ByteWriter): void {
    const conditions = [...this.byCondition.keys()].sort((a, b) => a - b);
    const entries = conditions
      .map((c) => [c, [...this.byCondition.get(c)!].filter(([, h]) => h.count > 0).sort((a, b) => a[0] - b[0])] as const)
      .filter(([, targets]) => targets.length > 0);
    w.u32(entries.length);
    for (const [c, targets] of entries) {
      w.u32(c);
      w.u32(targets.length);
      for (const [t, h] of targets) {
        w.u32(t);
        h.write(w);
      }
    }
  }

  /** Reads what `write` wrote for a summary of `size` attributes. */
  read(r: ByteReader, size: number, binary: (index: number) => boolean, bins: number, cap: number): void {
    const damaged = () => new SummaryError('damaged', 'damaged summary serialization: conditional histograms');
    let previousC = -1;
    for (let n = r.u32(); n > 0; n--) {
      const c = r.u32();
      if (c <= previousC || c >= size || !binary(c)) throw damaged();
      previousC = c;
      let previousT = -1;
      const inner = new Map<number, Histogram>();
      for (let m = r.u32(); m > 0; m--) {
        const t = r.u32();
        if (t <= previousT || t >= size || t === c) throw damaged();
        previousT = t;
        const h = Histogram.read(r, bins, cap);
        // Summaries written before same-column pairs were derived hold them: dropped.
        if (!this.sameColumn(c, t)) inner.set(t, h);
      }
      if (inner.size > 0) this.byCondition.set(c, inner);
    }
  }
}

/** One categorical column's rows grouped by code (a counting sort), and its level sources. */
interface CategoricalTargets {
  readonly codes: Int32Array;
  readonly levels: AttributeSource[];
  /** Scratch, one slot per code. */
  readonly tally: Float64Array;
  /** The rows (raw frame row indexes) whose code is `code`; empty for codes not in the frame. */
  rowsOf(code: number): Int32Array;
}

function bucketRows(codes: Int32Array, count: number, rows: Int32Array | null): CategoricalTargets {
  let maxCode = -1;
  for (let k = 0; k < count; k++) {
    const code = codes[rows === null ? k : rows[k]];
    if (code > maxCode) maxCode = code;
  }
  const start = new Int32Array(maxCode + 2);
  for (let k = 0; k < count; k++) {
    const code = codes[rows === null ? k : rows[k]];
    if (code >= 0) start[code + 1]++;
  }
  for (let code = 0; code <= maxCode; code++) start[code + 1] += start[code];
  const order = new Int32Array(start[maxCode + 1]);
  const next = start.slice(0, maxCode + 1);
  for (let k = 0; k < count; k++) {
    const r = rows === null ? k : rows[k];
    const code = codes[r];
    if (code >= 0) order[next[code]++] = r;
  }
  const empty = new Int32Array(0);
  return {
    codes,
    levels: [],
    tally: new Float64Array(maxCode + 1),
    rowsOf: (code) => (code >= 0 && code <= maxCode ? order.subarray(start[code], start[code + 1]) : empty),
  };
}

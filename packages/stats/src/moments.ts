import { addCompensated, combineCompensated, compensatedValue } from './compensated';

/*
 * Flat storage of the summary's moments (STATS.md §1). Every sum is a compensated pair
 * (value, compensation), see compensated.ts. Counts are plain doubles: integers stay exact
 * up to 2^53.
 *
 * Per attribute i: n, Σx, Σx², Σx³, Σx⁴, min, max.
 * Per pair i ≤ j, over the rows where both are present: n_ij, Σx_i, Σx_j, Σx_i², Σx_j²,
 * Σx_i·x_j, Σx_i²·x_j². The pairs are a packed upper triangle stored column by column
 * (pair (i, j) at j(j+1)/2 + i), so appending an attribute only appends entries.
 */
export const ATTR = { N: 0, S1: 1, S2: 3, S3: 5, S4: 7, MIN: 9, MAX: 10, STRIDE: 11 } as const;
export const PAIR = { N: 0, SI: 1, SJ: 3, SII: 5, SJJ: 7, SIJ: 9, SIIJJ: 11, STRIDE: 13 } as const;

export function pairOffset(i: number, j: number): number {
  return ((j * (j + 1)) / 2 + i) * PAIR.STRIDE;
}

export function pairCount(attributes: number): number {
  return (attributes * (attributes + 1)) / 2;
}

/** Where one attribute's values come from while learning a frame. */
export interface AttributeSource {
  /** The summary index of the attribute. */
  readonly index: number;
  /** C/B column values (NaN = missing), or null for a categorical level. */
  readonly values: Float64Array | null;
  /** Categorical column codes (-1 = missing) and the code of this level (1 when equal, else 0). */
  readonly codes: Int32Array | null;
  readonly level: number;
}

/**
 * How another store's attributes line up with this one's, per attribute of this store:
 * `source[i]` is the other's index (-1: the other never saw attribute i, all its rows count
 * as missing); `zero[i]` = 1 when the other never saw this categorical level but saw a
 * sibling `source[i]`, so its rows are 0 wherever the sibling is present.
 */
export interface Alignment {
  readonly source: Int32Array;
  readonly zero: Uint8Array;
}

export class MomentStore {
  size = 0;
  attrs = new Float64Array(0);
  pairs = new Float64Array(0);
  private capacity = 0;

  /** Appends `count` empty attributes, growing geometrically up to `limit` attributes. */
  grow(count: number, limit: number): void {
    const size = this.size + count;
    if (size > this.capacity) {
      const capacity = Math.max(size, Math.min(limit, Math.max(8, 2 * this.capacity)));
      const attrs = new Float64Array(capacity * ATTR.STRIDE);
      attrs.set(this.attrs.subarray(0, this.size * ATTR.STRIDE));
      const pairs = new Float64Array(pairCount(capacity) * PAIR.STRIDE);
      pairs.set(this.pairs.subarray(0, pairCount(this.size) * PAIR.STRIDE));
      this.attrs = attrs;
      this.pairs = pairs;
      this.capacity = capacity;
    }
    for (let i = this.size; i < size; i++) {
      this.attrs[i * ATTR.STRIDE + ATTR.MIN] = Infinity;
      this.attrs[i * ATTR.STRIDE + ATTR.MAX] = -Infinity;
    }
    this.size = size;
  }

  /**
   * Fills the statistics of a new categorical level from a sibling level: every row learned
   * so far where the categorical attribute was present had a different level, so the new
   * level is 0 exactly where the sibling is present (and missing where it is missing).
   */
  fillLevelFromSibling(level: number, sibling: number): void {
    const a = this.attrs;
    const n = a[sibling * ATTR.STRIDE + ATTR.N];
    const k = level * ATTR.STRIDE;
    a[k + ATTR.N] = n;
    if (n > 0) a[k + ATTR.MIN] = a[k + ATTR.MAX] = 0;
    for (let j = 0; j <= level; j++) {
      const other = j === level ? sibling : j;
      const from = other <= sibling ? pairOffset(other, sibling) : pairOffset(sibling, other);
      // The side of the stored pair that holds `other`'s sums: the lower index is side i.
      const side = other <= sibling ? PAIR.SI : PAIR.SJ;
      const sideSquares = other <= sibling ? PAIR.SII : PAIR.SJJ;
      const to = pairOffset(j, level);
      this.pairs[to + PAIR.N] = this.pairs[from + PAIR.N];
      if (j === level) continue;
      this.copySum(to + PAIR.SI, from + side);
      this.copySum(to + PAIR.SII, from + sideSquares);
    }
  }

  private copySum(to: number, from: number): void {
    this.pairs[to] = this.pairs[from];
    this.pairs[to + 1] = this.pairs[from + 1];
  }

  /**
   * Learns the rows `rows` (all rows when null) of a frame. `sources` must be sorted by
   * summary index. O(rows · q²) for q sources, with no allocation per row.
   */
  accumulate(sources: readonly AttributeSource[], rowCount: number, rows: Int32Array | null): void {
    const q = sources.length;
    const present = new Int32Array(q);
    const x = new Float64Array(q);
    const attrs = this.attrs;
    const pairs = this.pairs;
    for (let t = 0; t < rowCount; t++) {
      const r = rows === null ? t : rows[t];
      let m = 0;
      for (let k = 0; k < q; k++) {
        const s = sources[k];
        let v: number;
        if (s.codes !== null) {
          const code = s.codes[r];
          v = code < 0 ? NaN : code === s.level ? 1 : 0;
        } else {
          v = s.values![r];
        }
        if (v === v) {
          present[m] = s.index;
          x[m] = v;
          m++;
        }
      }
      for (let a = 0; a < m; a++) {
        const i = present[a];
        const xi = x[a];
        const xi2 = xi * xi;
        const ak = i * ATTR.STRIDE;
        attrs[ak + ATTR.N] += 1;
        if (xi < attrs[ak + ATTR.MIN]) attrs[ak + ATTR.MIN] = xi;
        if (xi > attrs[ak + ATTR.MAX]) attrs[ak + ATTR.MAX] = xi;
        // Adding 0 leaves a compensated sum unchanged, and most values of categorical
        // expansions are 0: only the counts need updating for them.
        if (xi !== 0) {
          addCompensated(attrs, ak + ATTR.S1, xi);
          addCompensated(attrs, ak + ATTR.S2, xi2);
          addCompensated(attrs, ak + ATTR.S3, xi2 * xi);
          addCompensated(attrs, ak + ATTR.S4, xi2 * xi2);
        }
        for (let b = a; b < m; b++) {
          const j = present[b];
          const xj = x[b];
          const pk = pairOffset(i, j);
          pairs[pk + PAIR.N] += 1;
          if (xi !== 0) {
            addCompensated(pairs, pk + PAIR.SI, xi);
            addCompensated(pairs, pk + PAIR.SII, xi2);
          }
          if (xj === 0) continue;
          const xj2 = xj * xj;
          addCompensated(pairs, pk + PAIR.SJ, xj);
          addCompensated(pairs, pk + PAIR.SJJ, xj2);
          if (xi !== 0) {
            addCompensated(pairs, pk + PAIR.SIJ, xi * xj);
            addCompensated(pairs, pk + PAIR.SIIJJ, xi2 * xj2);
          }
        }
      }
    }
  }

  /**
   * The first statistic that would become negative if `other` (aligned by `alignment`) were
   * subtracted: a count, or Σx of a binary attribute (its count of ones). Returns the
   * offending attribute index, or -1 when the subtraction is valid.
   */
  firstNegative(other: MomentStore, alignment: Alignment, binary: (i: number) => boolean): number {
    const { source, zero } = alignment;
    for (let i = 0; i < this.size; i++) {
      const s = source[i];
      if (s < 0) continue;
      const k = i * ATTR.STRIDE;
      const ks = s * ATTR.STRIDE;
      if (this.attrs[k + ATTR.N] < other.attrs[ks + ATTR.N]) return i;
      if (binary(i) && zero[i] === 0 && compensatedValue(this.attrs, k + ATTR.S1) < compensatedValue(other.attrs, ks + ATTR.S1)) return i;
    }
    for (let j = 0; j < this.size; j++) {
      const b = source[j];
      if (b < 0) continue;
      for (let i = 0; i <= j; i++) {
        const a = source[i];
        if (a < 0) continue;
        const from = a <= b ? pairOffset(a, b) : pairOffset(b, a);
        if (this.pairs[pairOffset(i, j) + PAIR.N] < other.pairs[from + PAIR.N]) return j;
      }
    }
    return -1;
  }

  /** Adds (`sign` 1) or subtracts (`sign` -1) `other`'s statistics, aligned by `alignment`. */
  combine(other: MomentStore, alignment: Alignment, sign: 1 | -1): void {
    const { source, zero } = alignment;
    for (let i = 0; i < this.size; i++) {
      const s = source[i];
      if (s < 0) continue;
      const k = i * ATTR.STRIDE;
      const ks = s * ATTR.STRIDE;
      const n = other.attrs[ks + ATTR.N];
      this.attrs[k + ATTR.N] += sign * n;
      if (zero[i] === 0) {
        for (const sum of [ATTR.S1, ATTR.S2, ATTR.S3, ATTR.S4]) combineCompensated(this.attrs, k + sum, other.attrs, ks + sum, sign);
      }
      // Extremes are not subtractable: forget keeps the extremes ever learned.
      if (sign === 1 && n > 0) {
        const min = zero[i] === 1 ? 0 : other.attrs[ks + ATTR.MIN];
        const max = zero[i] === 1 ? 0 : other.attrs[ks + ATTR.MAX];
        this.attrs[k + ATTR.MIN] = Math.min(this.attrs[k + ATTR.MIN], min);
        this.attrs[k + ATTR.MAX] = Math.max(this.attrs[k + ATTR.MAX], max);
      }
    }
    for (let j = 0; j < this.size; j++) {
      const b = source[j];
      if (b < 0) continue;
      for (let i = 0; i <= j; i++) {
        const a = source[i];
        if (a < 0) continue;
        const swapped = a > b;
        const from = swapped ? pairOffset(b, a) : pairOffset(a, b);
        const to = pairOffset(i, j);
        const p = this.pairs;
        const o = other.pairs;
        p[to + PAIR.N] += sign * o[from + PAIR.N];
        if (zero[i] === 0) {
          combineCompensated(p, to + PAIR.SI, o, from + (swapped ? PAIR.SJ : PAIR.SI), sign);
          combineCompensated(p, to + PAIR.SII, o, from + (swapped ? PAIR.SJJ : PAIR.SII), sign);
        }
        if (zero[j] === 0) {
          combineCompensated(p, to + PAIR.SJ, o, from + (swapped ? PAIR.SI : PAIR.SJ), sign);
          combineCompensated(p, to + PAIR.SJJ, o, from + (swapped ? PAIR.SII : PAIR.SJJ), sign);
        }
        if (zero[i] === 0 && zero[j] === 0) {
          combineCompensated(p, to + PAIR.SIJ, o, from + PAIR.SIJ, sign);
          combineCompensated(p, to + PAIR.SIIJJ, o, from + PAIR.SIIJJ, sign);
        }
      }
    }
  }
}

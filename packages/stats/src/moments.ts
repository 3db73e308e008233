import { addCompensated, combineCompensated, compensatedValue, twoSumError } from './compensated';
import { GramBlocks, gramBlockRows } from './kernels/gram';
import { kernels } from './kernels/select';

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

/** Rows summed (compensated, in local variables) before a block total is added to a stored sum. */
const BLOCK = 256;
/** Where the moments kernel's learnAttributes finds an attribute's count, power sums and extremes (native/kernels.c). */
const KERNEL_LAYOUT = Int32Array.of(ATTR.N, ATTR.S1, ATTR.S2, ATTR.S3, ATTR.S4, ATTR.MIN, ATTR.MAX);

/** One attribute's values over the learned rows: NaN marks a missing cell. */
function denseColumn(s: AttributeSource, rowCount: number, rows: Int32Array | null): Float64Array {
  if (s.values !== null && rows === null && s.values.length === rowCount) return s.values;
  const out = new Float64Array(rowCount);
  for (let t = 0; t < rowCount; t++) {
    const r = rows === null ? t : rows[t];
    if (s.codes !== null) {
      const code = s.codes[r];
      out[t] = code < 0 ? NaN : code === s.level ? 1 : 0;
    } else {
      out[t] = s.values![r];
    }
  }
  return out;
}

/**
 * Σx_i·x_j and Σx_i²·x_j² of every pair of complete columns (no missing cell in the frame):
 * blocked rank-k updates. Per block of R rows the kernel (kernels/gram.ts) sums, for all pairs
 * at once, the products of the shifted values d = x − s (s: the block's first value of the
 * column rounded to 21 significant bits) and the products of the squares x². Each block total
 * is folded into the stored compensated sums:
 *   Σx_i·x_j = Σd_i·d_j + s_i·Σd_j + s_j·Σd_i + R·s_i·s_j
 * where every product of a shift is exact (s has 21 bits, R ≤ 2^11, Σd is split into two
 * halves of 26 bits), so the only roundings are those of Σd_i·d_j within one block: small
 * next to the sums because the shift removes the columns' level (large means relative to
 * the spread are where plain sums of x_i·x_j lose digits). Σx_i²·x_j² sums non-negative terms
 * and needs no shift.
 */
function accumulateCompleteProducts(pairs: Float64Array, index: readonly number[], columns: readonly Float64Array[], rowCount: number): void {
  const m = columns.length;
  // At most 2^11 rows: rows · shift_i · shift_j stays exact (below).
  const rowsPerBlock = Math.min(rowCount, gramBlockRows(m));
  const gram = new GramBlocks(2, m, rowsPerBlock);
  const [shifted, squares] = gram.blocks;
  const stride = gram.stride;
  const out = gram.out;
  const shift = new Float64Array(m);
  const levelShift = new Float64Array(m); // R · s, exact
  const sumHigh = new Float64Array(m); // Σd split into two halves of at most 26 bits
  const sumLow = new Float64Array(m);
  const totals = new Float64Array(m); // each column's compensated Σd over the block
  const moments = kernels().moments;
  gram.clearPadding(m, rowsPerBlock);
  for (let start = 0; start < rowCount; start += rowsPerBlock) {
    const rows = Math.min(rowsPerBlock, rowCount - start);
    if (rows < rowsPerBlock) gram.clearPadding(m, rows);
    for (let a = 0; a < m; a++) shift[a] = splitHigh(columns[a][start], SHIFT_SPLITTER);
    // The shifted values, the squares and each column's compensated Σd (kernels/moments.ts).
    moments.shiftColumns(columns, start, rows, shift, shifted, squares, stride, totals);
    for (let a = 0; a < m; a++) {
      levelShift[a] = rows * shift[a];
      sumHigh[a] = splitHigh(totals[a], HALF_SPLITTER);
      sumLow[a] = totals[a] - sumHigh[a];
    }
    for (let b = 0; b < m; b += 4) {
      const last = Math.min(m, b + 4);
      gram.strip(0, b);
      for (let c = b; c < last; c++) {
        const j = c - b;
        for (let a = 0; a < c; a++) {
          // Σd_a·d_c + s_a·Σd_c + s_c·Σd_a + R·s_a·s_c, compensated in local variables.
          let sum = out[4 * a + j], compensation = 0, t = 0, v = 0;
          v = shift[a] * sumHigh[c]; t = sum + v; compensation += twoSumError(sum, v, t); sum = t;
          v = shift[a] * sumLow[c]; t = sum + v; compensation += twoSumError(sum, v, t); sum = t;
          v = shift[c] * sumHigh[a]; t = sum + v; compensation += twoSumError(sum, v, t); sum = t;
          v = shift[c] * sumLow[a]; t = sum + v; compensation += twoSumError(sum, v, t); sum = t;
          v = levelShift[a] * shift[c]; t = sum + v; compensation += twoSumError(sum, v, t); sum = t;
          addBlock(pairs, pairOffset(index[a], index[c]) + PAIR.SIJ, sum, compensation);
        }
      }
      gram.strip(1, b);
      for (let c = b; c < last; c++) {
        const j = c - b;
        for (let a = 0; a < c; a++) addCompensated(pairs, pairOffset(index[a], index[c]) + PAIR.SIIJJ, out[4 * a + j]);
      }
    }
  }
}

/** Veltkamp's splitter 2^32 + 1: the high part keeps 21 significant bits. */
const SHIFT_SPLITTER = 2 ** 32 + 1;
/** Veltkamp's splitter 2^27 + 1: high and low parts of at most 26 bits each. */
const HALF_SPLITTER = 2 ** 27 + 1;

/** The high part of Veltkamp's split of v: v rounded to fewer significant bits (exactly representable products). */
function splitHigh(v: number, splitter: number): number {
  const c = splitter * v;
  return c - (c - v);
}

/** Adds a block total (sum + its compensation) to the compensated sum at `a[k]`. */
function addBlock(a: Float64Array, k: number, sum: number, compensation: number): void {
  addCompensated(a, k, sum);
  a[k + 1] += compensation;
}

/** Every pair sum over the rows where both columns are present, blocked and compensated. */
function accumulateCoPresent(pairs: Float64Array, pk: number, xi: Float64Array, xj: Float64Array): void {
  let n = 0;
  const acc = new Float64Array(12); // six (sum, compensation) pairs
  for (let start = 0; start < xi.length; start += BLOCK) {
    const end = Math.min(xi.length, start + BLOCK);
    acc.fill(0);
    for (let r = start; r < end; r++) {
      const a = xi[r];
      const b = xj[r];
      if (a !== a || b !== b) continue;
      n++;
      const p = a * b;
      neumaier(acc, 0, a);
      neumaier(acc, 2, b);
      neumaier(acc, 4, a * a);
      neumaier(acc, 6, b * b);
      neumaier(acc, 8, p);
      neumaier(acc, 10, p * p);
    }
    addBlock(pairs, pk + PAIR.SI, acc[0], acc[1]);
    addBlock(pairs, pk + PAIR.SJ, acc[2], acc[3]);
    addBlock(pairs, pk + PAIR.SII, acc[4], acc[5]);
    addBlock(pairs, pk + PAIR.SJJ, acc[6], acc[7]);
    addBlock(pairs, pk + PAIR.SIJ, acc[8], acc[9]);
    addBlock(pairs, pk + PAIR.SIIJJ, acc[10], acc[11]);
  }
  pairs[pk + PAIR.N] += n;
}

/** One compensated step (see compensated.ts) on the (sum, compensation) pair at acc[k], acc[k + 1]. */
function neumaier(acc: Float64Array, k: number, v: number): void {
  const s = acc[k];
  const t = s + v;
  acc[k + 1] += twoSumError(s, v, t);
  acc[k] = t;
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

/** A categorical column of a batch: its codes per learned row and the summary levels it feeds. */
export interface CategoricalGroup {
  /** codes[t]: the code of learned row t (−1 missing). */
  readonly codes: Int32Array;
  /** One more than the largest code. */
  readonly size: number;
  /** Rows where the column is present. */
  readonly present: number;
  /** Its levels among the sources, sorted by index (level −2: a known level absent from this batch). */
  readonly levels: AttributeSource[];
  /** Rows of code `level`. */
  count(level: number): number;
}

/** The categorical sources grouped by column (their shared codes), with each column's code counts. */
export function categoricalGroups(sources: readonly AttributeSource[], rowCount: number, rows: Int32Array | null): CategoricalGroup[] {
  const byCodes = new Map<Int32Array, AttributeSource[]>();
  for (const s of sources) {
    if (s.codes === null) continue;
    const levels = byCodes.get(s.codes);
    if (levels) levels.push(s);
    else byCodes.set(s.codes, [s]);
  }
  return [...byCodes].map(([all, levels]) => {
    const codes = rows === null ? all.subarray(0, rowCount) : Int32Array.from({ length: rowCount }, (_, t) => all[rows[t]]);
    let size = 0;
    for (let t = 0; t < rowCount; t++) if (codes[t] >= size) size = codes[t] + 1;
    const counts = new Float64Array(size);
    let present = 0;
    for (let t = 0; t < rowCount; t++) {
      const code = codes[t];
      if (code < 0) continue;
      present++;
      counts[code]++;
    }
    return { codes, size, present, levels, count: (level: number) => (level >= 0 && level < size ? counts[level] : 0) };
  });
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
   * summary index. O(rows · q²) for q numeric sources, O(rows · q) for the categorical ones.
   *
   * Numeric sources, column-major and blocked: each attribute's values are first laid out
   * densely. Pairs of two complete columns (no missing cell in the frame) take their counts
   * and single sums from the column totals, and their Σxy, Σx²y² from the cross-product
   * kernel (accumulateCompleteProducts). Other pairs sum over the rows where both are
   * present, in blocks of BLOCK rows with Neumaier compensation in local variables. Either
   * way each block's total is added to the stored compensated sum once, so forgetting stays
   * the inverse of learning to within the roundings of one block. Categorical levels are
   * never expanded into columns: see learnLevels and below.
   */
  accumulate(sources: readonly AttributeSource[], rowCount: number, rows: Int32Array | null, groups = categoricalGroups(sources, rowCount, rows)): void {
    if (sources.length === 0 || rowCount === 0) return;
    const numeric = sources.filter((s) => s.values !== null);
    const columns = this.accumulateNumeric(numeric, rowCount, rows);
    for (const g of groups) this.learnLevels(g);
    for (const g of groups) numeric.forEach((s, b) => this.crossLevelsNumeric(g, s.index, columns[b]));
    for (let h = 1; h < groups.length; h++) for (let g = 0; g < h; g++) this.crossLevelsLevels(groups[g], groups[h]);
  }

  /** The numeric sources (sorted by index) among themselves; returns their dense columns. */
  private accumulateNumeric(sources: readonly AttributeSource[], rowCount: number, rows: Int32Array | null): Float64Array[] {
    const q = sources.length;
    const columns = sources.map((s) => denseColumn(s, rowCount, rows));
    const totals = this.learnAttributes(sources, columns);
    const complete = totals.map((t) => t.n === rowCount);
    const pairs = this.pairs;
    for (let b = 0; b < q; b++) {
      const j = sources[b].index;
      const xj = columns[b];
      for (let a = 0; a <= b; a++) {
        const i = sources[a].index;
        const pk = pairOffset(i, j);
        if (a === b) {
          // A pair of an attribute with itself: every sum is one of the attribute's own.
          const t = totals[a];
          pairs[pk + PAIR.N] += t.n;
          addBlock(pairs, pk + PAIR.SI, t.sums[0], t.sums[1]);
          addBlock(pairs, pk + PAIR.SJ, t.sums[0], t.sums[1]);
          addBlock(pairs, pk + PAIR.SII, t.sums[2], t.sums[3]);
          addBlock(pairs, pk + PAIR.SJJ, t.sums[2], t.sums[3]);
          addBlock(pairs, pk + PAIR.SIJ, t.sums[2], t.sums[3]);
          addBlock(pairs, pk + PAIR.SIIJJ, t.sums[6], t.sums[7]);
        } else if (complete[a] && complete[b]) {
          pairs[pk + PAIR.N] += rowCount;
          addBlock(pairs, pk + PAIR.SI, totals[a].sums[0], totals[a].sums[1]);
          addBlock(pairs, pk + PAIR.SII, totals[a].sums[2], totals[a].sums[3]);
          addBlock(pairs, pk + PAIR.SJ, totals[b].sums[0], totals[b].sums[1]);
          addBlock(pairs, pk + PAIR.SJJ, totals[b].sums[2], totals[b].sums[3]);
          // Σx_i·x_j and Σx_i²·x_j²: accumulateCompleteProducts, below, for all such pairs at once.
        } else {
          accumulateCoPresent(pairs, pk, columns[a], xj);
        }
      }
    }
    const full = columns.flatMap((_, k) => (complete[k] ? [k] : []));
    if (full.length > 1) accumulateCompleteProducts(pairs, full.map((k) => sources[k].index), full.map((k) => columns[k]), rowCount);
    return columns;
  }

  /*
   * Categorical levels are sparse: a row is 1 in the level of its code and 0 in the others,
   * so no level is expanded into a column. Per categorical column, one pass counts its codes;
   * with a numeric column, one pass sums the numeric values per code; with another
   * categorical column, one pass counts the code pairs. O(rows · columns) whatever the number
   * of levels, plus O(levels) (O(levels²) within and between categorical columns) per batch.
   */

  /** The levels' own moments and the pairs of levels of the same column. */
  private learnLevels(g: CategoricalGroup): void {
    const a = this.attrs;
    for (const s of g.levels) {
      const ones = g.count(s.level);
      const k = s.index * ATTR.STRIDE;
      a[k + ATTR.N] += g.present;
      // Every power of a 0/1 value is itself: the sums are the count of ones (exact integers).
      for (const sum of [ATTR.S1, ATTR.S2, ATTR.S3, ATTR.S4]) addCompensated(a, k + sum, ones);
      if (ones > 0) a[k + ATTR.MAX] = Math.max(a[k + ATTR.MAX], 1);
      if (g.present > ones) a[k + ATTR.MIN] = Math.min(a[k + ATTR.MIN], 0);
      if (ones > 0) a[k + ATTR.MIN] = Math.min(a[k + ATTR.MIN], 1);
      if (g.present > ones) a[k + ATTR.MAX] = Math.max(a[k + ATTR.MAX], 0);
    }
    // Levels are sorted by index: (a, b) with a ≤ b is the stored pair's order.
    const levels = g.levels;
    const ones = Float64Array.from(levels, (s) => g.count(s.level));
    for (let b = 0; b < levels.length; b++) {
      const j = levels[b].index;
      // Two levels of one column are never both 1: Σx_i·x_j = 0 but for a level with itself.
      for (let a = 0; a < b; a++) this.addCounts(levels[a].index, j, g.present, ones[a], ones[b], 0);
      this.addCounts(j, j, g.present, ones[b], ones[b], ones[b]);
    }
  }

  /** Pairs of the levels of `g` with the numeric attribute `index` (dense values x, NaN = missing). */
  private crossLevelsNumeric(g: CategoricalGroup, index: number, x: Float64Array): void {
    const { codes, size } = g;
    // Per code: count, Σx, Σx² over the rows where x is present ((sum, compensation) pairs).
    const counts = new Float64Array(size);
    const sums = new Float64Array(4 * size);
    let n = 0;
    let s1 = 0, c1 = 0, s2 = 0, c2 = 0;
    for (let t = 0; t < codes.length; t++) {
      const code = codes[t];
      const v = x[t];
      if (code < 0 || v !== v) continue;
      n++;
      const v2 = v * v;
      counts[code]++;
      addCompensated(sums, 4 * code, v);
      addCompensated(sums, 4 * code + 2, v2);
      let u = s1 + v;
      c1 += twoSumError(s1, v, u);
      s1 = u;
      u = s2 + v2;
      c2 += twoSumError(s2, v2, u);
      s2 = u;
    }
    for (const s of g.levels) {
      const c = s.level >= 0 && s.level < size ? s.level : -1;
      const ones = c < 0 ? 0 : counts[c];
      const [xy, cxy, xxyy, cxxyy] = c < 0 ? [0, 0, 0, 0] : [sums[4 * c], sums[4 * c + 1], sums[4 * c + 2], sums[4 * c + 3]];
      this.addPair(s.index, index, n, ones, 0, s1, c1, ones, 0, s2, c2, xy, cxy, xxyy, cxxyy);
    }
  }

  /** Pairs of the levels of two categorical columns: counts of code pairs over the rows where both are present. */
  private crossLevelsLevels(g: CategoricalGroup, h: CategoricalGroup): void {
    const joint = new Float64Array(g.size * h.size);
    const marginG = new Float64Array(g.size);
    const marginH = new Float64Array(h.size);
    let n = 0;
    for (let t = 0; t < g.codes.length; t++) {
      const a = g.codes[t];
      const b = h.codes[t];
      if (a < 0 || b < 0) continue;
      n++;
      joint[a * h.size + b]++;
      marginG[a]++;
      marginH[b]++;
    }
    for (const u of g.levels) {
      const a = u.level >= 0 && u.level < g.size ? u.level : -1;
      for (const v of h.levels) {
        const b = v.level >= 0 && v.level < h.size ? v.level : -1;
        const cu = a < 0 ? 0 : marginG[a];
        const cv = b < 0 ? 0 : marginH[b];
        const both = a < 0 || b < 0 ? 0 : joint[a * h.size + b];
        this.addCounts(u.index, v.index, n, cu, cv, both);
      }
    }
  }

  /**
   * addPair for two 0/1 attributes: every sum is a count (x = x² for 0/1), `ones` of i, of j
   * and of both. Counts are integers, so plain additions to the sums are exact (their
   * compensations stay as they are): the O(L²) pairs of levels cost little per batch.
   */
  private addCounts(i: number, j: number, n: number, onesI: number, onesJ: number, both: number): void {
    const pairs = this.pairs;
    const pk = i <= j ? pairOffset(i, j) : pairOffset(j, i);
    const first = i <= j ? onesI : onesJ;
    const second = i <= j ? onesJ : onesI;
    pairs[pk + PAIR.N] += n;
    pairs[pk + PAIR.SI] += first;
    pairs[pk + PAIR.SII] += first;
    pairs[pk + PAIR.SJ] += second;
    pairs[pk + PAIR.SJJ] += second;
    pairs[pk + PAIR.SIJ] += both;
    pairs[pk + PAIR.SIIJJ] += both;
  }

  /**
   * Adds a batch's sums to the pair of attributes (i, j), given in that order as (sum,
   * compensation): Σx_i, Σx_j, Σx_i², Σx_j², Σx_i·x_j, Σx_i²·x_j². The stored pair puts the
   * lower index first.
   */
  private addPair(i: number, j: number, n: number, si: number, ci: number, sj: number, cj: number, sii: number, cii: number, sjj: number, cjj: number, sij: number, cij: number, siijj: number, ciijj: number): void {
    const pairs = this.pairs;
    const pk = i <= j ? pairOffset(i, j) : pairOffset(j, i);
    pairs[pk + PAIR.N] += n;
    if (i <= j) {
      addBlock(pairs, pk + PAIR.SI, si, ci);
      addBlock(pairs, pk + PAIR.SJ, sj, cj);
      addBlock(pairs, pk + PAIR.SII, sii, cii);
      addBlock(pairs, pk + PAIR.SJJ, sjj, cjj);
    } else {
      addBlock(pairs, pk + PAIR.SI, sj, cj);
      addBlock(pairs, pk + PAIR.SJ, si, ci);
      addBlock(pairs, pk + PAIR.SII, sjj, cjj);
      addBlock(pairs, pk + PAIR.SJJ, sii, cii);
    }
    addBlock(pairs, pk + PAIR.SIJ, sij, cij);
    addBlock(pairs, pk + PAIR.SIIJJ, siijj, ciijj);
  }

  /** Adds every source's dense column; returns each one's count and its compensated sums of x, x², x³, x⁴ (kernels/moments.ts). */
  private learnAttributes(sources: readonly AttributeSource[], columns: Float64Array[]): { n: number; sums: Float64Array }[] {
    const out = new Float64Array(9 * columns.length);
    kernels().moments.learnAttributes(columns, Float64Array.from(sources, (s) => s.index * ATTR.STRIDE), this.attrs, KERNEL_LAYOUT, BLOCK, out);
    return columns.map((_, k) => ({ n: out[9 * k], sums: out.subarray(9 * k + 1, 9 * k + 9) }));
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

  /** Adds (`sign` 1) or removes (`sign` -1) `other`'s statistics, aligned by `alignment`; firstNegative checks a removal first. */
  merge(other: MomentStore, alignment: Alignment, sign: 1 | -1): void {
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

import { ByteReader, ByteWriter } from '../binary';
import { addCompensated, combineCompensated, compensatedValue } from '../compensated';
import { CapacityError, FrameError, SummaryError } from '../errors';
import { cellText, parseDecimal } from '../frame';
import type { Sign } from '../parts';

/*
 * A target encoder (API.md §3): per input attribute (key) and per distinct value of it, the
 * count of rows having that value and the compensated sums Σtarget, Σtarget² over them, plus
 * the same three over every row learned. Exact and mergeable like the project summary:
 * counts are integers in doubles, sums are Neumaier pairs (compensated.ts), so merge and
 * subtract are the exact inverse of each other up to a few ulps.
 */

/** `B`: 0/1 target (an encoding is P(target = 1 | value)); `C`: continuous target. */
export type EncoderTargetType = 'B' | 'C';

export interface EncoderOptions {
  target: string;
  targetType: EncoderTargetType;
  /** A value seen fewer times than this encodes to the overall target mean. */
  minTrimSize: number;
}

/** The REST DataFrame as the encoder reads it: string cells, one array per row. */
export interface EncoderFrame {
  attributeNames: readonly string[];
  attributeTypes: readonly string[];
  data: readonly (readonly unknown[])[];
}

/** Count, Σt (value, compensation), Σt² (value, compensation). */
const N = 0, S1 = 1, S2 = 3, STRIDE = 5;

/** Types whose cells are keyed values: `S` one value per cell, `L` a `|`-separated list of values. */
const KEYED = new Set(['S', 'L']);
/** Columns kept as keys without values (SymetryML lists them in stats with count 0); `X` is ignored. */
const LISTED = new Set(['S', 'L', 'C', 'B', 'T']);
export const LIST_SEPARATOR = '|';

/** The values one cell of a keyed column stands for. */
export function cellValues(type: string, cell: unknown): string[] {
  const text = cellText(cell) ?? '';
  return type === 'L' ? text.split(LIST_SEPARATOR) : [text];
}

/**
 * One key's values, struct-of-arrays: value `i` is `names[i]`, its slot is
 * `slots[STRIDE·i … STRIDE·i + 4]`, `index` maps a value to `i`. One Float64Array per key,
 * not one per value: 10⁶ values cost ~150 bytes each on the heap, and the garbage
 * collector has 10 arrays to trace instead of 10⁶.
 */
class KeyState {
  readonly index = new Map<string, number>();
  readonly names: string[] = [];
  slots = new Float64Array(STRIDE * 16);

  constructor(readonly type: string) {}

  get size(): number {
    return this.names.length;
  }

  /** The offset of `value`'s slot, or -1. */
  at(value: string): number {
    const i = this.index.get(value);
    return i === undefined ? -1 : STRIDE * i;
  }

  /** The offset of a new, zeroed slot for `value` (not held yet). */
  add(value: string): number {
    const i = this.names.length;
    if (STRIDE * (i + 1) > this.slots.length) {
      const grown = new Float64Array(Math.max(2 * this.slots.length, STRIDE * 16));
      grown.set(this.slots);
      this.slots = grown;
    }
    this.index.set(value, i);
    this.names.push(value);
    return STRIDE * i;
  }

  /** Removes `value`: the last value's slot moves into its place. */
  remove(value: string): void {
    const i = this.index.get(value)!;
    const last = this.names.length - 1;
    if (i !== last) {
      const moved = this.names[last];
      this.names[i] = moved;
      this.index.set(moved, i);
      this.slots.copyWithin(STRIDE * i, STRIDE * last, STRIDE * (last + 1));
    }
    this.slots.fill(0, STRIDE * last, STRIDE * (last + 1));
    this.names.pop();
    this.index.delete(value);
  }
}

/** One row of the stats DataFrame: per key, the distinct values and their counts' mean and sample variance. */
export interface KeyStats {
  key: string;
  type: string;
  count: number;
  mean: number;
  stddev: number;
  variance: number;
}

export interface ValueStats {
  value: string;
  count: number;
  sum: number;
  sumSquares: number;
}

export class Encoder {
  private readonly total = new Float64Array(STRIDE);
  private readonly keys = new Map<string, KeyState>();
  private distinct = 0;

  constructor(readonly options: EncoderOptions) {}

  /** Distinct (key, value) pairs held: the state bounded by SML_MAX_ENCODER_VALUES. */
  get valueCount(): number {
    return this.distinct;
  }

  /** Rows learned. */
  get rows(): number {
    return this.total[N];
  }

  /** The mean target over every row learned (NaN before any). */
  get overallMean(): number {
    return this.total[N] === 0 ? NaN : compensatedValue(this.total, S1) / this.total[N];
  }

  keyNames(): string[] {
    return [...this.keys.keys()].sort();
  }

  keyType(key: string): string | undefined {
    return this.keys.get(key)?.type;
  }

  /**
   * Learns a frame: the target column gives each row's target; every other column is a key
   * (S and L columns with their values). A row with a missing target is skipped. The frame is
   * checked whole first (target present, cells, key types, `maxValues`): on an error nothing
   * changes. Returns the number of rows learned.
   */
  learn(frame: EncoderFrame, maxValues = Infinity): number {
    const names = frame.attributeNames;
    const types = frame.attributeTypes;
    const t = names.indexOf(this.options.target);
    if (t < 0) throw new FrameError(-1, this.options.target, `the DataFrame has no target column [${this.options.target}]`);
    if (types.length !== names.length) throw new FrameError(-1, '', `${names.length} attributeNames but ${types.length} attributeTypes`);
    const inputs: number[] = [];
    for (let c = 0; c < names.length; c++) {
      if (c === t || types[c] === 'X') continue;
      if (!LISTED.has(types[c])) throw new FrameError(-1, names[c], `unknown attribute type [${types[c]}]`);
      const known = this.keys.get(names[c]);
      if (known && known.type !== types[c]) throw new FrameError(-1, names[c], `the encoder keeps this key as type ${known.type}, not ${types[c]}`);
      inputs.push(c);
    }
    const targets = new Float64Array(frame.data.length);
    const fresh = new Map<string, Set<string>>();
    let added = 0;
    // Counting the new values costs a lookup per cell: needless when the batch cannot pass the limit.
    const keyed = inputs.filter((c) => KEYED.has(types[c])).length;
    const bounded = inputs.some((c) => types[c] === 'L') || this.distinct + keyed * frame.data.length > maxValues;
    for (let r = 0; r < frame.data.length; r++) {
      const row = frame.data[r];
      if (row.length !== names.length) throw new FrameError(r + 1, '', `${row.length} cells, expected ${names.length}`);
      targets[r] = this.targetOf(row[t], r + 1);
      if (targets[r] !== targets[r] || !bounded) continue;
      for (const c of inputs) {
        if (!KEYED.has(types[c])) continue;
        const held = this.keys.get(names[c])?.index;
        let seen = fresh.get(names[c]);
        for (const v of cellValues(types[c], row[c])) {
          if (held?.has(v) || seen?.has(v)) continue;
          if (!seen) fresh.set(names[c], (seen = new Set()));
          seen.add(v);
          added++;
        }
      }
    }
    if (this.distinct + added > maxValues) throw new CapacityError('encoder-values', 'distinct key values', this.distinct + added, maxValues);
    for (const c of inputs) this.keyState(names[c], types[c]);
    let learned = 0;
    for (let r = 0; r < frame.data.length; r++) {
      const y = targets[r];
      if (y !== y) continue;
      learned++;
      accumulate(this.total, 0, y);
      for (const c of inputs) {
        if (!KEYED.has(types[c])) continue;
        const state = this.keys.get(names[c])!;
        for (const v of cellValues(types[c], frame.data[r][c])) {
          const at = this.valueSlot(state, v); // may grow state.slots: read it after
          accumulate(state.slots, at, y);
        }
      }
    }
    return learned;
  }

  private targetOf(cell: unknown, row: number): number {
    const text = cellText(cell);
    if (text === null) return NaN;
    const y = parseDecimal(text);
    if (!Number.isFinite(y)) throw new FrameError(row, this.options.target, `target [${text}] is not a number`);
    if (this.options.targetType === 'B' && y !== 0 && y !== 1) throw new FrameError(row, this.options.target, `binary target [${text}] is not 0 or 1`);
    return y;
  }

  private keyState(key: string, type: string): KeyState {
    let state = this.keys.get(key);
    if (!state) this.keys.set(key, (state = new KeyState(type)));
    return state;
  }

  /** The offset of `value`'s slot in `state.slots`, created (zero) when new. */
  private valueSlot(state: KeyState, value: string): number {
    const at = state.at(value);
    if (at >= 0) return at;
    this.distinct++;
    return state.add(value);
  }

  /**
   * The encoding of `value` of `key`: Σtarget/count over the rows having it, or the overall
   * target mean when it was seen fewer than minTrimSize times (or never) [seed].
   */
  encode(key: string, value: string): number {
    const state = this.keys.get(key);
    const at = state ? state.at(value) : -1;
    if (at < 0) return this.overallMean;
    const slots = state!.slots;
    if (slots[at + N] <= 0 || slots[at + N] < this.options.minTrimSize) return this.overallMean;
    return compensatedValue(slots, at + S1) / slots[at + N];
  }

  /** The encoding of one cell of a keyed column: an `L` cell is the mean of its values' encodings. */
  encodeCell(key: string, type: string, cell: unknown): number {
    const values = cellValues(type, cell);
    let sum = 0;
    for (const v of values) sum += this.encode(key, v);
    return sum / values.length;
  }

  /** Per key: how many distinct values, and the mean, sample standard deviation and variance of their counts. */
  stats(): KeyStats[] {
    return this.keyNames().map((key) => {
      const state = this.keys.get(key)!;
      const n = state.size;
      let mean = 0;
      for (let i = 0; i < n; i++) mean += state.slots[STRIDE * i + N];
      mean = n === 0 ? 0 : mean / n;
      let ss = 0;
      for (let i = 0; i < n; i++) ss += (state.slots[STRIDE * i + N] - mean) ** 2;
      const variance = n < 2 ? 0 : ss / (n - 1);
      return { key, type: state.type, count: n, mean, stddev: Math.sqrt(variance), variance };
    });
  }

  /** Every value of `key` (sorted), or undefined for a key never seen. */
  keyValues(key: string): ValueStats[] | undefined {
    const state = this.keys.get(key);
    if (!state) return undefined;
    return [...state.names].sort().map((value) => {
      const at = state.at(value);
      return { value, count: state.slots[at + N], sum: compensatedValue(state.slots, at + S1), sumSquares: compensatedValue(state.slots, at + S2) };
    });
  }

  /**
   * Replaces (`add` false) or adds to (`add` true) the count and Σtarget of values of a key,
   * creating the key (type `S`) and the values as needed. Σtarget² is not given: for a B target
   * it equals Σtarget; for a C target it is taken as Σtarget²/count (no spread within the
   * value). Checked whole first (counts non-negative integers, limit); the overall counts
   * are those of learned rows and do not change.
   */
  setValues(entries: readonly { key: string; value: string; count: number; sum: number }[], add: boolean, maxValues = Infinity): void {
    let added = 0;
    const fresh = new Set<string>();
    for (const e of entries) {
      if (!Number.isSafeInteger(e.count) || e.count < 0) throw new FrameError(-1, 'Count', `count [${e.count}] of value [${e.value}] is not a non-negative integer`);
      if (!Number.isFinite(e.sum)) throw new FrameError(-1, 'Sum', `sum [${e.sum}] of value [${e.value}] is not a finite number`);
      const id = `${e.key}\u0000${e.value}`;
      if (!this.keys.get(e.key)?.index.has(e.value) && !fresh.has(id)) {
        fresh.add(id);
        added++;
      }
    }
    if (this.distinct + added > maxValues) throw new CapacityError('encoder-values', 'distinct key values', this.distinct + added, maxValues);
    for (const e of entries) {
      const state = this.keyState(e.key, 'S');
      const at = this.valueSlot(state, e.value);
      const slots = state.slots;
      const count = add ? slots[at + N] + e.count : e.count;
      const sum = add ? compensatedValue(slots, at + S1) + e.sum : e.sum;
      slots.fill(0, at, at + STRIDE);
      slots[at + N] = count;
      slots[at + S1] = sum;
      slots[at + S2] = this.options.targetType === 'B' ? sum : count === 0 ? 0 : (sum * sum) / count;
    }
  }

  /** The distinct (key, value) pairs merging `other` into this encoder would hold. */
  mergedValueCount(other: Encoder): number {
    let count = this.distinct;
    for (const [key, state] of other.keys) {
      const mine = this.keys.get(key)?.index;
      for (const value of state.names) if (!mine?.has(value)) count++;
    }
    return count;
  }

  /**
   * Adds (sign 1) or removes (-1) `other`'s counts and sums (same target and type); a removal
   * is refused whole when a count would become negative.
   */
  merge(other: Encoder, sign: Sign = 1): this {
    if (other.options.target !== this.options.target || other.options.targetType !== this.options.targetType) {
      throw new SummaryError('incompatible', 'encoders with different targets cannot be combined');
    }
    if (sign === -1) this.checkRemovable(other);
    combineSlot(this.total, 0, other.total, 0, sign);
    for (const [key, state] of other.keys) {
      const mine = this.keyState(key, state.type);
      state.names.forEach((value, i) => {
        const at = this.valueSlot(mine, value);
        combineSlot(mine.slots, at, state.slots, STRIDE * i, sign);
        if (sign < 0 && mine.slots[at + N] === 0) {
          mine.remove(value);
          this.distinct--;
        }
      });
    }
    return this;
  }

  private checkRemovable(other: Encoder): void {
    if (other.total[N] > this.total[N]) throw new SummaryError('not-learned', 'cannot subtract an encoder with more rows');
    for (const [key, state] of other.keys) {
      const mine = this.keys.get(key);
      state.names.forEach((value, i) => {
        const count = state.slots[STRIDE * i + N];
        const at = mine ? mine.at(value) : -1;
        if (count > 0 && (at < 0 || mine!.slots[at + N] < count)) throw new SummaryError('not-learned', `cannot subtract value [${value}] seen more often than here`, key);
      });
    }
  }

  /**
   * The encoder as bytes: per key, every value's text as one UTF-8 block with the values'
   * UTF-16 lengths packed beside it, then their slots as one Float64 block (a few
   * bulk copies instead of one field per value: 10⁶ values encode and decode in about a second).
   */
  serialize(): Uint8Array {
    let capacity = 1024 + 16 * this.options.target.length;
    for (const [key, state] of this.keys) capacity += 64 + 3 * key.length + 8 * (STRIDE + 2) * state.size + 3 * state.names.reduce((n, v) => n + v.length, 0);
    const w = new ByteWriter(capacity);
    w.u32(FORMAT);
    w.string(this.options.target);
    w.string(this.options.targetType);
    w.f64(this.options.minTrimSize);
    w.f64s(this.total);
    w.u32(this.keys.size);
    for (const [key, state] of this.keys) {
      w.string(key);
      w.string(state.type);
      const lengths = new Float64Array(state.size);
      for (let i = 0; i < lengths.length; i++) lengths[i] = state.names[i].length;
      w.f64s(lengths);
      w.string(state.names.join(''));
      w.f64s(state.slots.subarray(0, STRIDE * state.size));
    }
    return w.bytes();
  }

  static deserialize(bytes: Uint8Array): Encoder {
    const r = new ByteReader(bytes);
    const format = r.u32();
    if (format !== FORMAT && format !== FORMAT_PER_VALUE) throw new SummaryError('damaged', 'damaged encoder serialization: unknown format');
    const target = r.string();
    const targetType = r.string();
    if (targetType !== 'B' && targetType !== 'C') throw new SummaryError('damaged', 'damaged encoder serialization: target type');
    const e = new Encoder({ target, targetType, minTrimSize: r.f64() });
    e.total.set(r.f64s());
    const keyCount = r.u32();
    for (let k = 0; k < keyCount; k++) {
      const state = e.keyState(r.string(), r.string());
      const values = format === FORMAT ? packedValues(r) : Array.from({ length: r.u32() }, () => r.string());
      const n = values.length;
      const slots = r.f64s();
      if (slots.length !== STRIDE * n) throw new SummaryError('damaged', 'damaged encoder serialization: value slots');
      for (const v of values) state.add(v);
      state.slots.set(slots);
      e.distinct += n;
    }
    return e;
  }

  /**
   * The encoder with only the listed values (and the overall counts): it encodes those
   * values as this one does, so a frame needs only the values in it, not the whole state.
   */
  subset(wanted: ReadonlyMap<string, Iterable<string>>): Encoder {
    const e = new Encoder(this.options);
    e.total.set(this.total);
    for (const [key, values] of wanted) {
      const state = this.keys.get(key);
      if (!state) continue;
      const into = e.keyState(key, state.type);
      for (const v of values) {
        const at = state.at(v);
        if (at < 0 || into.index.has(v)) continue;
        const to = e.valueSlot(into, v);
        into.slots.set(state.slots.subarray(at, at + STRIDE), to);
      }
    }
    return e;
  }
}

/** The values of one key in FORMAT: their UTF-16 lengths, then their texts as one string. */
function packedValues(r: ByteReader): string[] {
  const lengths = r.f64s();
  const text = r.string();
  const values = new Array<string>(lengths.length);
  let at = 0;
  for (let i = 0; i < lengths.length; i++) {
    values[i] = text.slice(at, at + lengths[i]);
    at += lengths[i];
  }
  if (at !== text.length) throw new SummaryError('damaged', 'damaged encoder serialization: value texts');
  return values;
}

/** 2: values packed per key; 1 (still read): one length-prefixed string per value. */
const FORMAT = 2;
const FORMAT_PER_VALUE = 1;

function accumulate(slots: Float64Array, at: number, y: number): void {
  slots[at + N] += 1;
  addCompensated(slots, at + S1, y);
  addCompensated(slots, at + S2, y * y);
}

function combineSlot(into: Float64Array, at: number, from: Float64Array, fromAt: number, sign: 1 | -1): void {
  into[at + N] += sign * from[fromAt + N];
  combineCompensated(into, at + S1, from, fromAt + S1, sign);
  combineCompensated(into, at + S2, from, fromAt + S2, sign);
}

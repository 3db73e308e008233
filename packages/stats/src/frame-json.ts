import { hasLoneSurrogate } from './errors';
import { kernels } from './kernels/select';
import { checkStructure, levelCode, sortedLevels, type CategoricalColumn, type ColumnType, type NumericColumn, type ParsedFrame } from './frame';

/*
 * A fast path for the common case of learning a DataFrame sent as JSON: the bytes are read
 * once and numeric cells go straight into Float64Arrays, without the millions of strings
 * JSON.parse would allocate and frame.ts would then parse again. It accepts only what it is
 * sure to read exactly as `parseFrame(JSON.parse(text))` would; on anything else (escapes,
 * a bad cell, a ragged row, keys in another order, non-ASCII spacing, a control character in
 * a string, bytes that are not UTF-8, a cell that is an array or an object) it returns null
 * and the caller takes the general path, which then produces the same result or the same
 * error.
 */

const QUOTE = 0x22, BACKSLASH = 0x5c, COMMA = 0x2c, COLON = 0x3a;
const OPEN_ARRAY = 0x5b, CLOSE_ARRAY = 0x5d, OPEN_OBJECT = 0x7b, CLOSE_OBJECT = 0x7d;
const MINUS = 0x2d, PLUS = 0x2b, DOT = 0x2e, ZERO = 0x30, NINE = 0x39;
/** Exact powers of ten: a double holds 10^k exactly up to k = 22. */
export const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);
/** Fatal: text that is not UTF-8 is not read here (JSON.parse of the general path refuses it too). */
const decoder = new TextDecoder('utf-8', { fatal: true });

class Bail extends Error {}
const bail = (): never => {
  throw new Bail();
};

/** The text of bytes [start, end); bails out when they are not UTF-8. */
function utf8(b: Uint8Array, start: number, end: number): string {
  try {
    return decoder.decode(b.subarray(start, end));
  } catch {
    return bail();
  }
}

/** A JSON value of bytes [start, end); bails out when it is not one (JSON.parse's SyntaxError is the general path's to report). */
function jsonValue(b: Uint8Array, start: number, end: number): unknown {
  const text = utf8(b, start, end);
  try {
    return JSON.parse(text);
  } catch {
    return bail();
  }
}

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

export function parseFrameJson(bytes: Uint8Array): ParsedFrame | null {
  try {
    return new FrameJsonReader(bytes, false).read() as ParsedFrame;
  } catch (err) {
    if (err instanceof Bail) return null;
    throw err;
  }
}

/**
 * A numeric column read as decimals: int32 mantissas at one scale (value = m / 10^scale, the
 * very double the text gives; MISSING_MANTISSA = missing), or float64 values when some cell
 * does not fit (an exponent beyond the scales, more than 9 digits, -0, …).
 */
export type DecimalColumn = { kind: 'C' | 'B'; name: string } & ({ mantissas: Int32Array; scale: number } | { values: Float64Array });

/** A frame of C and B columns only, read as decimal columns (readFrameDecimals). */
export interface DecimalFrame {
  readonly names: readonly string[];
  readonly types: readonly ColumnType[];
  readonly rowCount: number;
  readonly columns: readonly DecimalColumn[];
}

/** Decimal scales go up to 9 (int32 mantissas hold 9 digits). */
export const MAX_SCALE = 9;
/** The int32 that marks a missing cell among decimal mantissas (never a mantissa itself). */
export const MISSING_MANTISSA = -2147483648;
const MAX_MANTISSA = 2147483647;

/**
 * parseFrameJson for a frame that is going to travel as columns (frame-columns.ts): a frame
 * of C and B columns only is read straight into decimal mantissas, at each column's smallest
 * scale, without the float64 values and the second pass that finding the scale from them
 * takes; any other frame the fast reader takes comes back as parseFrameJson gives it; null
 * when it does not take the frame.
 */
export function readFrameDecimals(bytes: Uint8Array): ParsedFrame | DecimalFrame | null {
  try {
    return new FrameJsonReader(bytes, true).read();
  } catch (err) {
    if (err instanceof Bail) return null;
    throw err;
  }
}

class FrameJsonReader {
  private pos = 0;
  private spanStart = 0;
  private spanEnd = 0;
  constructor(
    private readonly b: Uint8Array,
    /** Frames of C and B columns only are read as decimal columns. */
    private readonly decimals: boolean,
  ) {}

  read(): ParsedFrame | DecimalFrame {
    this.expect(OPEN_OBJECT);
    const small: Record<string, unknown> = {};
    const seen = new Set<string>();
    let parsed: ParsedFrame | DecimalFrame | null = null;
    for (;;) {
      this.skipSpace();
      const key = this.key();
      if (seen.has(key)) bail();
      seen.add(key);
      if (key === 'data') {
        // Numeric cells need the types: they must come first.
        if (!('attributeNames' in small) || !('attributeTypes' in small)) bail();
        parsed = this.data(small.attributeNames, small.attributeTypes);
      } else if (key === 'attributeNames' || key === 'attributeTypes' || key === 'errorHandling') {
        const start = this.pos;
        this.skipValue();
        small[key] = jsonValue(this.b, start, this.pos);
      } else {
        bail();
      }
      this.skipSpace();
      const c = this.b[this.pos++];
      if (c === CLOSE_OBJECT) break;
      if (c !== COMMA) bail();
    }
    this.skipSpace();
    // errorHandling 1 (lenient) reports bad rows: the general path does that.
    if (this.pos !== this.b.length || parsed === null || (small.errorHandling !== undefined && small.errorHandling !== 0)) bail();
    return parsed!;
  }

  private data(names: unknown, types: unknown): ParsedFrame | DecimalFrame {
    let checked: { names: string[]; types: ColumnType[] };
    try {
      checked = checkStructure({ attributeNames: names as string[], attributeTypes: types as string[], data: [[]] });
    } catch {
      return bail();
    }
    const width = checked.names.length;
    const kinds = checked.types;
    const numericIndexes: number[] = [];
    const categoricalIndexes: number[] = [];
    kinds.forEach((t, c) => {
      if (t === 'C' || t === 'B') numericIndexes.push(c);
      else if (t === 'T') categoricalIndexes.push(c);
    });
    if (this.decimals && numericIndexes.length === width) return this.decimalFrame(checked.names, kinds);
    const slot = new Int32Array(width).fill(-1);
    numericIndexes.forEach((c, n) => (slot[c] = n));
    categoricalIndexes.forEach((c, t) => (slot[c] = t));

    // Columns sized from the bytes left and the first row's length, so they rarely grow.
    const capacity = this.estimateRows();
    const cells: Cells = {
      capacity,
      values: numericIndexes.map(() => new Float64Array(capacity)),
      codes: categoricalIndexes.map(() => new Int32Array(capacity)),
      levelMaps: categoricalIndexes.map(() => new Map<string, number>()),
    };
    const rows = this.rows(kinds, slot, numericIndexes.length === width, cells);
    const { values, codes, levelMaps } = cells;

    // A view when the estimate was close (no copy); a trimmed copy when it left much unused.
    const trim = (v: Float64Array) => (rows * 1.25 >= v.length ? v.subarray(0, rows) : v.slice(0, rows));
    const numeric = numericIndexes.map((c, n): NumericColumn => ({ kind: kinds[c] as 'C' | 'B', name: checked.names[c], values: trim(values[n]) }));
    const categorical = categoricalIndexes.map((c, t): CategoricalColumn => sortedLevels(checked.names[c], levelMaps[t], codes[t].subarray(0, rows)));
    // The cells of the rows are only read by partitions, survival and sequence counts, which
    // take the general path; the summary needs the row count.
    return { names: checked.names, types: kinds, rows: placeholderRows(rows), numeric, categorical, report: { rowsLearned: rows, rowsSkipped: 0, errors: [] } };
  }

  /**
   * The cells of one row of a frame of C and B columns only, into columns[c][row]: the
   * common cell is read by plainDecimal() with the cursor in a local variable, any other one
   * by numericCell(). The same as the general loop of data(), in about half the time.
   */
  private numericRow(columns: Float64Array[], binary: Uint8Array, row: number): void {
    const b = this.b;
    let p = this.pos;
    for (let c = 0; c < columns.length; c++) {
      while (isSpace(b[p])) p++;
      if (c > 0) {
        if (b[p] !== COMMA) bail();
        p++;
        while (isSpace(b[p])) p++;
      }
      let v = plainDecimal(b, p);
      if (v === v) {
        p = plainEnd;
      } else {
        this.pos = p;
        v = this.numericCell();
        p = this.pos;
      }
      if (binary[c] === 1 && v === v && v !== 0 && v !== 1) bail();
      columns[c][row] = v;
    }
    this.pos = p;
  }

  /**
   * Reads the data array's rows into `cells` (growing its columns as needed); returns the row
   * count. Its own method, apart from data()'s set-up and finishing: V8 optimizes this loop
   * while it runs, and code after a loop that had not run yet kept deoptimizing on every call.
   */
  private rows(kinds: readonly ColumnType[], slot: Int32Array, allNumeric: boolean, cells: Cells): number {
    const width = kinds.length;
    let { values, codes } = cells;
    const { levelMaps } = cells;
    let rows = 0;
    // Frames of C and B columns only (the common learn request) take numericRow().
    const binary = Uint8Array.from(kinds, (t) => (t === 'B' ? 1 : 0));

    this.openData();
    for (;;) {
      if (rows === cells.capacity) {
        growCells(cells);
        values = cells.values;
        codes = cells.codes;
      }
      this.expect(OPEN_ARRAY);
      if (allNumeric) {
        this.numericRow(values, binary, rows);
      } else {
        for (let c = 0; c < width; c++) {
          if (c > 0) this.expect(COMMA);
          this.skipSpace();
          const kind = kinds[c];
          if (kind === 'C' || kind === 'B') {
            const v = this.numericCell();
            if (kind === 'B' && v === v && v !== 0 && v !== 1) bail();
            values[slot[c]][rows] = v;
          } else if (kind === 'T') {
            codes[slot[c]][rows] = levelCode(levelMaps[slot[c]], this.categoryCell());
          } else {
            this.skipValidValue();
          }
        }
      }
      this.expect(CLOSE_ARRAY);
      rows++;
      if (!this.anotherRow()) break;
    }
    return rows;
  }

  /** The data array of a frame of C and B columns only, as decimal columns. */
  private decimalFrame(names: string[], kinds: ColumnType[]): DecimalFrame {
    const capacity = this.estimateRows();
    this.openData();
    // The common frame (C columns, plain cells) is read by WebAssembly; the loop below reads any other the same way.
    const fast = kinds.every((t) => t === 'C') ? kernels().decimals.rows(this.b, this.pos, kinds.length, capacity) : null;
    if (fast !== null) {
      this.pos = fast.end;
      const columns = names.map((name, c): DecimalColumn => ({ kind: 'C', name, mantissas: fast.mantissas[c], scale: fast.scales[c] }));
      return { names, types: kinds, rowCount: fast.rows, columns };
    }
    const cells: DecimalCells = {
      capacity,
      mantissas: kinds.map(() => new Int32Array(capacity)),
      scales: new Int32Array(kinds.length),
      values: kinds.map(() => null),
      plain: Uint8Array.from(kinds, (t) => (t === 'C' ? 1 : 0)),
    };
    const binary = Uint8Array.from(kinds, (t) => (t === 'B' ? 1 : 0));
    let rows = 0;
    for (;;) {
      if (rows === cells.capacity) growDecimalCells(cells);
      this.expect(OPEN_ARRAY);
      this.decimalRow(cells, binary, rows);
      this.expect(CLOSE_ARRAY);
      rows++;
      if (!this.anotherRow()) break;
    }
    const columns = kinds.map((kind, c): DecimalColumn => {
      const values = cells.values[c];
      const name = names[c];
      return values === null
        ? { kind: kind as 'C' | 'B', name, mantissas: cells.mantissas[c].subarray(0, rows), scale: cells.scales[c] }
        : { kind: kind as 'C' | 'B', name, values: values.subarray(0, rows) };
    });
    return { names, types: kinds, rowCount: rows, columns };
  }

  /**
   * The cells of one row of a frame of C and B columns only, into decimal columns: the common
   * cell (a quoted plain decimal of a C column) as its mantissa, read by plainMantissa() with
   * the cursor in a local variable; any other by numericCell(), then storeDecimal().
   */
  private decimalRow(cells: DecimalCells, binary: Uint8Array, row: number): void {
    const b = this.b;
    const { mantissas, scales, values, plain } = cells;
    let p = this.pos;
    for (let c = 0; c < mantissas.length; c++) {
      // Spacing is rare: one comparison passes the common byte (every space is ≤ 0x20).
      if (b[p] <= 0x20) while (isSpace(b[p])) p++;
      if (c > 0) {
        if (b[p] !== COMMA) bail();
        p++;
        if (b[p] <= 0x20) while (isSpace(b[p])) p++;
      }
      const m = plain[c] === 1 ? plainMantissa(b, p) : NaN;
      if (m === m) {
        p = plainEnd;
        const s = plainScale;
        // A cell with more decimals than the column had raises its scale (rare: once per digit at most).
        if (s > scales[c] && !rescale(cells, c, s, row)) {
          values[c]![row] = s === 0 ? m : m / POW10[s];
          continue;
        }
        const scaled = s === scales[c] ? m : m * POW10[scales[c] - s];
        // -0 has no int32 mantissa; neither has a magnitude of 2^31 or more.
        if (scaled <= MAX_MANTISSA && scaled >= -MAX_MANTISSA && (scaled !== 0 || 1 / scaled > 0)) {
          mantissas[c][row] = scaled;
          continue;
        }
        toValues(cells, c, row);
        values[c]![row] = s === 0 ? m : m / POW10[s];
        continue;
      }
      this.pos = p;
      const v = this.numericCell();
      p = this.pos;
      if (binary[c] === 1 && v === v && v !== 0 && v !== 1) bail();
      storeDecimal(cells, c, row, v);
    }
    this.pos = p;
  }

  /** Moves into the data array, to its first row: an empty one bails out (the general path refuses it). */
  private openData(): void {
    this.expect(OPEN_ARRAY);
    this.skipSpace();
    if (this.b[this.pos] === CLOSE_ARRAY) bail();
  }

  /** After a row's closing bracket: true, at the next row, when a comma follows; false past the data array's end. */
  private anotherRow(): boolean {
    this.skipSpace();
    const c = this.b[this.pos++];
    if (c === CLOSE_ARRAY) return false;
    if (c !== COMMA) bail();
    this.skipSpace();
    return true;
  }

  /** Rows the data array at pos likely holds: the bytes left over the first row's length, plus 10%. */
  private estimateRows(): number {
    const b = this.b;
    let end = this.pos;
    while (end < b.length && b[end] !== CLOSE_ARRAY) end++;
    const firstRow = Math.max(1, end - this.pos);
    return Math.min(1 << 24, Math.max(16, Math.ceil(((b.length - this.pos) / firstRow) * 1.1)));
  }

  /** A C/B cell: a JSON string holding a decimal or a missing token, a JSON number, or null. NaN = missing. */
  private numericCell(): number {
    const b = this.b;
    const c = b[this.pos];
    if (c === QUOTE) {
      const quick = plainDecimal(b, this.pos);
      if (quick === quick) {
        this.pos = plainEnd;
        return quick;
      }
      this.trimmedString();
      const start = this.spanStart;
      const end = this.spanEnd;
      return isMissing(b, start, end) ? NaN : decimal(b, start, end);
    }
    if (this.nullLiteral()) return NaN;
    if (c === MINUS || (c >= ZERO && c <= NINE)) {
      const start = this.pos;
      while (this.pos < b.length && !isDelimiter(b[this.pos])) this.pos++;
      return decimal(b, start, this.pos);
    }
    return bail();
  }

  /** A T cell: trimmed, lower-cased text; null when missing. */
  private categoryCell(): string | null {
    if (this.nullLiteral()) return null;
    if (this.b[this.pos] !== QUOTE) return bail();
    this.trimmedString();
    const start = this.spanStart;
    const end = this.spanEnd;
    return isMissing(this.b, start, end) ? null : utf8(this.b, start, end).toLowerCase();
  }

  /**
   * Moves past a JSON string at pos and sets [spanStart, spanEnd) to its text without
   * surrounding ASCII spaces (fields, not a returned tuple: this runs once per cell).
   * Escapes and non-ASCII bytes bail out: non-ASCII text may hold spaces that trim() knows
   * and a byte scan does not. So do control characters, which JSON strings may not hold raw.
   */
  private trimmedString(): void {
    const b = this.b;
    let start = ++this.pos;
    let end = start;
    while (end < b.length && b[end] !== QUOTE) {
      if (b[end] === BACKSLASH || b[end] >= 0x80 || b[end] < 0x20) bail();
      end++;
    }
    if (end >= b.length) bail();
    this.pos = end + 1;
    while (start < end && isSpace(b[start])) start++;
    while (end > start && isSpace(b[end - 1])) end--;
    this.spanStart = start;
    this.spanEnd = end;
  }

  /** Moves past a `null` literal at pos, if there is one. */
  private nullLiteral(): boolean {
    const b = this.b;
    const p = this.pos;
    if (b[p] !== 0x6e /* n */ || b[p + 1] !== 0x75 || b[p + 2] !== 0x6c || b[p + 3] !== 0x6c) return false;
    this.pos += 4;
    return true;
  }

  private key(): string {
    this.expect(QUOTE);
    const start = this.pos;
    while (this.pos < this.b.length && this.b[this.pos] !== QUOTE) {
      if (this.b[this.pos] === BACKSLASH) bail();
      this.pos++;
    }
    const key = utf8(this.b, start, this.pos);
    this.pos++;
    this.skipSpace();
    if (this.b[this.pos++] !== COLON) bail();
    this.skipSpace();
    return key;
  }

  /** Moves past one JSON value (strings with escapes, nested arrays and objects). */
  private skipValue(): void {
    const b = this.b;
    let depth = 0;
    do {
      if (this.pos >= b.length) bail();
      const c = b[this.pos];
      if (c === QUOTE) {
        this.pos++;
        while (this.pos < b.length && b[this.pos] !== QUOTE) this.pos += b[this.pos] === BACKSLASH ? 2 : 1;
        if (this.pos >= b.length) bail();
        this.pos++;
      } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
        depth++;
        this.pos++;
      } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
        if (depth === 0) bail();
        depth--;
        this.pos++;
      } else if (depth > 0) {
        this.pos++;
      } else {
        // A bare literal (number, true, false, null).
        const start = this.pos;
        while (this.pos < b.length && !isDelimiter(b[this.pos])) this.pos++;
        if (this.pos === start) bail();
      }
    } while (depth > 0);
  }

  /**
   * Moves past one cell of an S, L or X column and checks it is valid JSON, and a cell
   * parseFrame takes (not an array or object, no unpaired surrogate).
   */
  private skipValidValue(): void {
    const start = this.pos;
    this.skipValue();
    const cell = jsonValue(this.b, start, this.pos);
    if ((typeof cell === 'object' && cell !== null) || (typeof cell === 'string' && hasLoneSurrogate(cell))) bail();
  }

  private skipSpace(): void {
    while (this.pos < this.b.length && isSpace(this.b[this.pos])) this.pos++;
  }

  private expect(byte: number): void {
    this.skipSpace();
    if (this.b[this.pos] !== byte) bail();
    this.pos++;
  }
}

/** The columns a frame's cells are read into. */
interface Cells {
  /** Rows the columns hold. */
  capacity: number;
  values: Float64Array[];
  codes: Int32Array[];
  levelMaps: Map<string, number>[];
}

const EMPTY_ROW: unknown[] = [];

/** The rows of a frame whose cells live in its columns: only their count is read. */
export function placeholderRows(count: number): unknown[][] {
  return new Array<unknown[]>(count).fill(EMPTY_ROW);
}

function isDelimiter(c: number): boolean {
  return c === COMMA || c === CLOSE_ARRAY || c === CLOSE_OBJECT || isSpace(c);
}

/** The decimal columns a frame of C and B columns is read into (readFrameDecimals). */
interface DecimalCells {
  /** Rows the columns hold. */
  capacity: number;
  /** Per column: int32 mantissas at scales[c], while values[c] is null. */
  mantissas: Int32Array[];
  scales: Int32Array;
  /** Per column: float64 values, once a cell did not fit a mantissa (then for good). */
  values: (Float64Array | null)[];
  /** Per column: 1 while its cells are read by plainMantissa() (a C column still in mantissas). */
  plain: Uint8Array;
}

function growDecimalCells(cells: DecimalCells): void {
  cells.capacity *= 2;
  cells.mantissas = cells.mantissas.map((m) => grow(m, cells.capacity));
  cells.values = cells.values.map((v) => (v === null ? null : grow(v, cells.capacity)));
}

/**
 * Raises column c's scale to `scale` for its first `rows` mantissas; false (and the column
 * turned to values) when one would no longer fit an int32.
 */
function rescale(cells: DecimalCells, c: number, scale: number, rows: number): boolean {
  const m = cells.mantissas[c];
  const factor = POW10[scale - cells.scales[c]];
  const limit = MAX_MANTISSA / factor;
  for (let r = 0; r < rows; r++) {
    if (m[r] !== MISSING_MANTISSA && (m[r] > limit || m[r] < -limit)) {
      toValues(cells, c, rows);
      return false;
    }
  }
  for (let r = 0; r < rows; r++) if (m[r] !== MISSING_MANTISSA) m[r] *= factor;
  cells.scales[c] = scale;
  return true;
}

/** Turns column c's first `rows` mantissas into the values they stand for (exact: see plainMantissa). */
function toValues(cells: DecimalCells, c: number, rows: number): void {
  const m = cells.mantissas[c];
  const scale = cells.scales[c];
  const p = POW10[scale];
  const values = new Float64Array(cells.capacity);
  for (let r = 0; r < rows; r++) values[r] = m[r] === MISSING_MANTISSA ? NaN : scale === 0 ? m[r] : m[r] / p;
  cells.values[c] = values;
  cells.plain[c] = 0;
}

/**
 * A cell read as a number (NaN = missing) into column c: as a mantissa at the smallest scale
 * that gives the value back (as frame-columns.ts decimalColumn finds it), else as a value.
 */
function storeDecimal(cells: DecimalCells, c: number, row: number, v: number): void {
  const values = cells.values[c];
  if (values !== null) {
    values[row] = v;
    return;
  }
  if (v !== v) {
    cells.mantissas[c][row] = MISSING_MANTISSA;
    return;
  }
  let k = 0;
  while (k <= MAX_SCALE && Math.round(v * POW10[k]) / POW10[k] !== v) k++;
  if (k > MAX_SCALE || (k > cells.scales[c] && !rescale(cells, c, k, row))) {
    if (cells.values[c] === null) toValues(cells, c, row);
    cells.values[c]![row] = v;
    return;
  }
  const p = POW10[cells.scales[c]];
  const m = Math.round(v * p);
  if (m <= MAX_MANTISSA && m >= -MAX_MANTISSA && m / p === v && (v !== 0 || 1 / v > 0)) {
    cells.mantissas[c][row] = m;
    return;
  }
  toValues(cells, c, row);
  cells.values[c]![row] = v;
}

/** Doubles the columns' capacity. */
function growCells(cells: Cells): void {
  cells.capacity *= 2;
  cells.values = cells.values.map((v) => grow(v, cells.capacity));
  cells.codes = cells.codes.map((v) => grow(v, cells.capacity));
}

function grow<T extends Float64Array | Int32Array>(a: T, capacity: number): T {
  const out = new (a.constructor as new (n: number) => T)(capacity);
  out.set(a);
  return out;
}

/** '', NA, NaN, null, ? in any case (frame.ts MISSING_TOKENS). */
export function isMissing(b: Uint8Array, start: number, end: number): boolean {
  const n = end - start;
  if (n === 0) return true;
  if (n === 1) return b[start] === 0x3f; // ?
  const lower = (k: number) => b[start + k] | 0x20;
  if (n === 2) return lower(0) === 0x6e && lower(1) === 0x61; // na
  if (n === 3) return lower(0) === 0x6e && lower(1) === 0x61 && lower(2) === 0x6e; // nan
  if (n === 4) return lower(0) === 0x6e && lower(1) === 0x75 && lower(2) === 0x6c && lower(3) === 0x6c; // null
  return false;
}

/** Where the last plainMantissa() that found one ended (past the closing quote). */
let plainEnd = 0;
/** The scale (decimals, trailing zeros dropped) of the last mantissa plainMantissa() read. */
let plainScale = 0;

/**
 * The common cell, read in one pass: a quoted plain decimal ("-12.5": no spaces, no exponent)
 * at b[p] with at most 9 digits before and 9 after the point, whose digits as one integer
 * stay below 2^53, as a signed integer mantissa m and a scale (plainScale): the cell's value
 * is m / 10^plainScale. Trailing zeros of the decimals are dropped, so the scale is the
 * smallest that holds the value; "-0" gives -0. Sets plainEnd; NaN when the cell is anything
 * else, for the general reading. Each part is read in 32-bit integers (a short dependency
 * chain, which is what makes this fast), then int·10^k + frac is that integer exactly (below
 * 2^53 every step is exact; at or above, rounding cannot bring it below, and it is refused).
 * Out-of-range reads give undefined, which fails every test here.
 */
function plainMantissa(b: Uint8Array, p: number): number {
  if (b[p] !== QUOTE) return NaN;
  let i = p + 1;
  const negative = b[i] === MINUS;
  if (negative) i++;
  const intStart = i;
  let int = 0;
  for (let d = b[i] - ZERO; d >= 0 && d <= 9; d = b[++i] - ZERO) int = (int * 10 + d) | 0;
  const intDigits = i - intStart;
  let frac = 0;
  let fracDigits = 0;
  if (b[i] === DOT) {
    const fracStart = ++i;
    for (let d = b[i] - ZERO; d >= 0 && d <= 9; d = b[++i] - ZERO) frac = (frac * 10 + d) | 0;
    fracDigits = i - fracStart;
  }
  // More than 9 digits in a part overflowed its 32-bit integer: refused here, before use.
  if (b[i] !== QUOTE || intDigits + fracDigits === 0 || intDigits > 9 || fracDigits > 9) return NaN;
  let scale = fracDigits;
  while (scale > 0 && frac % 10 === 0) {
    frac = (frac / 10) | 0;
    scale--;
  }
  const mantissa = int * POW10[scale] + frac;
  if (mantissa >= EXACT_INTEGERS) return NaN;
  plainEnd = i + 1;
  plainScale = scale;
  return negative ? -mantissa : mantissa;
}

/**
 * The common cell's value (see plainMantissa): m / 10^scale is one correctly rounded division
 * of two exact doubles, hence the double Number() gives for the text (as in decimal()). NaN
 * when the cell is anything else.
 */
function plainDecimal(b: Uint8Array, p: number): number {
  const m = plainMantissa(b, p);
  return m !== m || plainScale === 0 ? m : m / POW10[plainScale];
}

/** 2^53: integers below it are exact doubles. */
const EXACT_INTEGERS = 9007199254740992;

/**
 * A decimal in bytes [start, end). When its digits, read as an integer, stay below 2^53
 * (every step of the reading is then exact) and the power of ten is within ±22, the value
 * is one correctly rounded multiplication or division of two exact doubles (Clinger's fast
 * path), hence the same double Number() gives; anything else goes through Number() on the
 * text. Text that is not a decimal bails out to the general path.
 */
function decimal(b: Uint8Array, start: number, end: number): number {
  let i = start;
  let negative = false;
  if (b[i] === MINUS || b[i] === PLUS) {
    negative = b[i] === MINUS;
    i++;
  }
  let mantissa = 0;
  const intStart = i;
  for (let d = b[i] - ZERO; i < end && d >= 0 && d <= 9; d = b[++i] - ZERO) mantissa = mantissa * 10 + d;
  let sawDigit = i > intStart;
  let scale = 0;
  if (i < end && b[i] === DOT) {
    const fracStart = ++i;
    for (let d = b[i] - ZERO; i < end && d >= 0 && d <= 9; d = b[++i] - ZERO) mantissa = mantissa * 10 + d;
    scale = fracStart - i;
    sawDigit ||= i > fracStart;
  }
  if (!sawDigit) return bail();
  if (i < end && (b[i] | 0x20) === 0x65 /* e */) {
    i++;
    let expNegative = false;
    if (b[i] === MINUS || b[i] === PLUS) {
      expNegative = b[i] === MINUS;
      i++;
    }
    let exp = 0;
    let expDigits = 0;
    while (i < end && b[i] >= ZERO && b[i] <= NINE) {
      exp = exp * 10 + (b[i] - ZERO);
      expDigits++;
      i++;
      if (exp > 100000) return slowDecimal(b, start, end);
    }
    if (expDigits === 0) return bail();
    scale += expNegative ? -exp : exp;
  }
  if (i !== end) return bail();
  if (mantissa >= EXACT_INTEGERS || scale < -22 || scale > 22) return slowDecimal(b, start, end);
  const magnitude = scale < 0 ? mantissa / POW10[-scale] : mantissa * POW10[scale];
  return negative ? -magnitude : magnitude;
}

/**
 * A decimal in bytes [start, end) (no spaces around it), exactly as parseDecimal reads its
 * text; NaN when the bytes are not one (the caller then reads the text the general way).
 */
export function decimalBytes(b: Uint8Array, start: number, end: number): number {
  try {
    return decimal(b, start, end);
  } catch (err) {
    if (err instanceof Bail) return NaN;
    throw err;
  }
}

function slowDecimal(b: Uint8Array, start: number, end: number): number {
  const value = Number(utf8(b, start, end));
  if (!Number.isFinite(value)) bail();
  return value;
}

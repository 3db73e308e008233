import { FrameError, hasLoneSurrogate, shownText } from './errors';

/** The REST DataFrame (API.md §1). Cells are strings; `errorHandling` 1 = lenient. */
export interface DataFrame {
  attributeNames: string[];
  attributeTypes: string[];
  data: string[][];
  errorHandling?: number;
}

/** What a learn or forget did with the rows of a frame (`values.learnReport` in lenient mode). */
export interface LearnReport {
  rowsLearned: number;
  rowsSkipped: number;
  /** The first few reasons rows were skipped (at most `MAX_REPORTED_ERRORS`). */
  errors: string[];
}

export const MAX_REPORTED_ERRORS = 10;

/** Attribute type codes: continuous, binary, categorical, string key, list, ignored. */
export type ColumnType = 'C' | 'B' | 'T' | 'S' | 'L' | 'X';
const COLUMN_TYPES: ReadonlySet<string> = new Set<ColumnType>(['C', 'B', 'T', 'S', 'L', 'X']);

export interface NumericColumn {
  readonly kind: 'C' | 'B';
  readonly name: string;
  /** One value per learned row; NaN marks a missing cell. */
  readonly values: Float64Array;
  /**
   * A bound on |value| known from how the column was read, when one is: decimal mantissas
   * (frame-columns.ts) are int32s over a power of ten, so below 2^31. A column bounded within
   * the summary's MAX_ABS_VALUE needs no per-value magnitude check.
   */
  readonly bound?: number;
}

export interface CategoricalColumn {
  readonly kind: 'T';
  readonly name: string;
  /** Distinct non-missing values (trimmed, lower-cased), sorted so row order cannot change attribute order. */
  readonly levels: readonly string[];
  /** One level index per learned row; -1 marks a missing cell. */
  readonly codes: Int32Array;
}

/** A frame checked and decoded once, shared by every part of a summary that learns it. */
export interface ParsedFrame {
  readonly names: readonly string[];
  readonly types: readonly ColumnType[];
  /** The rows that passed validation, as given (cells not yet normalized). */
  readonly rows: readonly (readonly unknown[])[];
  readonly numeric: readonly NumericColumn[];
  readonly categorical: readonly CategoricalColumn[];
  readonly report: LearnReport;
}

/** Validates a non-missing cell of one named column; returns why it is invalid, or null. */
export type CellCheck = (text: string) => string | null;

export interface ParseOptions {
  /** Extra per-column checks (survival time and event columns), keyed by attribute name. */
  readonly columnChecks?: ReadonlyMap<string, CellCheck>;
}

const MISSING_TOKENS: ReadonlySet<string> = new Set(['', 'na', 'nan', 'null', '?']);

/** The trimmed text of a cell, or null when the cell is missing. JSON numbers are accepted as text. */
export function cellText(cell: unknown): string | null {
  if (cell === null || cell === undefined) return null;
  // JSON gives numbers and booleans here; arrays and objects were refused when the frame was read.
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- numbers and booleans only here
  const text = (typeof cell === 'string' ? cell : String(cell)).trim();
  // Every missing token is at most 4 characters; skip lower-casing the (many) longer cells.
  return text.length <= 4 && MISSING_TOKENS.has(text.toLowerCase()) ? null : text;
}

/** A categorical value as the summary names it: trimmed and lower-cased; null when missing. */
export function categoryOf(cell: unknown): string | null {
  const text = cellText(cell);
  return text === null ? null : text.toLowerCase();
}

/** A decimal number (no hex, no Infinity); NaN when the text is not one. */
export function parseDecimal(text: string): number {
  // Number() does the parsing (fast); it also accepts what is not a decimal: radix prefixes
  // (0x, 0b, 0o), "Infinity" (not finite) and "" (handled as missing before we get here).
  const value = +text;
  if (value !== value || value === Infinity || value === -Infinity || text.length === 0) return NaN;
  if (text.length > 1 && text.charCodeAt(0) === 48 /* 0 */) {
    const second = text.charCodeAt(1) | 0x20; // lower-case
    if (second === 120 /* x */ || second === 98 /* b */ || second === 111 /* o */) return NaN;
  }
  return value;
}

/**
 * Checks the frame's structure (always fatal) and every row. In strict mode the first bad
 * row throws, so nothing is learned; in lenient mode (`errorHandling` 1) bad rows are
 * dropped and reported.
 */
export function parseFrame(frame: DataFrame, options: ParseOptions = {}): ParsedFrame {
  const { names, types } = checkStructure(frame);
  const lenient = frame.errorHandling === 1;
  const data = frame.data;
  const width = names.length;

  const numericIndexes: number[] = [];
  const categoricalIndexes: number[] = [];
  types.forEach((t, c) => {
    if (t === 'C' || t === 'B') numericIndexes.push(c);
    else if (t === 'T') categoricalIndexes.push(c);
  });
  const checks: Array<[number, CellCheck]> = [];
  for (const [name, check] of options.columnChecks ?? []) {
    const c = names.indexOf(name);
    if (c >= 0) checks.push([c, check]);
  }

  const values = numericIndexes.map(() => new Float64Array(data.length));
  const codes = categoricalIndexes.map(() => new Int32Array(data.length));
  const levelMaps = categoricalIndexes.map(() => new Map<string, number>());
  const rowValues = new Float64Array(numericIndexes.length);
  const rows: unknown[][] = [];
  const report: LearnReport = { rowsLearned: 0, rowsSkipped: 0, errors: [] };

  for (let r = 0; r < data.length; r++) {
    const row: unknown = data[r];
    const problem = checkRow(row, width, names, types, numericIndexes, checks, rowValues);
    if (problem !== null) {
      const error = new FrameError(r + 1, problem.column, problem.reason);
      if (!lenient) throw error;
      report.rowsSkipped++;
      if (report.errors.length < MAX_REPORTED_ERRORS) report.errors.push(error.message);
      continue;
    }
    const cells = row as unknown[];
    const k = rows.length;
    for (let n = 0; n < numericIndexes.length; n++) values[n][k] = rowValues[n];
    for (let t = 0; t < categoricalIndexes.length; t++) {
      codes[t][k] = levelCode(levelMaps[t], categoryOf(cells[categoricalIndexes[t]]));
    }
    rows.push(cells);
  }
  report.rowsLearned = rows.length;

  const numeric = numericIndexes.map(
    (c, n): NumericColumn => ({ kind: types[c] as 'C' | 'B', name: names[c], values: values[n].slice(0, rows.length) }),
  );
  const categorical = categoricalIndexes.map((c, t) => sortedLevels(names[c], levelMaps[t], codes[t].subarray(0, rows.length)));
  return { names, types, rows, numeric, categorical, report };
}

/**
 * Checks what is not tied to a row: the three arrays, names (non-empty, distinct, valid
 * Unicode text), type codes (exactly one of C, B, T, S, L, X: `" C"` is not `C`) and
 * `errorHandling` (absent or null, 0 or 1).
 */
export function checkStructure(frame: DataFrame): { names: string[]; types: ColumnType[] } {
  const names: unknown = frame?.attributeNames;
  const types: unknown = frame?.attributeTypes;
  if (!Array.isArray(names) || !Array.isArray(types) || !Array.isArray(frame.data)) {
    throw new FrameError(-1, '', 'a DataFrame needs attributeNames, attributeTypes and data arrays');
  }
  const errorHandling: unknown = frame.errorHandling;
  if (errorHandling !== undefined && errorHandling !== null && errorHandling !== 0 && errorHandling !== 1) {
    throw new FrameError(-1, '', `errorHandling must be 0 (strict) or 1 (lenient), not ${describe(errorHandling)}`);
  }
  if (names.length === 0) throw new FrameError(-1, '', 'the DataFrame has no attributes');
  if (names.length !== types.length) {
    throw new FrameError(-1, '', `${names.length} attribute names but ${types.length} attribute types`);
  }
  const seen = new Set<string>();
  const checkedTypes = names.map((name: unknown, c): ColumnType => {
    if (typeof name !== 'string' || name === '') throw new FrameError(-1, '', `attribute names must be non-empty strings, not ${describe(name)} (attribute ${c + 1})`);
    if (hasLoneSurrogate(name)) throw new FrameError(-1, name, 'the attribute name is not valid Unicode text (an unpaired surrogate)');
    if (seen.has(name)) throw new FrameError(-1, name, 'duplicate attribute name');
    seen.add(name);
    const code: unknown = types[c];
    if (typeof code !== 'string' || !COLUMN_TYPES.has(code)) throw new FrameError(-1, name, `unknown attribute type code ${describe(code)}: expected exactly one of C, B, T, S, L, X (no spaces)`);
    return code as ColumnType;
  });
  if (frame.data.length === 0) throw new FrameError(-1, '', 'the DataFrame has no data rows');
  return { names: names as string[], types: checkedTypes };
}

/** A JSON value as an error message names it, without walking into arrays or objects (they may be nested 10⁵ deep). */
function describe(value: unknown): string {
  if (typeof value === 'string') return `[${shownText(value)}]`;
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- objects returned above
  return `[${String(value)}]`;
}

/** Decodes the numeric cells of one row into `out`; returns the first problem, or null. */
export function checkRow(
  row: unknown,
  width: number,
  names: readonly string[],
  types: readonly ColumnType[],
  numericIndexes: readonly number[],
  checks: ReadonlyArray<readonly [number, CellCheck]>,
  out: Float64Array,
): { column: string; reason: string } | null {
  if (!Array.isArray(row)) return { column: '', reason: 'a row must be an array of cells' };
  if (row.length !== width) return { column: '', reason: `the row has ${row.length} cells, expected ${width}` };
  // Cells are text (numbers, booleans and null are taken as their text): never an array or
  // an object, which nothing reads and which String() would walk (10⁵ nested arrays overflow
  // the stack); text cells must be valid Unicode, as they may become attribute names.
  for (let c = 0; c < width; c++) {
    const cell: unknown = row[c];
    if (typeof cell === 'string') {
      if (types[c] !== 'C' && types[c] !== 'B' && hasLoneSurrogate(cell)) return { column: names[c], reason: 'the cell is not valid Unicode text (an unpaired surrogate)' };
    } else if (typeof cell === 'object' && cell !== null) {
      return { column: names[c], reason: `a cell must be a string, a number or null, not ${Array.isArray(cell) ? 'an array' : 'an object'}` };
    }
  }
  for (let n = 0; n < numericIndexes.length; n++) {
    const c = numericIndexes[n];
    const text = cellText(row[c]);
    if (text === null) {
      out[n] = NaN;
      continue;
    }
    const value = parseDecimal(text);
    if (Number.isNaN(value)) return { column: names[c], reason: `[${shownText(text)}] is not a number` };
    if (types[c] === 'B' && value !== 0 && value !== 1) return { column: names[c], reason: `[${shownText(text)}] is not 0 or 1` };
    out[n] = value;
  }
  for (const [c, check] of checks) {
    const text = cellText(row[c]);
    const reason = text === null ? null : check(text);
    if (reason !== null) return { column: names[c], reason };
  }
  return null;
}

/** The code of a categorical level in the order levels were first seen (a new one gets the next); -1 when missing. */
export function levelCode(firstSeen: Map<string, number>, level: string | null): number {
  if (level === null) return -1;
  let code = firstSeen.get(level);
  if (code === undefined) {
    code = firstSeen.size;
    firstSeen.set(level, code);
  }
  return code;
}

export function sortedLevels(name: string, firstSeen: Map<string, number>, codes: Int32Array): CategoricalColumn {
  const levels = [...firstSeen.keys()].sort();
  const remap = new Int32Array(levels.length);
  levels.forEach((level, sortedIndex) => (remap[firstSeen.get(level)!] = sortedIndex));
  const sortedCodes = codes.map((code) => (code < 0 ? -1 : remap[code]));
  return { kind: 'T', name, levels, codes: sortedCodes };
}

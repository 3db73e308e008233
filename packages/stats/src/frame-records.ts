import { FrameError } from './errors';
import { checkRow, checkStructure, categoryOf, levelCode, MAX_REPORTED_ERRORS, sortedLevels, type CategoricalColumn, type ColumnType, type LearnReport, type NumericColumn, type ParsedFrame } from './frame';
import { decimalBytes, isMissing, placeholderRows, POW10 } from './frame-json';

/*
 * A fast path for learning delimited text (a CSV data source): the reader of @sml/sources
 * splits the bytes into records whose fields are byte ranges, and numeric cells go from the
 * bytes straight into Float64Arrays, without a string per cell. Every row reads exactly as
 * `parseFrame` reads the same row of strings: a cell the bytes cannot settle (a quote, non-ASCII
 * spacing, anything that is not a plain decimal) sends its row to the general check
 * (frame.ts checkRow), which accepts it with the same values or names its problem.
 */

/** Records of a delimited text file, their fields as byte ranges of `bytes`. */
export interface FieldRecords {
  readonly count: number;
  readonly bytes: Uint8Array;
  /**
   * Record r's fields are [fieldStart[k], fieldEnd[k]) for k in [first[r], first[r + 1]);
   * null when the records come as `spans`.
   */
  readonly first: Int32Array | null;
  readonly fieldStart: Int32Array;
  readonly fieldEnd: Int32Array;
  /**
   * When `first` is null: record r is the bytes [start[r], end[r]), its fields separated by
   * the byte `separator` (no quote in them). parseRecords splits them while it reads the
   * numbers: one pass over the bytes instead of two.
   */
  readonly spans?: { readonly start: Int32Array; readonly end: Int32Array; readonly separator: number };
  /** Records read as text instead (they hold a quote character): their cells; undefined for the others. */
  readonly text: ReadonlyArray<readonly string[] | undefined>;
}

/** Which fields become which attributes. */
export interface RecordsPlan {
  readonly names: readonly string[];
  readonly types: readonly ColumnType[];
  /** The field each attribute reads. */
  readonly fields: readonly number[];
  /** Fields a record must have (the header's). */
  readonly width: number;
}

/** A record that is not a row: its index in the records, the column ('' when not one) and why. */
export interface BadRecord {
  readonly record: number;
  readonly column: string;
  readonly reason: string;
}

export interface RecordsFrame {
  /** The good rows, null when there is none. */
  readonly parsed: ParsedFrame | null;
  /** Which record each row of `parsed` is. */
  readonly recordOf: Int32Array;
  /** In lenient mode, every skipped record (the report names the first few). */
  readonly skipped: number;
  readonly errors: string[];
}

const UTF8 = new TextDecoder('utf-8');
/** checkStructure reads no rows, but refuses a frame without any. */
const ONE_ROW = [[]];

function isBlank(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0b || c === 0x0c;
}

/** 2^53: integers below it are exact doubles. */
const EXACT_INTEGERS = 9007199254740992;

/** Where the last readDecimal stopped. */
let decimalEnd = 0;

/**
 * The common field, read in one pass: -?digits(.digits)? from s, stopping at e or at the first
 * byte that is not part of it (decimalEnd), at most 9 digits on each side of the point, whose
 * digits as one integer stay below 2^53. Each part is read in a 32-bit integer; int·10^k + frac
 * is then exact, and one correctly rounded division gives the double Number() gives (as
 * frame-json.ts plainDecimal). NaN for anything else.
 */
function readDecimal(b: Uint8Array, s: number, e: number): number {
  let i = s;
  const negative = i < e && b[i] === 0x2d;
  if (negative) i++;
  const intStart = i;
  let int = 0;
  for (let d = b[i] - 0x30; i < e && d >= 0 && d <= 9; d = b[++i] - 0x30) int = (int * 10 + d) | 0;
  const intDigits = i - intStart;
  let frac = 0;
  let fracDigits = 0;
  if (i < e && b[i] === 0x2e) {
    const fracStart = ++i;
    for (let d = b[i] - 0x30; i < e && d >= 0 && d <= 9; d = b[++i] - 0x30) frac = (frac * 10 + d) | 0;
    fracDigits = i - fracStart;
  }
  decimalEnd = i;
  if (intDigits + fracDigits === 0 || intDigits > 9 || fracDigits > 9) return NaN;
  const mantissa = int * POW10[fracDigits] + frac;
  if (mantissa >= EXACT_INTEGERS) return NaN;
  const magnitude = fracDigits === 0 ? mantissa : mantissa / POW10[fracDigits];
  return negative ? -magnitude : magnitude;
}

/** readDecimal of exactly the bytes [s, e): NaN unless the decimal fills them. */
function plainDecimal(b: Uint8Array, s: number, e: number): number {
  const v = readDecimal(b, s, e);
  return decimalEnd === e ? v : NaN;
}

/**
 * Splits the record bytes [s, e) at `sep` into fields, keeping the ranges of the first
 * `start.length` in `start`/`end`, and reads field f into into[slot[f]] when slot[f] ≥ 0 as
 * numericField does (unsettled[slot] = 1 when the bytes cannot settle it). Returns the number
 * of fields. The common field (a plain decimal ending at the separator) is read and split in
 * the same pass.
 */
function readSpan(b: Uint8Array, s: number, e: number, sep: number, slot: Int32Array, into: Float64Array, unsettled: Uint8Array, start: Int32Array, end: Int32Array): number {
  let fields = 0;
  let i = s;
  for (;;) {
    const fieldStart = i;
    const m = fields < slot.length ? slot[fields] : -1;
    if (m >= 0) {
      let v = readDecimal(b, i, e);
      i = decimalEnd;
      if (v !== v || (i < e && b[i] !== sep)) {
        while (i < e && b[i] !== sep) i++;
        const general = numericField(b, fieldStart, i);
        v = general === undefined ? NaN : general;
        unsettled[m] = general === undefined ? 1 : 0;
      } else unsettled[m] = 0;
      into[m] = v;
    } else {
      while (i < e && b[i] !== sep) i++;
    }
    if (fields < start.length) {
      start[fields] = fieldStart;
      end[fields] = i;
    }
    fields++;
    if (i >= e) return fields;
    i++; // the separator
  }
}

/**
 * The numeric value of field bytes [s, e): NaN when missing, undefined when the bytes cannot
 * settle it (the general check reads the row).
 */
function numericField(b: Uint8Array, s: number, e: number): number | undefined {
  const plain = plainDecimal(b, s, e);
  if (plain === plain) return plain;
  while (s < e && isBlank(b[s])) s++;
  while (e > s && isBlank(b[e - 1])) e--;
  if (isMissing(b, s, e)) return NaN;
  const value = decimalBytes(b, s, e);
  return value === value ? value : undefined;
}

/**
 * The rows of `records` as a ParsedFrame. Strict: the first bad record throws a FrameError
 * whose row is the record's index + 1; lenient: bad records are skipped and counted, and
 * `describe` makes the message each reported one gets.
 */
export function parseRecords(records: FieldRecords, plan: RecordsPlan, lenient: boolean, describe: (bad: BadRecord) => string): RecordsFrame {
  const { names, types } = checkStructure({ attributeNames: [...plan.names], attributeTypes: [...plan.types], data: ONE_ROW });
  const { bytes: b, first, fieldStart, fieldEnd, text } = records;
  const numericIndexes: number[] = [];
  const categoricalIndexes: number[] = [];
  types.forEach((t, c) => {
    if (t === 'C' || t === 'B') numericIndexes.push(c);
    else if (t === 'T') categoricalIndexes.push(c);
  });
  const numericFields = numericIndexes.map((c) => plan.fields[c]);
  const binary = numericIndexes.map((c) => types[c] === 'B');
  const n = records.count;
  // One block per kind: the columns travel between threads as one buffer each.
  const valueBlock = new Float64Array(numericIndexes.length * n);
  const codeBlock = new Int32Array(categoricalIndexes.length * n);
  const values = numericIndexes.map((_, m) => valueBlock.subarray(m * n, (m + 1) * n));
  const codes = categoricalIndexes.map((_, t) => codeBlock.subarray(t * n, (t + 1) * n));
  const levelMaps = categoricalIndexes.map(() => new Map<string, number>());
  const recordOf = new Int32Array(n);
  const rowValues = new Float64Array(numericIndexes.length);
  // Spans: the current record's field ranges, and which field feeds which numeric column.
  const spans = records.spans;
  const spanStart = new Int32Array(plan.width);
  const spanEnd = new Int32Array(plan.width);
  const slotOfField = new Int32Array(plan.width).fill(-1);
  numericFields.forEach((f, m) => (slotOfField[f] = m));
  const spanValues = new Float64Array(numericIndexes.length);
  const unsettled = new Uint8Array(numericIndexes.length);
  // The current record's fields: [fs[base + f], fe[base + f]).
  let fs = fieldStart;
  let fe = fieldEnd;
  let base = 0;
  const errors: string[] = [];
  let skipped = 0;
  let k = 0;

  /** The record's cells the plan reads, as text, in attribute order. */
  const rowText = (r: number): string[] => {
    const cells = text[r];
    if (cells) return plan.fields.map((f) => cells[f]);
    return plan.fields.map((f) => UTF8.decode(b.subarray(fs[base + f], fe[base + f])));
  };
  const bad = (record: number, column: string, reason: string): void => {
    if (!lenient) throw new FrameError(record + 1, column, reason);
    skipped++;
    if (errors.length < MAX_REPORTED_ERRORS) errors.push(describe({ record, column, reason }));
  };

  for (let r = 0; r < n; r++) {
    const cells = text[r];
    let row: string[] | null = null;
    if (cells === undefined && first === null) {
      // A span: split and read in one pass, then settled as below.
      fs = spanStart;
      fe = spanEnd;
      base = 0;
      const width = readSpan(b, spans!.start[r], spans!.end[r], spans!.separator, slotOfField, spanValues, unsettled, spanStart, spanEnd);
      if (width !== plan.width) {
        bad(r, '', `${width} fields, the header has ${plan.width}`);
        continue;
      }
      for (let m = 0; m < numericFields.length; m++) {
        const v = spanValues[m];
        if (unsettled[m] === 1 || (binary[m] && v === v && v !== 0 && v !== 1)) {
          row = rowText(r);
          break;
        }
        values[m][k] = v;
      }
    } else if (cells === undefined) {
      fs = fieldStart;
      fe = fieldEnd;
      base = first![r];
      const width = first![r + 1] - base;
      if (width !== plan.width) {
        bad(r, '', `${width} fields, the header has ${plan.width}`);
        continue;
      }
      // Straight into row k of the columns: a row that is not kept leaves k where it was.
      for (let m = 0; m < numericFields.length; m++) {
        const f = base + numericFields[m];
        const v = numericField(b, fieldStart[f], fieldEnd[f]);
        if (v === undefined || (binary[m] && v === v && v !== 0 && v !== 1)) {
          row = rowText(r);
          break;
        }
        values[m][k] = v;
      }
    } else {
      if (cells.length !== plan.width) {
        bad(r, '', `${cells.length} fields, the header has ${plan.width}`);
        continue;
      }
      row = rowText(r);
    }
    if (row !== null) {
      const problem = checkRow(row, names.length, names, types, numericIndexes, [], rowValues);
      if (problem !== null) {
        bad(r, problem.column, problem.reason);
        continue;
      }
      for (let m = 0; m < numericIndexes.length; m++) values[m][k] = rowValues[m];
    }
    for (let t = 0; t < categoricalIndexes.length; t++) {
      const c = categoricalIndexes[t];
      let cell: string;
      if (row !== null) cell = row[c];
      else {
        const f = base + plan.fields[c];
        cell = UTF8.decode(b.subarray(fs[f], fe[f]));
      }
      codes[t][k] = levelCode(levelMaps[t], categoryOf(cell));
    }
    recordOf[k++] = r;
  }
  if (k === 0) return { parsed: null, recordOf: recordOf.subarray(0, 0), skipped, errors };
  const report: LearnReport = { rowsLearned: k, rowsSkipped: skipped, errors };
  const numeric = numericIndexes.map((c, m): NumericColumn => ({ kind: types[c] as 'C' | 'B', name: names[c], values: values[m].subarray(0, k) }));
  const categorical = categoricalIndexes.map((c, t): CategoricalColumn => sortedLevels(names[c], levelMaps[t], codes[t].subarray(0, k)));
  const parsed: ParsedFrame = { names, types, rows: placeholderRows(k), numeric, categorical, report };
  return { parsed, recordOf: recordOf.subarray(0, k), skipped, errors };
}

import type { CategoricalColumn, ColumnType, NumericColumn, ParsedFrame } from './frame';
import { MAX_SCALE, MISSING_MANTISSA, POW10, placeholderRows, readFrameDecimals, type DecimalFrame } from './frame-json';
import { kernels } from './kernels/select';

/*
 * A frame the fast JSON reader produced (frame-json.ts), as bytes that travel: numeric
 * columns as little-endian float64, categorical codes as little-endian int32. The gateway
 * reads a learn request once and sends this (a third smaller than the JSON); the service
 * that owns the project learns it without reading JSON again, and logs it as it came. The
 * shape is that of the protobuf message sml.v1.FrameColumns.
 */

export interface FrameColumnsData {
  names: string[];
  types: string[];
  rowCount: number;
  /** `values`: float64 per row, or int32 decimal mantissas when `scale` is set (see decimalColumn). */
  numeric: { name: string; kind: string; values: Uint8Array; scale?: number }[];
  categorical: { name: string; levels: string[]; codes: Uint8Array }[];
}

/** The same message as protobufjs decodes it: every field may be absent. */
export interface FrameColumnsInput {
  names?: string[] | null;
  types?: string[] | null;
  rowCount?: number | null;
  numeric?: { name?: string | null; kind?: string | null; values?: Uint8Array | null; scale?: number | null }[] | null;
  categorical?: { name?: string | null; levels?: string[] | null; codes?: Uint8Array | null }[] | null;
}

/** |m / 10^k| for an int32 mantissa m and a scale k ≥ 0 is at most 2^31. */
const MANTISSA_BOUND = 2 ** 31;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const TYPES: ReadonlySet<string> = new Set<ColumnType>(['C', 'B', 'T', 'S', 'L', 'X']);

/**
 * A frame as columns of bytes. Only for frames from the fast reader: their rows are
 * placeholders (the cells live in the columns), which is what makes the columns the whole frame.
 */
export function frameToColumns(frame: ParsedFrame): FrameColumnsData {
  return {
    names: [...frame.names],
    types: [...frame.types],
    rowCount: frame.rows.length,
    numeric: frame.numeric.map((c) => {
      const decimal = decimalColumn(c.values);
      return decimal === null
        ? { name: c.name, kind: c.kind, values: littleEndianBytes(c.values) }
        : { name: c.name, kind: c.kind, values: littleEndianBytes(decimal.mantissas), scale: decimal.scale };
    }),
    categorical: frame.categorical.map((c) => ({ name: c.name, levels: [...c.levels], codes: littleEndianBytes(c.codes) })),
  };
}

/**
 * A learn request's JSON frame read straight into columns (the gateway's reading): the same
 * message as frameToColumns(parseFrameJson(bytes)), byte for byte, but a frame of C and B
 * columns only is read into mantissas directly (frame-json.ts readFrameDecimals). Null when
 * the fast reader does not take the frame.
 */
export function readFrameColumns(bytes: Uint8Array): FrameColumnsData | null {
  const read = readFrameDecimals(bytes);
  if (read === null) return null;
  return 'columns' in read ? decimalFrameColumns(read) : frameToColumns(read);
}

function decimalFrameColumns(frame: DecimalFrame): FrameColumnsData {
  return {
    names: [...frame.names],
    types: [...frame.types],
    rowCount: frame.rowCount,
    numeric: frame.columns.map((c) =>
      'values' in c
        ? { name: c.name, kind: c.kind, values: littleEndianBytes(c.values) }
        : { name: c.name, kind: c.kind, values: littleEndianBytes(c.mantissas), scale: c.scale }),
    categorical: [],
  };
}

/** The frame back; throws when the message is not one frameToColumns could have written. */
export function frameFromColumns(data: FrameColumnsInput): ParsedFrame {
  const names = data.names ?? [];
  const types = data.types ?? [];
  const rows = data.rowCount ?? 0;
  const malformed = (why: string): never => {
    throw new Error(`malformed frame columns: ${why}`);
  };
  if (names.length !== types.length || names.length === 0) malformed('names and types differ in length');
  if (!Number.isInteger(rows) || rows <= 0) malformed(`row count ${rows}`);
  for (const t of types) if (!TYPES.has(t)) malformed(`type ${t}`);
  const known = (name: string, kinds: string) => {
    const c = names.indexOf(name);
    if (c < 0 || !kinds.includes(types[c])) malformed(`column ${name}`);
  };
  const numeric = (data.numeric ?? []).map((c): NumericColumn => {
    const kind = c.kind === 'B' ? 'B' : c.kind === 'C' ? 'C' : malformed(`kind ${c.kind}`);
    known(c.name ?? '', kind);
    const bytes = c.values ?? new Uint8Array(0);
    const scale = c.scale ?? null;
    if (scale !== null && !(Number.isInteger(scale) && scale >= 0 && scale <= MAX_SCALE)) malformed(`scale ${scale} of ${c.name}`);
    const values = scale === null ? float64s(bytes, rows) : fromMantissas(int32s(bytes, rows), scale);
    return { kind, name: c.name!, values: values ?? malformed(`values of ${c.name}`), ...(scale === null ? {} : { bound: MANTISSA_BOUND }) };
  });
  const categorical = (data.categorical ?? []).map((c): CategoricalColumn => {
    known(c.name ?? '', 'T');
    const levels = c.levels ?? [];
    const codes = int32s(c.codes ?? new Uint8Array(0), rows) ?? malformed(`codes of ${c.name}`);
    for (const code of codes) if (code < -1 || code >= levels.length) malformed(`code ${code} of ${c.name}`);
    return { kind: 'T', name: c.name!, levels, codes };
  });
  return {
    names,
    types: types as ColumnType[],
    rows: placeholderRows(rows),
    numeric,
    categorical,
    report: { rowsLearned: rows, rowsSkipped: 0, errors: [] },
  };
}

function littleEndianBytes(a: Float64Array | Int32Array): Uint8Array {
  if (LITTLE_ENDIAN) return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const out = new Uint8Array(a.byteLength);
  const view = new DataView(out.buffer);
  a.forEach((v, i) => (a instanceof Float64Array ? view.setFloat64(i * 8, v, true) : view.setInt32(i * 4, v, true)));
  return out;
}

function float64s(bytes: Uint8Array, rows: number): Float64Array | null {
  if (bytes.byteLength !== rows * 8) return null;
  if (LITTLE_ENDIAN) return bytes.byteOffset % 8 === 0 ? new Float64Array(bytes.buffer, bytes.byteOffset, rows) : new Float64Array(alignedCopy(bytes));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Float64Array.from({ length: rows }, (_, i) => view.getFloat64(i * 8, true));
}

function int32s(bytes: Uint8Array, rows: number): Int32Array | null {
  if (bytes.byteLength !== rows * 4) return null;
  if (LITTLE_ENDIAN) return bytes.byteOffset % 4 === 0 ? new Int32Array(bytes.buffer, bytes.byteOffset, rows) : new Int32Array(alignedCopy(bytes));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Int32Array.from({ length: rows }, (_, i) => view.getInt32(i * 4, true));
}

/** The bytes in a fresh ArrayBuffer of their own (a Node Buffer's slice() would share its pool). */
function alignedCopy(bytes: Uint8Array): ArrayBuffer {
  return new Uint8Array(bytes).buffer;
}

/**
 * A column of fixed-point decimals as int32 mantissas and one scale k: every present value v
 * is m / 10^k for an integer m with |m| < 2^31, and that division gives back v itself. That
 * holds for a cell written with at most k decimals: v and m / 10^k are then both the
 * correctly rounded value of the same real number. Each value is checked all the same, and
 * any column that does not fit (an exponent, too many digits, -0, …) stays float64: null.
 */
function decimalColumn(values: Float64Array): { mantissas: Int32Array; scale: number } | null {
  // The smallest scale that fits every value (each value only ever raises it).
  let k = 0;
  for (let r = 0; r < values.length; r++) {
    const v = values[r];
    if (v !== v) continue;
    while (Math.round(v * POW10[k]) / POW10[k] !== v) if (++k > MAX_SCALE) return null;
  }
  const mantissas = new Int32Array(values.length);
  const p = POW10[k];
  for (let r = 0; r < values.length; r++) {
    const v = values[r];
    if (v !== v) {
      mantissas[r] = MISSING_MANTISSA;
      continue;
    }
    const m = Math.round(v * p);
    // |m| < 2^31 (and not the missing mark), exact, and no -0 (an int32 has no sign of zero).
    if (!(m > MISSING_MANTISSA && m <= 2147483647) || m / p !== v || (v === 0 && 1 / v < 0)) return null;
    mantissas[r] = m;
  }
  return { mantissas, scale: k };
}

function fromMantissas(mantissas: Int32Array | null, scale: number): Float64Array | null {
  if (mantissas === null) return null;
  const out = new Float64Array(mantissas.length);
  kernels().mantissas.fromMantissas(mantissas, scale, out);
  return out;
}

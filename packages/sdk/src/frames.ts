/**
 * SML's DataFrame (`{attributeNames, attributeTypes, data}`, cells as text) built from what a
 * user has: CSV text or an array of records; predictions read back as records. Types not given
 * are guessed by `@sml/core`'s `guessType`, the guess a data source's sample and preview show
 * (C numbers, B 0/1, T anything else), so a frame typed here is typed as the server would type
 * the same file. CSV is split by `@sml/core`'s `CsvParser`, the parser of localfile data
 * sources. Pure: no I/O.
 */
import { CsvParser, guessType } from '@sml/core';
import type { DataFrame } from './types';

/** A cell as a record may hold it. */
export type CellValue = string | number | boolean | bigint | null | undefined;

export interface FrameOptions {
  /** Attribute type codes (C, B, T, S, L, X): all, in column order, or some by column name; the others are guessed. */
  types?: readonly string[] | Readonly<Record<string, string>>;
  /** 0 strict (the whole frame is refused for one bad row, the default), 1 lenient (bad rows skipped and reported). */
  errorHandling?: 0 | 1;
}

export interface CsvFrameOptions extends FrameOptions {
  /** Field separator, one character (default `,`), as a localfile DSInfo's `csv_entry_separator`. */
  separator?: string;
  /** Quote character (default `"`), doubled inside a quoted field, as `csv_quote_character`. */
  quote?: string;
}

export interface RecordsFrameOptions extends FrameOptions {
  /** The columns, in order (default: every key of the records, first seen first). */
  columns?: readonly string[];
}

/**
 * A DataFrame of CSV text whose first record is the header. Quoted fields may hold
 * separators, line breaks and doubled quotes; lines end with LF, CRLF or CR; empty lines are
 * skipped. A record with fewer fields than the header is padded with empty cells (missing
 * values); one with more is an error naming its line.
 */
export function frameFromCsv(text: string, options: CsvFrameOptions = {}): DataFrame {
  const records: string[][] = [];
  let header: string[] | undefined;
  const parser = new CsvParser({ separator: options.separator, quote: options.quote, maxRecordChars: Number.MAX_SAFE_INTEGER }, (record, line) => {
    if (header === undefined) {
      header = record;
      return;
    }
    if (record.length > header.length) throw new RangeError(`CSV line ${line}: ${record.length} fields, the header has ${header.length}`);
    records.push(record.length < header.length ? [...record, ...new Array<string>(header.length - record.length).fill('')] : record);
  });
  parser.push(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  parser.end();
  if (header === undefined) throw new RangeError('CSV text without a header line');
  return typedFrame(header, records, options);
}

/** A DataFrame of records (objects keyed by column): numbers as text, booleans as 1/0, null and undefined as missing (''). */
export function frameFromRecords(records: ReadonlyArray<Readonly<Record<string, CellValue>>>, options: RecordsFrameOptions = {}): DataFrame {
  const columns = options.columns ?? [...new Set(records.flatMap((r) => Object.keys(r)))];
  return typedFrame([...columns], records.map((r) => columns.map((c) => cellText(r[c]))), options);
}

/** A cell as the frame carries it. */
export function cellText(value: CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'number' && !Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
  return String(value);
}

function typedFrame(names: string[], data: string[][], options: FrameOptions): DataFrame {
  const { types } = options;
  const list = Array.isArray(types) ? (types as readonly string[]) : undefined;
  if (list !== undefined && list.length !== names.length) throw new RangeError(`${list.length} types for ${names.length} columns`);
  const byName = types !== undefined && list === undefined ? (types as Readonly<Record<string, string>>) : {};
  for (const name of Object.keys(byName)) if (!names.includes(name)) throw new RangeError(`a type for [${name}], which is no column`);
  // Guessed from every row, not only the first 128 a sample shows: the client has them all,
  // and a column typed C with a word in row 500 would have the whole frame refused.
  const attributeTypes = names.map((name, i) => (list !== undefined ? list[i] : byName[name]) ?? guessType(data.map((r) => r[i] ?? '')));
  return { attributeNames: names, attributeTypes, data, errorHandling: options.errorHandling ?? 0 };
}

/** A prediction's value as a record holds it: a number when the text is one (NaN and ±Infinity included), else the text. */
export type PredictionValue = string | number;

/**
 * The rows of a predict or learnpredict answer (`values.KSVSMap.values`: one string map per
 * row) as records, numbers parsed; with `input`, each record starts with its input row's
 * cells (by attribute name; a prediction key of the same name wins).
 */
export function predictionRecords(
  answer: { KSVSMap?: { values?: ReadonlyArray<Readonly<Record<string, string>>> } } | undefined,
  input?: DataFrame,
): Array<Record<string, PredictionValue>> {
  const rows = answer?.KSVSMap?.values ?? [];
  if (input !== undefined && (input.data ?? []).length !== rows.length) throw new RangeError(`${rows.length} predictions for ${(input.data ?? []).length} input rows`);
  return rows.map((row, k) => {
    const record: Record<string, PredictionValue> = {};
    if (input !== undefined) input.attributeNames.forEach((name, i) => (record[name] = input.data?.[k]?.[i] ?? ''));
    for (const [key, text] of Object.entries(row)) record[key] = predictionValue(text);
    return record;
  });
}

function predictionValue(text: string): PredictionValue {
  if (text === 'NaN') return Number.NaN;
  if (text === 'Infinity') return Number.POSITIVE_INFINITY;
  if (text === '-Infinity') return Number.NEGATIVE_INFINITY;
  const n = Number(text);
  return text.trim() !== '' && Number.isFinite(n) ? n : text;
}

import { smlError } from '@sml/core';
import type { sml } from '@sml/proto';

/** How a stream's record values become rows (API.md §9): a JSON object keyed by attribute name, or one CSV line. */
export interface RecordFormat {
  format: 'json' | 'csv';
  attributeNames: string[];
  attributeTypes: string[];
  separator: string;
  quote: string;
}

const TYPES = new Set(['C', 'B', 'T', 'S', 'L', 'X']);

/** The record format a DSInfo describes; 400 naming what is wrong. */
export function recordFormat(ds: sml.v1.IDsInfo): RecordFormat {
  const info = ds.info ?? {};
  const bad = (detail: string) => smlError('STREAM_INVALID', { stream: ds.name ?? '-', detail });
  const format = (info.format ?? info['data.format'] ?? 'json').trim().toLowerCase();
  if (format === 'protobuf' || format === 'avro') throw bad(`data.format ${format} is not available in this build: send json or csv records`);
  if (format !== 'json' && format !== 'csv') throw bad(`format must be json or csv, not [${format.slice(0, 40)}]`);
  if (info['schema.registry.url']) throw bad('Avro records through a schema registry (schema.registry.url) are not available in this build: send json or csv records');
  const attributeNames = (info.attributeNames ?? '').split(',').map((n) => n.trim()).filter((n) => n.length > 0);
  if (attributeNames.length === 0) throw bad('info.attributeNames (comma-separated) must name the record fields');
  if (new Set(attributeNames).size !== attributeNames.length) throw bad('info.attributeNames holds a name twice');
  const extra = ds.extra ?? [];
  const attributeTypes = extra.length === 0 ? attributeNames.map(() => 'C') : extra.map((t) => t.trim().toUpperCase());
  if (attributeTypes.length !== attributeNames.length) throw bad(`extra has ${attributeTypes.length} type codes for ${attributeNames.length} attribute names`);
  const unknown = attributeTypes.find((t) => !TYPES.has(t));
  if (unknown !== undefined) throw bad(`unknown attribute type code [${unknown.slice(0, 10)}] in extra`);
  const separator = info.csv_entry_separator ?? ',';
  const quote = info.csv_quote_character ?? '"';
  if (separator.length !== 1 || quote.length !== 1) throw bad('csv_entry_separator and csv_quote_character must be one character each');
  return { format, attributeNames, attributeTypes, separator, quote };
}

/** Thrown for a record that cannot be read: it is rejected (errorLog), the stream goes on. */
export class RecordError extends Error {
  override readonly name = 'RecordError';
}

/** One record value → the row of cells (strings, as a DataFrame's), in attributeNames order. */
export function readRecord(value: Buffer | Uint8Array | null, f: RecordFormat, maxBytes: number): string[] {
  if (!value || value.length === 0) throw new RecordError('empty record');
  if (value.length > maxBytes) throw new RecordError(`record of ${value.length} bytes, more than SML_STREAM_MAX_RECORD_BYTES = ${maxBytes}`);
  const text = Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8');
  return f.format === 'json' ? jsonRow(text, f) : csvRow(text.replace(/\r?\n$/, ''), f);
}

function jsonRow(text: string, f: RecordFormat): string[] {
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch (err) {
    throw new RecordError(`not JSON: ${(err as Error).message}`);
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw new RecordError('not a JSON object keyed by attribute name');
  const o = obj as Record<string, unknown>;
  return f.attributeNames.map((name) => {
    const v = o[name];
    if (v === undefined || v === null) return '';
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return typeof v === 'boolean' ? (v ? '1' : '0') : String(v);
    throw new RecordError(`field ${name} is not a string, number or boolean`);
  });
}

/** One CSV line (RFC 4180 quoting with the DSInfo's separator and quote character). */
function csvRow(line: string, f: RecordFormat): string[] {
  const cells = splitCsv(line, f.separator, f.quote);
  if (cells.length !== f.attributeNames.length) throw new RecordError(`${cells.length} fields, expected ${f.attributeNames.length} (${f.attributeNames.join(',')})`.slice(0, 300));
  return cells;
}

/** The fields of one CSV line; RecordError for a quoting error. */
export function splitCsv(line: string, separator: string, quote: string): string[] {
  const f = { separator, quote };
  const cells: string[] = [];
  let i = 0;
  for (;;) {
    let cell = '';
    if (line[i] === f.quote) {
      i++;
      for (;;) {
        if (i >= line.length) throw new RecordError('unterminated quoted field');
        if (line[i] === f.quote) {
          if (line[i + 1] === f.quote) { cell += f.quote; i += 2; continue; }
          i++;
          break;
        }
        cell += line[i++];
      }
      if (i < line.length && line[i] !== f.separator) throw new RecordError('text after a closing quote');
    } else {
      const end = line.indexOf(f.separator, i);
      cell = line.slice(i, end < 0 ? line.length : end);
      i = end < 0 ? line.length : end;
    }
    cells.push(cell);
    if (i >= line.length) break;
    i++; // the separator
    if (i === line.length) { cells.push(''); break; }
  }
  return cells;
}

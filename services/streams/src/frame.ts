import type { sml } from '@sml/proto';
import { readRecord, recordFormat, RecordError, splitCsv } from './records';

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** C when every non-empty cell of the column is a number, S otherwise (no rows: C). */
function guessType(cells: string[]): string {
  return cells.every((c) => c === '' || NUMBER.test(c.trim())) ? 'C' : 'S';
}

function cell(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (typeof v === 'number') return String(v);
  return JSON.stringify(v);
}

/**
 * The DataFrame of sampled record values (poll, preview). With `info.attributeNames` the
 * records are read exactly as a stream reads them (records.ts; `extra` types them); without,
 * JSON records give their keys (first seen first) and CSV records fields named f1 … fn, and
 * the types are guessed (C numeric, S otherwise). Records that cannot be read are left out.
 */
export function sampleFrame(values: (Buffer | Uint8Array | null)[], ds: sml.v1.IDsInfo, maxRecordBytes: number): sml.v1.IDataFrame {
  const info = ds.info ?? {};
  let names: string[];
  let rows: string[][] = [];
  let types: string[] | undefined;
  if ((info.attributeNames ?? '').trim()) {
    const f = recordFormat(ds);
    names = f.attributeNames;
    if ((ds.extra ?? []).length > 0) types = f.attributeTypes;
    for (const v of values) {
      try {
        rows.push(readRecord(v, f, maxRecordBytes));
      } catch (err) {
        if (!(err instanceof RecordError)) throw err;
      }
    }
  } else {
    const format = (info.format ?? info['data.format'] ?? 'json').trim().toLowerCase();
    const texts = values.filter((v): v is Buffer | Uint8Array => !!v && v.length > 0 && v.length <= maxRecordBytes).map((v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('utf8'));
    if (format === 'csv') {
      const sep = info.csv_entry_separator ?? ',';
      const quote = info.csv_quote_character ?? '"';
      for (const t of texts) {
        try {
          rows.push(splitCsv(t.replace(/\r?\n$/, ''), sep, quote));
        } catch (err) {
          if (!(err instanceof RecordError)) throw err;
        }
      }
      const width = rows.reduce((w, r) => Math.max(w, r.length), 0);
      names = Array.from({ length: width }, (_, i) => `f${i + 1}`);
      rows = rows.map((r) => [...r, ...Array<string>(width - r.length).fill('')]);
    } else {
      const objects: Record<string, unknown>[] = [];
      const seen = new Set<string>();
      for (const t of texts) {
        try {
          const o: unknown = JSON.parse(t);
          if (typeof o !== 'object' || o === null || Array.isArray(o)) continue;
          objects.push(o as Record<string, unknown>);
          for (const k of Object.keys(o)) seen.add(k);
        } catch {
          // not JSON: left out
        }
      }
      names = [...seen];
      rows = objects.map((o) => names.map((n) => cell(o[n])));
    }
  }
  const attributeTypes = types ?? names.map((_, i) => guessType(rows.map((r) => r[i] ?? '')));
  return { attributeNames: names, attributeTypes, data: rows.map((entries) => ({ entries })), errorHandling: 0 };
}

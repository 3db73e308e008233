import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { CsvParser, type CsvParserOptions } from '@sml/core';
import { SourceError } from './types';

// The parser itself is @sml/core's (pure, shared with the SDK's CSV helpers); the readers here feed it.
export { CsvParser };

/** How a CSV file is read: DSInfo `csv_entry_separator` and `csv_quote_character` (API.md §5), the longest record, and the batches. */
export interface CsvOptions extends CsvParserOptions {
  /** Gunzip first (a path ending in `.gz`). */
  gzip?: boolean;
  /** Rows per batch (default 1000). */
  batchRows?: number;
  /**
   * A batch ends early once its rows cost this much (characters + 16 per field; default 8 Mi),
   * so a batch of long rows stays small: memory is bounded by this, not by batchRows alone.
   */
  maxBatchCost?: number;
  /** What messages name (the file). */
  name?: string;
}

export interface CsvBatch {
  /** The header row (column names), the same object in every batch. */
  header: string[];
  rows: string[][];
  /** The 1-based physical line each row starts on (a quoted field may span lines). */
  lines: number[];
  /** Bytes read from the source so far (compressed bytes for `.gz`). */
  bytesRead: number;
}

/** The DSInfo options of a file source, checked: one character each. */
export function csvOptionsOf(info: Readonly<Record<string, string>>, path: string): CsvOptions {
  const separator = info.csv_entry_separator ?? ',';
  const quote = info.csv_quote_character ?? '"';
  const sep = separator === '\\t' ? '\t' : separator;
  if ([...sep].length !== 1) throw new SourceError('invalid', `csv_entry_separator must be one character, not [${separator.slice(0, 20)}]`);
  if ([...quote].length !== 1) throw new SourceError('invalid', `csv_quote_character must be one character, not [${quote.slice(0, 20)}]`);
  if (sep === quote || sep === '\n' || sep === '\r' || quote === '\n' || quote === '\r') throw new SourceError('invalid', 'csv_entry_separator and csv_quote_character must differ and not be line breaks');
  return { separator: sep, quote, gzip: /\.gz$/i.test(path), name: path };
}

/** The bytes of a gzip stream, inflated as they come. */
export async function* gunzip(bytes: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  const gz = createGunzip();
  const src = Readable.from(bytes, { objectMode: false });
  src.on('error', (err) => gz.destroy(err));
  src.pipe(gz);
  for await (const chunk of gz) yield chunk as Buffer;
}

/** A failure of reading a CSV file as the SourceError naming the file (and the line, when the parser knew it). */
export function malformedCsv(name: string, err: unknown): never {
  if (err instanceof SourceError) throw err;
  const code = (err as { code?: string }).code;
  const detail = code === 'ERR_ENCODING_INVALID_ENCODED_DATA' || code === 'ERR_ENCODING_INVALID_DATA' ? 'bytes that are not UTF-8' : (err as Error).message;
  throw new SourceError('invalid', `Malformed CSV in [${name}]: ${detail.replace(/^incorrect header check$/, 'not gzip data')}`, { cause: err });
}

/**
 * CSV bytes → batches of rows, the first record being the header. UTF-8 (a leading BOM is
 * dropped; bytes that are not UTF-8 are an error naming the line), `.gz` gunzipped as it
 * streams. A malformed file throws an Error whose message names the file and the line.
 */
export async function* csvBatches(bytes: AsyncIterable<Uint8Array>, options: CsvOptions = {}): AsyncGenerator<CsvBatch> {
  const batchRows = options.batchRows ?? 1000;
  const maxCost = options.maxBatchCost ?? 8 << 20;
  let cost = 0;
  const name = options.name ?? 'the file';
  let bytesRead = 0;
  async function* counted(): AsyncIterable<Uint8Array> {
    for await (const chunk of bytes) {
      bytesRead += chunk.length;
      yield chunk;
    }
  }
  let header: string[] | undefined;
  let rows: string[][] = [];
  let lines: number[] = [];
  const parser = new CsvParser(options, (record, line) => {
    if (!header) header = record;
    else {
      rows.push(record);
      lines.push(line);
      cost += record.length * 16;
      for (const f of record) cost += f.length;
    }
  });
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const fail = (err: unknown): never => malformedCsv(name, err);
  try {
    for await (const chunk of options.gzip ? gunzip(counted()) : counted()) {
      try {
        parser.push(decoder.decode(chunk, { stream: true }));
      } catch (err) {
        fail(err);
      }
      if (header && (rows.length >= batchRows || cost >= maxCost)) {
        yield { header, rows, lines, bytesRead };
        rows = [];
        lines = [];
        cost = 0;
      }
    }
    parser.push(decoder.decode());
    parser.end();
  } catch (err) {
    fail(err);
  }
  if (!header) throw new SourceError('invalid', `Malformed CSV in [${name}]: no header row`);
  if (rows.length > 0) yield { header, rows, lines, bytesRead };
}

import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { SourceError } from './types';

/** How a CSV file is read: DSInfo `csv_entry_separator` and `csv_quote_character` (API.md §5). */
export interface CsvOptions {
  /** Field separator, one character (default `,`). */
  separator?: string;
  /** Quote character, one character (default `"`); doubled inside a quoted field. */
  quote?: string;
  /** Gunzip first (a path ending in `.gz`). */
  gzip?: boolean;
  /** Rows per batch (default 1000). */
  batchRows?: number;
  /** Longest record, in characters: memory stays bounded whatever the file (default 1 Mi). */
  maxRecordChars?: number;
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

/**
 * A streaming CSV parser: fields split on `separator`, fields in `quote` may hold separators,
 * line breaks and doubled quotes; records end at LF, CRLF or a lone CR. Fed text in chunks of
 * any size; keeps at most one record in memory.
 */
export class CsvParser {
  private field = '';
  private record: string[] = [];
  private inQuotes = false;
  /** A quote was seen inside a quoted field: the next character says whether it was doubled. */
  private quoteSeen = false;
  /** The previous character was a CR outside quotes (a following LF belongs to it). */
  private afterCr = false;
  /** Something of the current record was read (an empty line is skipped). */
  private started = false;
  private recordChars = 0;
  /** Physical line being read, 1-based. */
  private line = 1;
  private recordLine = 1;
  private readonly sep: string;
  private readonly quote: string;
  private readonly maxChars: number;

  constructor(options: CsvOptions, private readonly emit: (record: string[], line: number) => void) {
    this.sep = options.separator ?? ',';
    this.quote = options.quote ?? '"';
    this.maxChars = options.maxRecordChars ?? 1 << 20;
  }

  private where(line = this.recordLine): string {
    return `line ${line}`;
  }

  private endField(): void {
    this.record.push(this.field);
    this.field = '';
  }

  private endRecord(): void {
    if (this.started) {
      this.endField();
      this.emit(this.record, this.recordLine);
    }
    this.record = [];
    this.field = '';
    this.started = false;
    this.recordChars = 0;
  }

  push(text: string): void {
    const { sep, quote } = this;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (this.afterCr) {
        this.afterCr = false;
        if (c === '\n') continue;
      }
      if (!this.started) {
        this.started = c !== '\n' && c !== '\r';
        this.recordLine = this.line;
      }
      if (++this.recordChars > this.maxChars) throw new Error(`${this.where()}: a record longer than ${this.maxChars} characters`);
      if (this.inQuotes) {
        if (this.quoteSeen) {
          this.quoteSeen = false;
          if (c === quote) {
            this.field += quote;
            continue;
          }
          this.inQuotes = false; // the quote closed the field: read c as outside quotes
        } else {
          if (c === quote) this.quoteSeen = true;
          else {
            if (c === '\r' || (c === '\n' && text[i - 1] !== '\r')) this.line++;
            this.field += c;
          }
          continue;
        }
      }
      if (c === sep) this.endField();
      else if (c === '\r' || c === '\n') {
        this.line++;
        this.afterCr = c === '\r';
        this.endRecord();
      } else if (c === quote && this.field === '') this.inQuotes = true;
      else this.field += c;
    }
  }

  /** The end of the text: the last record (without a final line break); an open quote is an error. */
  end(): void {
    if (this.inQuotes && !this.quoteSeen) throw new Error(`${this.where()}: a quoted field is not closed before the end of the file`);
    this.inQuotes = false;
    this.quoteSeen = false;
    this.endRecord();
  }
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

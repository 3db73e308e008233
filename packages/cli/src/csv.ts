/**
 * A streaming CSV reader (RFC 4180): fields are separated by commas; a field in double
 * quotes may hold commas, line breaks and doubled quotes. Records end with CRLF, LF or a
 * lone CR (classic Mac exports). Blank lines are skipped and a leading UTF-8 BOM is dropped:
 * spreadsheet exports produce both, and neither is ever meant as a data row.
 */

const COMMA = 0x2c;
const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;
const BOM = 0xfeff;

const FIELD_START = 0;
const UNQUOTED = 1;
const QUOTED = 2;
/** Just read a quote inside a quoted field: either a doubled quote or the closing one. */
const AFTER_QUOTE = 3;

/** Malformed CSV; `line` is the 1-based physical line of the file. */
export class CsvError extends Error {
  override readonly name = 'CsvError';
  constructor(problem: string, readonly line: number) {
    super(`CSV line ${line}: ${problem}`);
  }
}

/**
 * Incremental parser: feed it chunks of any size (a record, a quoted field or a CRLF may be
 * split across chunks) and it returns the records each chunk completes.
 */
export class CsvParser {
  #state = FIELD_START;
  #field = '';
  #record: string[] = [];
  #line = 1;
  #quoteLine = 1;
  #prevCr = false;
  #atStart = true;

  push(chunk: string): string[][] {
    const records: string[][] = [];
    // Locals instead of private fields in the per-character loop: several times faster on large files.
    let state = this.#state;
    let field = this.#field;
    let record = this.#record;
    let line = this.#line;
    let prevCr = this.#prevCr;
    let i = 0;
    if (this.#atStart && chunk.length > 0) {
      this.#atStart = false;
      if (chunk.charCodeAt(0) === BOM) i = 1;
    }
    // Start, in this chunk, of the part of the current field not yet copied into `field`.
    let start = i;
    for (; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      const newline = c === CR || c === LF;
      if (c === CR || (c === LF && !prevCr)) line++;
      prevCr = c === CR;

      if (state === QUOTED) {
        if (c === QUOTE) {
          field += chunk.slice(start, i);
          state = AFTER_QUOTE;
        }
        continue;
      }
      if (state === AFTER_QUOTE) {
        if (c === QUOTE) {
          // A doubled quote: keep the second one as the start of the next copied slice.
          start = i;
          state = QUOTED;
        } else if (c === COMMA || newline) {
          record.push(field);
          field = '';
          if (newline) {
            records.push(record);
            record = [];
          }
          start = i + 1;
          state = FIELD_START;
        } else {
          throw new CsvError('unexpected character after the closing quote of a field', line);
        }
        continue;
      }
      if (state === FIELD_START) {
        if (c === QUOTE) {
          start = i + 1;
          this.#quoteLine = line;
          state = QUOTED;
          continue;
        }
        // An empty line, or the LF of a CRLF whose CR already ended the record.
        if (newline && record.length === 0) {
          start = i + 1;
          continue;
        }
        state = UNQUOTED;
      }
      if (c === COMMA || newline) {
        record.push(field + chunk.slice(start, i));
        field = '';
        if (newline) {
          records.push(record);
          record = [];
        }
        start = i + 1;
        state = FIELD_START;
      }
    }
    if (state === UNQUOTED || state === QUOTED) field += chunk.slice(start);
    this.#state = state;
    this.#field = field;
    this.#record = record;
    this.#line = line;
    this.#prevCr = prevCr;
    return records;
  }

  /** The last record when the input does not end with a line break. */
  end(): string[][] {
    if (this.#state === QUOTED) throw new CsvError('quoted field never closed', this.#quoteLine);
    if (this.#state === FIELD_START && this.#record.length === 0) return [];
    const record = [...this.#record, this.#field];
    this.#record = [];
    this.#field = '';
    this.#state = FIELD_START;
    return [record];
  }
}

/** The records of a stream of text chunks (e.g. `createReadStream(path, 'utf8')`), as they arrive. */
export async function* csvRecords(chunks: AsyncIterable<string>): AsyncGenerator<string[]> {
  const parser = new CsvParser();
  for await (const chunk of chunks) yield* parser.push(chunk);
  yield* parser.end();
}

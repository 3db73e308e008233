/**
 * The CSV parser of data-source files (RFC 4180 with the DSInfo's separator and quote):
 * moved here from @sml/sources so that the SDK's CSV helpers split a file exactly as a
 * localfile data source does, without the sources' readers and their dependencies. Pure.
 */

/** What the parser reads: `csv_entry_separator`, `csv_quote_character` and the longest record. */
export interface CsvParserOptions {
  /** Field separator, one character (default `,`). */
  separator?: string;
  /** Quote character, one character (default `"`); doubled inside a quoted field. */
  quote?: string;
  /** Longest record, in characters: memory stays bounded whatever the file (default 1 Mi). */
  maxRecordChars?: number;
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

  constructor(options: CsvParserOptions, private readonly emit: (record: string[], line: number) => void) {
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

import { isUtf8 } from 'node:buffer';
import { CsvParser, gunzip, malformedCsv, type CsvOptions } from './csv';
import { SourceError } from './types';

/*
 * The fast CSV reader: records split in the bytes, fields as byte ranges, no string per
 * cell (a data-source learn turns numeric fields into numbers straight from the bytes,
 * @sml/stats parseRecords). It reads what CsvParser reads, record for record: a record that
 * holds a quote character is decoded and handed to CsvParser itself, so quoting rules live
 * in one place; only the record boundaries (line breaks outside quotes) are found here,
 * with the same rules. The general reader (csvBatches) stays for samples and for learns
 * that need every cell as text.
 */

const LF = 0x0a;
const CR = 0x0d;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A batch of records, their fields as byte ranges of `bytes` (valid until the next batch is asked for). */
export interface CsvRecordBatch {
  /** The header row (column names), the same object in every batch. */
  header: string[];
  count: number;
  bytes: Uint8Array;
  /**
   * Record r's fields are [fieldStart[k], fieldEnd[k]) for k in [first[r], first[r + 1]);
   * null when the batch holds no quote and no CR: then record r is the bytes
   * [spans.start[r], spans.end[r]) and its fields are split at `spans.separator` by whoever
   * reads them (parseRecords splits and parses in one pass over the bytes).
   */
  first: Int32Array | null;
  fieldStart: Int32Array;
  fieldEnd: Int32Array;
  spans?: { start: Int32Array; end: Int32Array; separator: number };
  /** Records that hold a quote character, read by CsvParser: their cells (undefined for the others). */
  text: (string[] | undefined)[];
  /** The 1-based physical line each record starts on. */
  lines: Int32Array;
  /** Bytes read from the source so far (compressed bytes for `.gz`). */
  bytesRead: number;
}

function grown(a: Int32Array<ArrayBuffer>, size: number): Int32Array<ArrayBuffer> {
  if (size <= a.length) return a;
  const out = new Int32Array(Math.max(size, a.length * 2));
  out.set(a);
  return out;
}

/** Collects the records of a buffer at a time (its arrays reused); the first record of the file becomes the header. */
class RecordsBuilder {
  count = 0;
  fields = 0;
  first = new Int32Array(1024);
  fieldStart = new Int32Array(16384);
  fieldEnd = new Int32Array(16384);
  lines = new Int32Array(1024);
  text: (string[] | undefined)[] = [];
  /** Records as byte spans (a batch without quotes and CRs), else null. */
  spans: { start: Int32Array<ArrayBuffer>; end: Int32Array<ArrayBuffer> } | null = null;
  private recordFirst = 0;

  /** Starts a batch, reusing the arrays of the previous one (which its reader is done with). */
  reset(bytes: Uint8Array, spans: boolean): void {
    this.bytes = bytes;
    this.count = 0;
    this.fields = 0;
    this.recordFirst = 0;
    this.text = [];
    this.spans = spans ? (this.spans ?? { start: new Int32Array(1024), end: new Int32Array(1024) }) : null;
  }

  /** A record of the spans batch: bytes [start, end) starting on `line`. */
  span(start: number, end: number, line: number): void {
    const spans = this.spans!;
    spans.start = grown(spans.start, this.count + 1);
    spans.end = grown(spans.end, this.count + 1);
    this.lines = grown(this.lines, this.count + 1);
    spans.start[this.count] = start;
    spans.end[this.count] = end;
    this.lines[this.count++] = line;
  }

  constructor(private bytes: Uint8Array, public header: string[] | undefined) {}

  field(start: number, end: number): void {
    if (this.fields === this.fieldStart.length) {
      this.fieldStart = grown(this.fieldStart, this.fields + 1);
      this.fieldEnd = grown(this.fieldEnd, this.fields + 1);
    }
    this.fieldStart[this.fields] = start;
    this.fieldEnd[this.fields++] = end;
  }

  /** Forgets the fields of an unfinished record. */
  drop(): void {
    this.fields = this.recordFirst;
  }

  end(line: number, cells?: string[]): void {
    if (this.header === undefined) {
      this.header = cells ?? Array.from({ length: this.fields - this.recordFirst }, (_, k) => UTF8.decode(this.bytes.subarray(this.fieldStart[this.recordFirst + k], this.fieldEnd[this.recordFirst + k])));
      this.fields = this.recordFirst;
      return;
    }
    this.first = grown(this.first, this.count + 2);
    this.lines = grown(this.lines, this.count + 1);
    this.first[this.count] = this.recordFirst;
    this.lines[this.count] = line;
    if (cells) this.text[this.count] = cells;
    this.count++;
    this.first[this.count] = this.fields;
    this.recordFirst = this.fields;
  }
}

/** The UTF-16 length of UTF-8 bytes [s, e): one unit per lead byte, two for a four-byte sequence. */
function utf16Length(b: Uint8Array, s: number, e: number): number {
  let units = 0;
  for (let i = s; i < e; i++) {
    const c = b[i];
    if ((c & 0xc0) !== 0x80) units += c >= 0xf0 ? 2 : 1;
  }
  return units;
}

/** Finds record boundaries across buffers: the physical line and a CR that ended the previous buffer. */
class CsvSplitter {
  private line = 1;
  private afterCr = false;
  private readonly sep: number;
  private readonly quote: number;

  get separator(): number {
    return this.sep;
  }
  private readonly max: number;
  /** Bytes above this one are neither the separator, the quote nor a line break. */
  private readonly plain: number;

  constructor(private readonly options: CsvOptions) {
    this.sep = (options.separator ?? ',').charCodeAt(0);
    this.quote = (options.quote ?? '"').charCodeAt(0);
    this.max = options.maxRecordChars ?? 1 << 20;
    this.plain = Math.max(this.sep, this.quote, LF, CR);
  }

  /**
   * Whether `b` can be split by splitSpans: no quote and no CR anywhere (so every LF ends a
   * record and nothing needs unquoting), an ASCII separator and quote. Two native byte
   * searches over the batch, against the per-byte loop of split().
   */
  spansFit(b: Buffer): boolean {
    return this.sep < 0x80 && this.quote < 0x80 && b.indexOf(this.quote) < 0 && b.indexOf(CR) < 0;
  }

  /** Where reading `b` starts: past an LF that completes a CRLF whose CR ended the previous buffer. */
  private skipLfAfterCr(b: Uint8Array): number {
    if (!this.afterCr || b.length === 0) return 0;
    this.afterCr = false;
    return b[0] === LF ? 1 : 0;
  }

  /** split() for a batch where spansFit: records are the non-empty lines, found by a native search for LF. */
  splitSpans(b: Buffer, last: boolean, out: RecordsBuilder): number {
    const n = b.length;
    let line = this.line;
    let i = this.skipLfAfterCr(b);
    while (i < n) {
      let j = b.indexOf(LF, i);
      if (j < 0) {
        if (!last) return this.unfinished(b, line, line, i);
        j = n;
      }
      if (this.tooLong(b, i, j)) throw new Error(`line ${line}: a record longer than ${this.max} characters`);
      if (j > i) out.span(i, j, line);
      line++;
      i = j + 1;
    }
    this.line = line;
    return n;
  }

  /**
   * Splits the complete records of `b` into `out` (`last`: b ends the file); returns where
   * the unfinished record starts (b.length when there is none).
   */
  split(b: Uint8Array, last: boolean, out: RecordsBuilder): number {
    const { sep, quote, plain } = this;
    const n = b.length;
    let line = this.line;
    let i = this.skipLfAfterCr(b);
    while (i < n) {
      let c = b[i];
      if (c !== LF && c !== CR) {
        const recordStart = i;
        const recordLine = line;
        let fieldStart = i;
        for (; i < n; i++) {
          c = b[i];
          if (c > plain) continue; // most bytes (digits, letters) are none of the four
          if (c === sep) {
            out.field(fieldStart, i);
            fieldStart = i + 1;
          } else if (c === LF || c === CR || c === quote) break;
        }
        if (i < n && c === quote) {
          out.drop();
          const quoted = this.quotedRecord(b, recordStart, recordLine, last);
          if (quoted === null) return this.unfinished(b, recordLine, line, recordStart);
          out.end(recordLine, quoted.cells);
          i = quoted.end;
          line += quoted.lines;
        } else if (i === n && !last) {
          out.drop();
          return this.unfinished(b, recordLine, line, recordStart);
        } else {
          out.field(fieldStart, i);
          out.end(recordLine);
        }
        if (this.tooLong(b, recordStart, i)) throw new Error(`line ${recordLine}: a record longer than ${this.max} characters`);
        if (i === n) break;
        c = b[i];
      }
      // A line break: ends the record (or an empty line); CRLF is one.
      line++;
      i++;
      if (c === CR) {
        if (i < n) {
          if (b[i] === LF) i++;
        } else if (!last) this.afterCr = true;
      }
    }
    this.line = line;
    return n;
  }

  /**
   * Whether the complete record [s, e) is too long as CsvParser counts: its characters (UTF-16
   * code units, which never outnumber the UTF-8 bytes) and its line break if any, over `max`.
   */
  private tooLong(b: Uint8Array, s: number, e: number): boolean {
    const lineBreak = e < b.length ? 1 : 0; // the last record of a file may have none
    return e - s + lineBreak > this.max && utf16Length(b, s, e) + lineBreak > this.max;
  }

  /** The unfinished record [at, b.length) continues in the next buffer; it already fails when it has more than `max` characters. */
  private unfinished(b: Uint8Array, recordLine: number, line: number, at: number): number {
    if (b.length - at > this.max && utf16Length(b, at, b.length) > this.max) throw new Error(`line ${recordLine}: a record longer than ${this.max} characters`);
    this.line = line;
    return at;
  }

  /**
   * A record holding a quote character, from `start`: where it ends (its line break, or the
   * end of the file), its cells as CsvParser reads them and the line breaks inside quotes;
   * null when it does not end in `b` and more bytes follow.
   */
  private quotedRecord(b: Uint8Array, start: number, recordLine: number, last: boolean): { end: number; cells: string[]; lines: number } | null {
    const { sep, quote } = this;
    const n = b.length;
    let inQuotes = false;
    let quoteSeen = false;
    let fieldEmpty = true;
    let lines = 0;
    let j = start;
    for (; j < n; j++) {
      const c = b[j];
      if (inQuotes) {
        if (quoteSeen) {
          quoteSeen = false;
          if (c === quote) {
            fieldEmpty = false;
            continue;
          }
          inQuotes = false; // the quote closed the field: c is read as outside quotes
        } else {
          if (c === quote) quoteSeen = true;
          else {
            fieldEmpty = false;
            if (c === CR || (c === LF && b[j - 1] !== CR)) lines++;
          }
          continue;
        }
      }
      if (c === sep) fieldEmpty = true;
      else if (c === LF || c === CR) break;
      else if (c === quote && fieldEmpty) inQuotes = true;
      else fieldEmpty = false;
    }
    if (j === n) {
      if (!last) return null;
      if (inQuotes && !quoteSeen) throw new Error(`line ${recordLine}: a quoted field is not closed before the end of the file`);
    }
    let cells: string[] = [];
    const parser = new CsvParser(this.options, (record) => (cells = record));
    parser.push(UTF8.decode(b.subarray(start, j)));
    parser.end();
    return { end: j, cells, lines };
  }
}

/**
 * CSV bytes → batches of records with fields as byte ranges, the first record being the
 * header: the same records as csvBatches (UTF-8, leading BOM dropped, `.gz` gunzipped as it
 * streams, LF/CRLF/CR line breaks, quoted fields), read about `batchBytes` (default 1 MiB)
 * at a time. A malformed file throws a SourceError naming the file and the line.
 */
export async function* csvRecordBatches(bytes: AsyncIterable<Uint8Array>, options: CsvOptions & { batchBytes?: number } = {}): AsyncGenerator<CsvRecordBatch> {
  const name = options.name ?? 'the file';
  const batchBytes = options.batchBytes ?? 1 << 20;
  let bytesRead = 0;
  async function* counted(): AsyncIterable<Uint8Array> {
    for await (const chunk of bytes) {
      bytesRead += chunk.length;
      yield chunk;
    }
  }
  const splitter = new CsvSplitter(options);
  let leftover: Uint8Array = new Uint8Array(0);
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let atStart = true;
  const out = new RecordsBuilder(new Uint8Array(0), undefined);

  const take = (last: boolean): CsvRecordBatch | undefined => {
    let buf: Uint8Array = Buffer.concat([leftover, ...pending]);
    pending = [];
    pendingBytes = 0;
    if (atStart) {
      if (buf.length < 3 && !last) {
        leftover = buf;
        return undefined;
      }
      atStart = false;
      if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) buf = buf.subarray(3);
    }
    // The header is read by the general split (it may be quoted); later batches take spans when they can.
    const spans = out.header !== undefined && splitter.spansFit(buf as Buffer);
    out.reset(buf, spans);
    const consumed = spans ? splitter.splitSpans(buf as Buffer, last, out) : splitter.split(buf, last, out);
    if (!isUtf8(buf.subarray(0, consumed))) throw new SourceError('invalid', `Malformed CSV in [${name}]: bytes that are not UTF-8`);
    const header = out.header;
    leftover = buf.subarray(consumed);
    if (header === undefined || out.count === 0) return undefined;
    const records = out.spans ? { first: null, spans: { ...out.spans, separator: splitter.separator } } : { first: out.first };
    return { header, count: out.count, bytes: buf, ...records, fieldStart: out.fieldStart, fieldEnd: out.fieldEnd, text: out.text, lines: out.lines, bytesRead };
  };

  try {
    for await (const chunk of options.gzip ? gunzip(counted()) : counted()) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes < batchBytes) continue;
      const batch = take(false);
      if (batch) yield batch;
    }
    const batch = take(true);
    if (batch) yield batch;
  } catch (err) {
    malformedCsv(name, err);
  }
  if (out.header === undefined) throw new SourceError('invalid', `Malformed CSV in [${name}]: no header row`);
}

/** Record r of a batch as text cells (for planning from the first rows, and for messages). */
export function recordCells(batch: CsvRecordBatch, r: number): string[] {
  const cells = batch.text[r];
  if (cells) return cells;
  const out: string[] = [];
  if (batch.first === null) {
    const { start, end, separator } = batch.spans!;
    for (let at = start[r]; ; ) {
      const next = batch.bytes.indexOf(separator, at);
      const stop = next < 0 || next >= end[r] ? end[r] : next;
      out.push(UTF8.decode(batch.bytes.subarray(at, stop)));
      if (stop === end[r]) return out;
      at = stop + 1;
    }
  }
  for (let k = batch.first[r]; k < batch.first[r + 1]; k++) out.push(UTF8.decode(batch.bytes.subarray(batch.fieldStart[k], batch.fieldEnd[k])));
  return out;
}

import fc from 'fast-check';
import { gzipSync } from 'node:zlib';
import { csvBatches, csvRecordBatches, recordCells, SourceError, type CsvOptions } from '../src';

/*
 * The fast reader (csvRecordBatches) must read every file exactly as the general one
 * (csvBatches): the same header, records, cells and lines, or the same error. Checked on
 * generated files with quotes, separators and line breaks in fields, empty lines, all three
 * line endings, a BOM, non-ASCII text, cut into chunks anywhere.
 */

async function* chunks(bytes: Uint8Array, cuts: number[]): AsyncIterable<Uint8Array> {
  let at = 0;
  for (const cut of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)) {
    if (cut > at) yield bytes.subarray(at, cut);
    at = Math.max(at, cut);
  }
  if (at < bytes.length) yield bytes.subarray(at);
}

interface Read {
  header?: string[];
  rows: string[][];
  lines: number[];
  error?: string;
}

async function general(bytes: Uint8Array, cuts: number[], options: CsvOptions): Promise<Read> {
  const out: Read = { rows: [], lines: [] };
  try {
    for await (const b of csvBatches(chunks(bytes, cuts), options)) {
      out.header = b.header;
      out.rows.push(...b.rows);
      out.lines.push(...b.lines);
    }
  } catch (err) {
    out.error = (err as Error).message;
  }
  return out;
}

async function fast(bytes: Uint8Array, cuts: number[], options: CsvOptions, batchBytes: number): Promise<Read> {
  const out: Read = { rows: [], lines: [] };
  try {
    for await (const b of csvRecordBatches(chunks(bytes, cuts), { ...options, batchBytes })) {
      out.header = b.header;
      for (let r = 0; r < b.count; r++) {
        out.rows.push(recordCells(b, r));
        out.lines.push(b.lines[r]);
      }
    }
  } catch (err) {
    out.error = (err as Error).message;
  }
  return out;
}

const piece = fc.constantFrom('1', '-2.5', 'x', 'é', '日本', ' ', '"', '""', ',', ';', '\n', '\r', '\r\n', 'a"b', '"q"', '"a,b"', '"x\ny"', '"say ""hi"""', '', 'NA');
const text = fc.array(piece, { maxLength: 60 }).map((ps) => ps.join(''));

describe('csvRecordBatches reads what csvBatches reads', () => {
  it('generated files, any chunking, any batch size', async () => {
    await fc.assert(
      fc.asyncProperty(text, fc.boolean(), fc.array(fc.nat(), { maxLength: 8 }), fc.integer({ min: 1, max: 64 }), fc.constantFrom(',', ';'), async (body, bom, cuts, batchBytes, separator) => {
        const bytes = new TextEncoder().encode((bom ? '\ufeff' : '') + body);
        const options = { separator, name: 'f.csv' };
        const expected = await general(bytes, cuts, options);
        const actual = await fast(bytes, cuts, options, batchBytes);
        expect(actual).toEqual(expected);
      }),
      { numRuns: 400 },
    );
  });

  // Files without quotes and CRs: every batch after the header's is read as spans.
  it('generated files without quotes or CRs (records as spans), any chunking, any batch size', async () => {
    const plain = fc.array(fc.constantFrom('1', '-2.5', 'x', 'é', '日本', ' ', ',', ';', '\n', '\n\n', '', 'NA', '\t'), { maxLength: 80 }).map((ps) => ps.join(''));
    await fc.assert(
      fc.asyncProperty(plain, fc.array(fc.nat(), { maxLength: 8 }), fc.integer({ min: 1, max: 64 }), fc.constantFrom(',', ';'), fc.constantFrom(undefined, 8), async (body, cuts, batchBytes, separator, maxRecordChars) => {
        const bytes = new TextEncoder().encode(body);
        const options = { separator, name: 'f.csv', maxRecordChars };
        expect(await fast(bytes, cuts, options, batchBytes)).toEqual(await general(bytes, cuts, options));
      }),
      { numRuns: 400 },
    );
  });

  it('a header and rows, LF, CRLF and CR-only', async () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      const bytes = new TextEncoder().encode(['a,b', '1,2', '', '"3\n4",5', 'x,"y"'].join(eol) + eol);
      const read = await fast(bytes, [5, 9], {}, 4);
      expect(read).toEqual(await general(bytes, [], {}));
      expect(read.rows).toEqual([['1', '2'], ['3\n4', '5'], ['x', 'y']]);
    }
  });

  it('gzip, and the errors: an open quote, a long record, bytes that are not UTF-8, no header', async () => {
    const gz = gzipSync('a,b\n1,2\n');
    expect((await fast(gz, [], { gzip: true }, 16)).rows).toEqual([['1', '2']]);
    const cases: [Uint8Array, CsvOptions, RegExp][] = [
      [new TextEncoder().encode('a,b\n1,"2\n3,4\n'), {}, /line 2: a quoted field is not closed before the end of the file/],
      [new TextEncoder().encode(`a\n${'x'.repeat(600)}\n`), { maxRecordChars: 500 }, /line 2: a record longer than 500 characters/],
      [Uint8Array.from([0x61, 0x0a, 0xff, 0x0a]), {}, /bytes that are not UTF-8/],
      [new Uint8Array(0), {}, /no header row/],
    ];
    for (const [bytes, options, message] of cases) {
      const read = await fast(bytes, [], { ...options, name: 'f.csv' }, 8);
      expect(read.error).toMatch(message);
      expect(read.error).toMatch(/^Malformed CSV in \[f\.csv\]/);
      expect((await general(bytes, [], { ...options, name: 'f.csv' })).error).toMatch(message);
    }
    await expect((async () => {
      for await (const b of csvRecordBatches(chunks(Uint8Array.from([0xff]), []), {})) void b;
    })()).rejects.toBeInstanceOf(SourceError);
  });
});

import fc from 'fast-check';
import { CsvError, CsvParser, csvRecords } from '../src/csv';

/** Parses `text` delivered in the given chunks. */
function parse(...chunks: string[]): string[][] {
  const parser = new CsvParser();
  return [...chunks.flatMap((c) => parser.push(c)), ...parser.end()];
}

describe('CSV reader (RFC 4180)', () => {
  it.each([
    ['LF', 'a,b\n1,2\n3,4\n'],
    ['CRLF', 'a,b\r\n1,2\r\n3,4\r\n'],
    ['CR only', 'a,b\r1,2\r3,4\r'],
    ['no final line break', 'a,b\n1,2\n3,4'],
  ])('reads records ended by %s', (_name, text) => {
    expect(parse(text)).toEqual([['a', 'b'], ['1', '2'], ['3', '4']]);
  });

  it('keeps commas, doubled quotes and line breaks inside quoted fields', () => {
    const text = 'name,note\r\n"Smith, J.","said ""hi""\r\nthen left"\r\n"",x\r\n';
    expect(parse(text)).toEqual([['name', 'note'], ['Smith, J.', 'said "hi"\r\nthen left'], ['', 'x']]);
  });

  it('keeps empty fields, including a trailing one', () => {
    expect(parse('a,,c\n,,\nx,\n')).toEqual([['a', '', 'c'], ['', '', ''], ['x', '']]);
  });

  it('skips blank lines and a leading byte-order mark', () => {
    expect(parse('\uFEFFa,b\n\n1,2\r\n\r\n\r3,4\n\n')).toEqual([['a', 'b'], ['1', '2'], ['3', '4']]);
  });

  it('a CRLF split across two chunks ends one record, not two', () => {
    expect(parse('a,b\r', '\n1,2\r', '\n')).toEqual([['a', 'b'], ['1', '2']]);
  });

  it('a quote in the middle of an unquoted field is kept as data', () => {
    expect(parse('5" pipe,x\n')).toEqual([['5" pipe', 'x']]);
  });

  it('text after a closing quote is an error naming the line', () => {
    expect(() => parse('a,b\n"x"y,1\n')).toThrow(new CsvError('unexpected character after the closing quote of a field', 2));
  });

  it('a quoted field never closed is an error naming the line it opened on', () => {
    expect(() => parse('a,b\n1,2\n"open,3\n4,5\n')).toThrow(new CsvError('quoted field never closed', 3));
  });

  it('parsing in chunks of any size gives the records of parsing at once', () => {
    const field = fc.string({ unit: fc.constantFrom('a', 'b', ' ', ',', '"', '\r', '\n', 'é') });
    const records = fc.array(fc.array(field, { minLength: 1, maxLength: 4 }), { maxLength: 6 });
    const eol = fc.constantFrom('\n', '\r\n', '\r');
    fc.assert(fc.property(records, eol, fc.array(fc.nat(), { maxLength: 8 }), (rows, lineEnd, cuts) => {
      // Quote fields that need it, and a lone empty field so its line is not read as blank.
      const quote = (f: string, row: string[]) => (/[",\r\n]/.test(f) || row.length === 1 ? `"${f.replace(/"/g, '""')}"` : f);
      const text = rows.map((row) => row.map((f) => quote(f, row)).join(',') + lineEnd).join('');
      const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
      const chunks = [0, ...points].map((p, i, all) => text.slice(p, all[i + 1] ?? text.length));
      expect(parse(...chunks)).toEqual(rows);
    }));
  });

  it('csvRecords reads an async stream of chunks', async () => {
    async function* chunks() {
      yield 'x,y\r';
      yield '\n"1,5",2';
    }
    const out: string[][] = [];
    for await (const r of csvRecords(chunks())) out.push(r);
    expect(out).toEqual([['x', 'y'], ['1,5', '2']]);
  });
});

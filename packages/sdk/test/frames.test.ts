import { frameFromCsv, frameFromRecords, predictionRecords } from '@sml/sdk';

// The CSV/records → DataFrame helpers (frames.ts): types guessed as sample/preview guess them.
describe('frameFromCsv', () => {
  it('header, rows, quoted fields with separators, quotes and line breaks; types guessed C, B, T', () => {
    const frame = frameFromCsv('x,flag,name\r\n1.5,1,"a, ""b"""\n-2,0,"two\nlines"\n\n3e2,,c\n');
    expect(frame).toEqual({
      attributeNames: ['x', 'flag', 'name'],
      attributeTypes: ['C', 'B', 'T'],
      data: [['1.5', '1', 'a, "b"'], ['-2', '0', 'two\nlines'], ['3e2', '', 'c']],
      errorHandling: 0,
    });
  });

  it('types given all or by name; the rest guessed; separator and quote as a DSInfo\'s; a BOM is skipped', () => {
    expect(frameFromCsv('\ufeffa;b\n1;0\n', { separator: ';', types: { b: 'C' } })).toMatchObject({ attributeNames: ['a', 'b'], attributeTypes: ['B', 'C'] });
    expect(frameFromCsv("a,b\n'1,2',3\n", { quote: "'", types: ['T', 'X'], errorHandling: 1 })).toEqual({ attributeNames: ['a', 'b'], attributeTypes: ['T', 'X'], data: [['1,2', '3']], errorHandling: 1 });
  });

  it('short rows padded with missing cells; a long row, a wrong types count or a type for no column is an error', () => {
    expect(frameFromCsv('a,b\n1\n').data).toEqual([['1', '']]);
    expect(() => frameFromCsv('a,b\n1,2,3\n')).toThrow('CSV line 2: 3 fields, the header has 2');
    expect(() => frameFromCsv('a,b\n1,2\n', { types: ['C'] })).toThrow('1 types for 2 columns');
    expect(() => frameFromCsv('a,b\n1,2\n', { types: { c: 'C' } })).toThrow('[c]');
    expect(() => frameFromCsv('')).toThrow('without a header');
  });

  it('guesses from every row, not only the first 128 a sample shows', () => {
    const rows = Array.from({ length: 300 }, (_, i) => (i === 299 ? 'word' : String(i)));
    expect(frameFromCsv(`a\n${rows.join('\n')}\n`).attributeTypes).toEqual(['T']);
  });
});

describe('frameFromRecords', () => {
  it('columns first seen first; numbers as text, booleans 1/0, null and undefined missing, NaN as the API writes it (a missing cell to the guess)', () => {
    const frame = frameFromRecords([{ x: 1.25, ok: true }, { x: Number.NaN, ok: false, city: 'Paris' }, { x: 3, ok: null }]);
    expect(frame).toEqual({
      attributeNames: ['x', 'ok', 'city'],
      attributeTypes: ['C', 'B', 'T'],
      data: [['1.25', '1', ''], ['NaN', '0', 'Paris'], ['3', '', '']],
      errorHandling: 0,
    });
  });

  it('±Infinity as the API writes it', () => {
    expect(frameFromRecords([{ x: Infinity }, { x: -Infinity }], { types: ['C'] }).data).toEqual([['Infinity'], ['-Infinity']]);
  });

  it('columns chosen and ordered', () => {
    expect(frameFromRecords([{ a: 1, b: 2, c: 'z' }], { columns: ['c', 'a'] }).data).toEqual([['z', '1']]);
  });
});

describe('predictionRecords', () => {
  it('one record per row, numbers parsed, the input row first when given', () => {
    const input = frameFromRecords([{ x: 1, y: 'a' }, { x: 2, y: 'b' }]);
    const answer = { KSVSMap: { values: [{ res: '0.75', label: 'yes' }, { res: 'NaN', label: '' }] } };
    expect(predictionRecords(answer)).toEqual([{ res: 0.75, label: 'yes' }, { res: Number.NaN, label: '' }]);
    expect(predictionRecords(answer, input)).toEqual([{ x: '1', y: 'a', res: 0.75, label: 'yes' }, { x: '2', y: 'b', res: Number.NaN, label: '' }]);
    expect(() => predictionRecords(answer, frameFromRecords([{ x: 1 }]))).toThrow('2 predictions for 1 input rows');
    expect(predictionRecords(undefined)).toEqual([]);
  });
});

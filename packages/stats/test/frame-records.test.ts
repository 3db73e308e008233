import fc from 'fast-check';
import { FrameError, parseRecords, type ColumnType, type FieldRecords } from '../src';
import { parseFrame, type ParsedFrame } from '../src/frame';

/*
 * parseRecords (numeric cells read from the bytes) must give what parseFrame gives for the
 * same rows as strings: the same values, levels and codes, the same rows skipped, the same
 * first error. Checked on generated rows whose cells mix every shape a CSV cell takes.
 */

const CELLS = ['1', '-2.5', '0', '1.', '.5', '+3', '1e3', '2E-2', '007', '-0', ' 4 ', '\t5', '\u00a06', '7\u00a0', '', ' ', 'NA', 'nan', 'NULL', '?', 'x', 'Yes', '0x10', '1e400', 'Infinity', '12345678901234567890', '0.1000000000000000055511151231257827', 'é', '1,5', '--1'];

/**
 * Rows as records: fields as byte ranges of one buffer, or (`asText`) as text cells; with
 * `spans`, each record as a line of fields separated by '|' that parseRecords splits itself.
 */
function records(rows: string[][], asText: boolean[], spans = false): FieldRecords {
  if (spans) {
    const enc = new TextEncoder();
    const start: number[] = [];
    const end: number[] = [];
    const text: (string[] | undefined)[] = [];
    const lines: Uint8Array[] = [];
    let at = 0;
    rows.forEach((row, r) => {
      if (asText[r]) text[r] = row;
      const line = enc.encode(row.join('|'));
      start.push(at);
      end.push(at + line.length);
      lines.push(line, enc.encode('\n'));
      at += line.length + 1;
    });
    const none = new Int32Array(0);
    return { count: rows.length, bytes: Buffer.concat(lines), first: null, fieldStart: none, fieldEnd: none, spans: { start: Int32Array.from(start), end: Int32Array.from(end), separator: 0x7c }, text };
  }
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [];
  const fieldStart: number[] = [];
  const fieldEnd: number[] = [];
  const first: number[] = [];
  const text: (string[] | undefined)[] = [];
  let at = 0;
  rows.forEach((row, r) => {
    first.push(fieldStart.length);
    if (asText[r]) {
      text[r] = row;
      return;
    }
    for (const cell of row) {
      const bytes = enc.encode(cell);
      parts.push(bytes, enc.encode('|'));
      fieldStart.push(at);
      fieldEnd.push(at + bytes.length);
      at += bytes.length + 1;
    }
  });
  first.push(fieldStart.length);
  return { count: rows.length, bytes: Buffer.concat(parts), first: Int32Array.from(first), fieldStart: Int32Array.from(fieldStart), fieldEnd: Int32Array.from(fieldEnd), text };
}

function columns(p: ParsedFrame | null) {
  if (p === null) return null;
  return { numeric: p.numeric.map((c) => [c.name, c.kind, Array.from(c.values)]), categorical: p.categorical.map((c) => [c.name, [...c.levels], Array.from(c.codes)]), learned: p.report.rowsLearned };
}

function outcome(run: () => ParsedFrame | null): unknown {
  try {
    return columns(run());
  } catch (err) {
    if (!(err instanceof FrameError)) throw err;
    return { row: err.row, column: err.column, reason: err.reason };
  }
}

describe('parseRecords reads rows as parseFrame does', () => {
  it('generated rows, strict and lenient', () => {
    const types = fc.array(fc.constantFrom<ColumnType>('C', 'B', 'T', 'X', 'S'), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(types, fc.integer({ min: 1, max: 12 }), fc.infiniteStream(fc.constantFrom(...CELLS)), fc.infiniteStream(fc.boolean()), fc.boolean(), fc.boolean(), (ts, n, cells, texts, lenient, spans) => {
        const names = ts.map((_, c) => `a${c}`);
        // The file has one more field than the plan reads (the plan reads fields in another order).
        const width = ts.length + 1;
        const fields = ts.map((_, c) => width - 1 - c);
        const rows = Array.from({ length: n }, () => Array.from({ length: width }, () => cells.next().value as string));
        const asText = rows.map(() => texts.next().value as boolean);
        const frameRows = rows.map((row) => fields.map((f) => row[f]));
        const expected = outcome(() => parseFrame({ attributeNames: names, attributeTypes: ts, data: frameRows, errorHandling: lenient ? 1 : 0 }));
        let skipped = -1;
        const actual = outcome(() => {
          const out = parseRecords(records(rows, asText, spans), { names, types: ts, fields, width }, lenient, (bad) => `${bad.record}`);
          skipped = out.skipped;
          return out.parsed;
        });
        if (lenient && expected === null) {
          // parseFrame keeps a frame of no rows; parseRecords says there is none.
          expect(actual).toBeNull();
          return;
        }
        if (lenient && actual === null) {
          expect((expected as { learned: number }).learned).toBe(0);
          expect(skipped).toBe(n);
          return;
        }
        expect(actual).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it.each([false, true])('records with the wrong number of fields: skipped (lenient) or the error names the record (strict), spans %s', (spans) => {
    const recs = records([['1', '2'], ['3'], ['4', '5', '6'], ['7', '8']], [false, false, true, false], spans);
    const plan = { names: ['a'], types: ['C' as ColumnType], fields: [1], width: 2 };
    const lenient = parseRecords(recs, plan, true, (bad) => `record ${bad.record}: ${bad.reason}`);
    expect(Array.from(lenient.parsed!.numeric[0].values)).toEqual([2, 8]);
    expect(Array.from(lenient.recordOf)).toEqual([0, 3]);
    expect(lenient.skipped).toBe(2);
    expect(lenient.errors).toEqual(['record 1: 1 fields, the header has 2', 'record 2: 3 fields, the header has 2']);
    expect(() => parseRecords(recs, plan, false, String)).toThrow(expect.objectContaining({ row: 2, reason: '1 fields, the header has 2' }));
  });
});

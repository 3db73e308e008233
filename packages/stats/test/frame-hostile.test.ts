import { FrameError, parseFrameJson, Summary } from '@sml/stats';

// Hostile learn bodies (issue 9): each is refused with a FrameError or SyntaxError (the
// projects service answers 400 with its message), by the fast reader (which declines) and by
// the general path alike, without a stack overflow and with a message protobuf can carry.
const enc = new TextEncoder();
const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
const body = (names: string, types: string, data: string, extra = '') => `{"attributeNames":${names},"attributeTypes":${types},"data":${data}${extra}}`;

/**
 * What learnJson throws for these bytes, having checked that the fast reader declined them
 * (`readable`: it reads them, and the summary refuses what it read, as for over-long names).
 */
function refusal(bytes: Uint8Array, readable = false): Error {
  const summary = new Summary();
  if (!readable) expect(parseFrameJson(bytes)).toBeNull();
  try {
    summary.learnJson(bytes);
  } catch (err) {
    expect(err instanceof FrameError || err instanceof SyntaxError).toBe(true);
    // Protobuf strings are UTF-8: no unpaired surrogate may reach the message.
    expect((err as Error).message.isWellFormed()).toBe(true);
    expect(summary.rowCount).toBe(0);
    return err as Error;
  }
  throw new Error('expected a refusal');
}
const refused = (text: string, readable = false) => refusal(enc.encode(text), readable);

describe('hostile frames', () => {
  it.each([
    ['a raw U+0001 in a categorical cell', body('["a","t"]', '["C","T"]', '[["1","x\u0001y"]]')],
    ['a raw newline in a numeric cell', body('["a"]', '["C"]', '[["1\n"]]')],
    ['a raw U+0001 in an attribute name', body('["a\u0001"]', '["C"]', '[["1"]]')],
    ['a raw tab in an ignored cell', body('["a","x"]', '["C","X"]', '[["1","\t"]]')],
  ])('%s → SyntaxError (JSON strings hold no raw control characters)', (_what, text) => {
    expect(refused(text)).toBeInstanceOf(SyntaxError);
  });

  it.each([
    ['an attribute name', body('["\\ud800"]', '["C"]', '[["1"]]'), /column \[\\ud800\]: the attribute name is not valid Unicode text/],
    ['a low surrogate in a name', body('["a\\udc00b"]', '["C"]', '[["1"]]'), /column \[a\\udc00b\]: the attribute name is not valid Unicode text/],
    ['a categorical value', body('["a","t"]', '["C","T"]', '[["1","\\ud800"]]'), /row 1, column \[t\]: the cell is not valid Unicode text/],
    ['a string-key cell', body('["a","s"]', '["C","S"]', '[["1","x\\udbff"]]'), /row 1, column \[s\]: the cell is not valid Unicode text/],
  ])('an unpaired surrogate in %s → FrameError naming it, escaped', (_what, text, message) => {
    expect(refused(text).message).toMatch(message);
  });

  it('a pair of surrogates is a character like any other', () => {
    const r = new Summary().learnJson(enc.encode(body('["\\ud83d\\ude00","t"]', '["C","T"]', '[["1","\\ud83d\\ude00"]]')));
    expect(r.report.rowsLearned).toBe(1);
  });

  it.each([
    ['a numeric cell', body('["a"]', '["C"]', `[[${deep(100_000)}]]`), 'row 1, column [a]'],
    ['a categorical cell', body('["a","t"]', '["C","T"]', `[["1",${deep(100_000)}]]`), 'row 1, column [t]'],
    ['an ignored cell', body('["a","x"]', '["C","X"]', `[["1",${deep(100_000)}]]`), 'row 1, column [x]'],
    ['the data rows', body('["a"]', '["C"]', deep(100_000)), 'row 1, column [a]'],
  ])('10⁵ nested arrays as %s → FrameError, not a stack overflow', (_what, text, where) => {
    const err = refused(text);
    expect(err).toBeInstanceOf(FrameError);
    expect(err.message).toBe(`Invalid DataFrame at ${where}: a cell must be a string, a number or null, not an array`);
  });

  it('10⁵ nested arrays as a name, a type code or errorHandling → FrameError naming what it is', () => {
    expect(refused(body(`[${deep(100_000)}]`, '["C"]', '[["1"]]')).message).toBe('attribute names must be non-empty strings, not an array (attribute 1)');
    expect(refused(body('["a"]', `[${deep(100_000)}]`, '[["1"]]')).message).toMatch(/^Invalid DataFrame at column \[a\]: unknown attribute type code an array/);
    expect(refused(body('["a"]', '["C"]', '[["1"]]', `,"errorHandling":${deep(100_000)}`)).message).toBe('errorHandling must be 0 (strict) or 1 (lenient), not an array');
  });

  it('a lenient frame skips the row holding 10⁵ nested arrays and learns the others', () => {
    const r = new Summary().learnJson(enc.encode(body('["a"]', '["C"]', `[[${deep(100_000)}],["2"]]`, ',"errorHandling":1')));
    expect(r.report).toEqual({ rowsLearned: 1, rowsSkipped: 1, errors: ['Invalid DataFrame at row 1, column [a]: a cell must be a string, a number or null, not an array'] });
  });

  it.each([[2], ['"1"'], ['-1'], ['true'], ['0.5']])('errorHandling %s → FrameError', (value) => {
    expect(refused(body('["a"]', '["C"]', '[["1"]]', `,"errorHandling":${value}`)).message).toMatch(/^errorHandling must be 0 \(strict\) or 1 \(lenient\), not /);
  });

  it('errorHandling null is taken as absent (strict)', () => {
    expect(new Summary().learnJson(enc.encode(body('["a"]', '["C"]', '[["1"]]', ',"errorHandling":null'))).lenient).toBe(false);
  });

  it.each([['" C"', '[ C]'], ['"T "', '[T ]'], ['"c"', '[c]']])('type code %s → FrameError (codes are exact)', (code, shown) => {
    expect(refused(body('["a"]', `[${code}]`, '[["1"]]')).message)
      .toBe(`Invalid DataFrame at column [a]: unknown attribute type code ${shown}: expected exactly one of C, B, T, S, L, X (no spaces)`);
  });

  it('names up to 256 characters (code points) are learned; longer ones, or categorical values that make one, → FrameError', () => {
    const ok = 'é'.repeat(256);
    expect(new Summary().learnJson(enc.encode(body(`["${ok}"]`, '["C"]', '[["1"]]'))).report.rowsLearned).toBe(1);
    // 256 astral characters are 512 UTF-16 units, still 256 characters.
    expect(new Summary().learnJson(enc.encode(body(`["${'😀'.repeat(256)}"]`, '["C"]', '[["1"]]'))).report.rowsLearned).toBe(1);
    const long = 'n'.repeat(100_000);
    expect(refused(body(`["${long}"]`, '["C"]', '[["1"]]'), true).message)
      .toBe(`Invalid DataFrame at column [${'n'.repeat(100)}… (100000 characters)]: the attribute name has 100000 characters, over the limit of 256`);
    // t + $ + 255 characters = 257.
    expect(refused(body('["a","t"]', '["C","T"]', `[["1","${'v'.repeat(255)}"]]`), true).message)
      .toBe(`Invalid DataFrame at column [t]: the value [${'v'.repeat(100)}… (255 characters)] makes an attribute name of 257 characters, over the limit of 256`);
  });

  it('the name limit is the service\'s to set (StateLimits.maxNameLength)', () => {
    const s = new Summary();
    expect(() => s.prepare('learn', { json: enc.encode(body('["abcd"]', '["C"]', '[["1"]]')) }, { maxNameLength: 3 })).toThrow('over the limit of 3');
    s.prepare('learn', { json: enc.encode(body('["abc"]', '["C"]', '[["1"]]')) }, { maxNameLength: 3 }).commit();
    expect(s.rowCount).toBe(1);
  });

  it('bytes that are not UTF-8 → SyntaxError, whether in a name, a cell or between values', () => {
    const withBytes = (before: string, bytes: number[], after: string) => new Uint8Array([...enc.encode(before), ...bytes, ...enc.encode(after)]);
    for (const bytes of [
      withBytes('{"attributeNames":["a', [0xc3], '"],"attributeTypes":["C"],"data":[["1"]]}'),
      withBytes('{"attributeNames":["a","t"],"attributeTypes":["C","T"],"data":[["1","x', [0xff, 0xfe], '"]]}'),
      withBytes('{"attributeNames":["a","x"],"attributeTypes":["C","X"],"data":[["1","', [0xed, 0xa0, 0x80], '"]]}'),
    ]) {
      const err = refusal(bytes);
      expect(err).toBeInstanceOf(SyntaxError);
      expect(err.message).toBe('the body is not valid UTF-8');
    }
  });
});

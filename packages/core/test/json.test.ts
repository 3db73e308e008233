import fc from 'fast-check';
import { JsonBodyError, MAX_JSON_DEPTH, invalidUtf8At, parseJsonBody } from '../src/json';

const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
const enc = (s: string) => Buffer.from(s, 'utf8');
const why = (bytes: Uint8Array) => {
  try {
    parseJsonBody(bytes);
  } catch (err) {
    expect(err).toBeInstanceOf(JsonBodyError);
    return (err as Error).message;
  }
  throw new Error('expected a JsonBodyError');
};

describe('request bodies read as JSON', () => {
  it('invalidUtf8At agrees with a fatal TextDecoder, and points at a byte a decoder stops at', () => {
    const strict = new TextDecoder('utf-8', { fatal: true });
    const valid = (b: Uint8Array) => {
      try {
        strict.decode(b);
        return true;
      } catch {
        return false;
      }
    };
    fc.assert(fc.property(fc.uint8Array({ maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 6 }), (noise, text) => {
      const bytes = Buffer.concat([enc(text), noise, enc(text)]);
      const at = invalidUtf8At(bytes);
      expect(at < 0).toBe(valid(bytes));
      if (at >= 0) {
        // Everything before it decodes; the sequence starting there does not.
        expect(valid(bytes.subarray(0, at))).toBe(true);
        expect(valid(bytes.subarray(at, at + 4)) && valid(bytes.subarray(at))).toBe(false);
      }
    }), { numRuns: 2000 });
    expect(invalidUtf8At(Buffer.from([0x61, 0xed, 0xa0, 0x80]))).toBe(1); // an encoded surrogate (CESU-8)
    expect(invalidUtf8At(Buffer.from([0xc0, 0xaf]))).toBe(0); // overlong '/'
    expect(invalidUtf8At(Buffer.from([0xf4, 0x90, 0x80, 0x80]))).toBe(0); // past U+10FFFF
    expect(invalidUtf8At(enc('é😀'))).toBe(-1);
  });

  it(`parses JSON nested up to ${MAX_JSON_DEPTH} levels; deeper → an error naming the byte, never a walk of it`, () => {
    expect(parseJsonBody(enc(`{"a":${deep(MAX_JSON_DEPTH - 1)}}`))).toEqual({ a: expect.any(Array) });
    expect(why(enc(`{"a":${deep(MAX_JSON_DEPTH)}}`))).toBe(`nested deeper than ${MAX_JSON_DEPTH} arrays and objects (at byte ${4 + MAX_JSON_DEPTH})`);
    expect(why(enc(deep(100_000)))).toMatch(/^nested deeper than 64/);
    // Brackets inside strings do not count.
    expect(parseJsonBody(enc(JSON.stringify({ s: '[[[['.repeat(100) + '\\"[' })))).toEqual({ s: '[[[['.repeat(100) + '\\"[' });
  });

  it('an unpaired surrogate in a string or a key → an error quoting it escaped; pairs are text', () => {
    expect(parseJsonBody(enc('{"\\ud83d\\ude00":["\\ud83d\\ude00"]}'))).toEqual({ '😀': ['😀'] });
    expect(why(enc('{"a":[1,{"b":"x\\ud800"}]}'))).toBe('"x\\ud800" is not valid Unicode text (an unpaired surrogate)');
    expect(why(enc('{"\\udc00":1}'))).toBe('"\\udc00" is not valid Unicode text (an unpaired surrogate)');
    const message = why(enc(`["${'a'.repeat(500)}\\ud800"]`));
    expect(message).toBe(`"${'a'.repeat(100)}…" is not valid Unicode text (an unpaired surrogate)`);
  });

  it('malformed JSON and bytes that are not UTF-8 → errors saying so', () => {
    expect(why(enc('{"a":'))).toMatch(/JSON/);
    expect(why(Buffer.concat([enc('{"a":"'), Buffer.from([0xff]), enc('"}')]))).toBe('invalid UTF-8 at byte 6');
  });
});

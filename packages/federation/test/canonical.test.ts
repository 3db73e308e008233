/** Canonical JSON: the bytes every signature and AAD covers must not depend on key order. */
import fc from 'fast-check';
import { canonicalJson } from '@sml/federation';

/** The same object with its keys (at every level) in reverse insertion order. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reversed(v)]));
}

const json = fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown);

test('key order does not change the text, and the text parses back to the value', () => {
  fc.assert(fc.property(json, (value) => {
    expect(canonicalJson(reversed(value))).toBe(canonicalJson(value));
    expect(JSON.parse(canonicalJson(value))).toEqual(value);
  }));
});

test('sorted keys, no spaces', () => {
  expect(canonicalJson({ b: [1, { d: 'x', c: null }], a: true })).toBe('{"a":true,"b":[1,{"c":null,"d":"x"}]}');
});

test.each([[NaN], [Infinity], [undefined], [() => 1], [{ a: undefined }]])('%p is refused', (value) => {
  expect(() => canonicalJson(value)).toThrow(TypeError);
});

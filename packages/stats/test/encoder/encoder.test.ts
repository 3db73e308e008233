/**
 * The target encoder (API.md §3) against pandas groupby (fixtures/gen_encoder.py →
 * encoder.json): per (key, value) count, Σtarget, Σtarget²; per key the distinct values and
 * the mean and sample variance of their counts; encodings with minTrimSize. Then its laws:
 * merge / subtract / chunking / serialization, and the bounded state.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { CapacityError, Encoder, type EncoderFrame, FrameError, SummaryError } from '@sml/stats';

interface Expected {
  overallMean: number;
  keys: Record<string, {
    values: Record<string, { count: number; sum: number; sumSquares: number }>;
    stats: { count: number; mean: number; variance: number };
    encodings: Record<string, number>;
  }>;
}
const fixture = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'encoder.json'), 'utf8')) as EncoderFrame & { minTrimSize: number; B: Expected; C: Expected };
const TARGETS = { B: 'clicked', C: 'price' } as const;

const close = (actual: number, expected: number, rel = 1e-12) =>
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(rel * Math.max(1, Math.abs(expected)));

const encoderOf = (type: 'B' | 'C', minTrimSize = fixture.minTrimSize) => new Encoder({ target: TARGETS[type], targetType: type, minTrimSize });
const frameOf = (data: readonly (readonly unknown[])[]): EncoderFrame => ({ attributeNames: fixture.attributeNames, attributeTypes: fixture.attributeTypes, data });

describe.each(['B', 'C'] as const)('encoder with a %s target against pandas groupby', (type) => {
  const expected = fixture[type];
  const encoder = encoderOf(type);
  // Learned in uneven chunks: the result must not depend on the chunking.
  for (let start = 0, size = 1; start < fixture.data.length; start += size, size = size * 2 + 1) encoder.learn(frameOf(fixture.data.slice(start, start + size)));

  it('keeps count, sum and sum of squares per key value', () => {
    for (const [key, want] of Object.entries(expected.keys)) {
      const got = encoder.keyValues(key)!;
      expect(got.map((v) => v.value)).toEqual(Object.keys(want.values).sort());
      for (const v of got) {
        expect(v.count).toBe(want.values[v.value].count);
        close(v.sum, want.values[v.value].sum);
        close(v.sumSquares, want.values[v.value].sumSquares);
      }
    }
  });

  it('encodes a value to its mean target, or the overall mean below minTrimSize and when never seen', () => {
    close(encoder.overallMean, expected.overallMean);
    for (const [key, want] of Object.entries(expected.keys)) {
      for (const [value, encoding] of Object.entries(want.encodings)) close(encoder.encode(key, value), encoding);
    }
  });

  it('stats: distinct values per key and the mean and sample variance of their counts; other columns listed empty', () => {
    const stats = encoder.stats();
    expect(stats.map((s) => s.key)).toEqual(type === 'B' ? ['country', 'price', 'site', 'tags'] : ['clicked', 'country', 'site', 'tags']);
    for (const s of stats) {
      const want = expected.keys[s.key]?.stats ?? { count: 0, mean: 0, variance: 0 };
      expect(s.count).toBe(want.count);
      close(s.mean, want.mean);
      close(s.variance, want.variance);
      close(s.stddev, Math.sqrt(want.variance));
    }
  });

  it('serializes exactly', () => {
    const back = Encoder.deserialize(encoder.serialize());
    expect(back.serialize()).toEqual(encoder.serialize());
    expect(back.valueCount).toBe(encoder.valueCount);
  });
});

describe('encoder laws', () => {
  const row = fc.tuple(fc.constantFrom('a', 'b', 'c', ' d', ''), fc.constantFrom('x', 'y', 'x|y', 'y|z|x'), fc.double({ min: -1e6, max: 1e6, noNaN: true }).map(String));
  const rows = fc.array(row, { maxLength: 30 });
  const frame = (data: string[][]): EncoderFrame => ({ attributeNames: ['k', 'l', 't'], attributeTypes: ['S', 'L', 'C'], data });
  const learned = (data: string[][]) => {
    const e = new Encoder({ target: 't', targetType: 'C', minTrimSize: 1 });
    e.learn(frame(data));
    return e;
  };
  const same = (a: Encoder, b: Encoder) => {
    expect(a.rows).toBe(b.rows);
    expect(a.keyNames()).toEqual(b.keyNames());
    for (const key of a.keyNames()) {
      const va = a.keyValues(key)!.filter((v) => v.count > 0);
      const vb = b.keyValues(key)!.filter((v) => v.count > 0);
      expect(va.map((v) => [v.value, v.count])).toEqual(vb.map((v) => [v.value, v.count]));
      va.forEach((v, i) => {
        close(v.sum, vb[i].sum, 1e-9);
        close(v.sumSquares, vb[i].sumSquares, 1e-9);
      });
    }
  };

  it('learn(A ∪ B) = learn(A) merged with learn(B), and subtracting B gives learn(A) back', () => {
    fc.assert(fc.property(rows, rows, (a, b) => {
      const all = learned([...a, ...b]);
      const merged = learned(a).merge(learned(b));
      same(merged, all);
      same(all.merge(learned(b), -1), learned(a));
    }));
  });

  it('refuses to subtract what was never learned, and changes nothing', () => {
    const e = learned([['a', 'x', '1']]);
    const before = e.serialize();
    expect(() => e.merge(learned([['b', 'x', '1']]), -1)).toThrow(SummaryError);
    expect(e.serialize()).toEqual(before);
  });

  it('refuses a batch over the limit of distinct values whole', () => {
    const e = learned([['a', 'x', '1']]);
    const before = e.serialize();
    expect(() => e.learn(frame([['b', 'x', '1'], ['c', 'y', '2']]), 4)).toThrow(CapacityError);
    expect(e.serialize()).toEqual(before);
    e.learn(frame([['b', 'x', '1']]), 3);
    expect(e.valueCount).toBe(3);
  });

  it('needs the target column and valid target cells; a missing target skips the row', () => {
    const b = new Encoder({ target: 'clicked', targetType: 'B', minTrimSize: 1 });
    expect(() => b.learn({ attributeNames: ['site'], attributeTypes: ['S'], data: [['a']] })).toThrow(/no target column \[clicked\]/);
    expect(() => b.learn({ attributeNames: ['site', 'clicked'], attributeTypes: ['S', 'B'], data: [['a', '2']] })).toThrow(FrameError);
    expect(b.learn({ attributeNames: ['site', 'clicked'], attributeTypes: ['S', 'B'], data: [['a', 'NA'], ['a', '1']] })).toBe(1);
    expect(b.encode('site', 'a')).toBe(1);
  });

  it('subset keeps the listed values and the overall counts: it encodes them as the whole encoder does', () => {
    fc.assert(fc.property(rows, (data) => {
      const e = learned(data);
      const part = e.subset(new Map([['k', ['a', ' d', 'never']], ['l', ['y']], ['nokey', ['a']]]));
      expect(part.rows).toBe(e.rows);
      for (const [key, value] of [['k', 'a'], ['k', ' d'], ['k', 'never'], ['l', 'y']]) expect(part.encode(key, value)).toBe(e.encode(key, value));
      // Not listed: unseen by the subset, so the overall mean.
      expect(part.encode('l', 'x')).toBe(e.overallMean);
      const held = (key: string, value: string) => (e.keyValues(key)?.some((v) => v.value === value) ? 1 : 0);
      expect(part.valueCount).toBe(held('k', 'a') + held('k', ' d') + held('l', 'y'));
    }));
  });

  it('reads the format of before packed values (format 1: one length-prefixed string per value)', () => {
    const e = learned([['a', 'x|é', '1.5'], ['b', 'x', '-2']]);
    // Format 1, written by hand: u32 format, strings (u32 byte length + UTF-8), f64, f64 arrays (u32 n, zero padding to 8, doubles).
    const parts: number[] = [];
    const u32 = (v: number) => parts.push(v & 255, (v >>> 8) & 255, (v >>> 16) & 255, v >>> 24);
    const str = (t: string) => { const b = Buffer.from(t, 'utf8'); u32(b.length); parts.push(...b); };
    const f64 = (v: number) => parts.push(...new Uint8Array(new Float64Array([v]).buffer));
    const f64s = (vs: number[]) => { u32(vs.length); while (parts.length % 8 !== 0) parts.push(0); vs.forEach(f64); };
    u32(1); str('t'); str('C'); f64(1);
    f64s([2, -0.5, 0, 6.25, 0]);
    u32(2);
    const slot = (n: number, s1: number) => [n, s1, 0, s1 * s1, 0];
    str('k'); str('S'); u32(2); str('a'); str('b'); f64s([...slot(1, 1.5), ...slot(1, -2)]);
    str('l'); str('L'); u32(2); str('x'); str('é'); f64s([...slot(2, -0.5).map((v, i) => (i === 3 ? 6.25 : v)), ...slot(1, 1.5)]);
    const old = Encoder.deserialize(new Uint8Array(parts));
    expect(old.serialize()).toEqual(e.serialize());
  });

  it('setValues replaces count and sum; adding creates values and keys', () => {
    const b = new Encoder({ target: 'clicked', targetType: 'B', minTrimSize: 1 });
    b.learn({ attributeNames: ['site', 'clicked'], attributeTypes: ['S', 'B'], data: [['a', '1'], ['a', '0'], ['b', '0']] });
    b.setValues([{ key: 'site', value: 'a', count: 4, sum: 3 }], false);
    expect(b.encode('site', 'a')).toBe(0.75);
    b.setValues([{ key: 'site', value: 'a', count: 4, sum: 1 }, { key: 'dev', value: 'ios', count: 2, sum: 2 }], true);
    expect(b.encode('site', 'a')).toBe(0.5);
    expect(b.keyValues('dev')).toEqual([{ value: 'ios', count: 2, sum: 2, sumSquares: 2 }]);
  });
});

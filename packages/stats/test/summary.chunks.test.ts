/**
 * Chunked serialization (snapshots of large summaries are streamed, never one buffer):
 * serializeChunks gives serialize()'s bytes split in chunks, and deserialize reads chunks of
 * any sizes, values spanning chunk boundaries included. Reference: serialize() itself.
 */
import fc from 'fast-check';
import { SERIALIZATION_CHUNK_BYTES, Summary } from '@sml/stats';
import { random } from './helpers';

/** A summary of `p` C attributes plus a categorical column, with streaming histograms. */
function wide(p: number, rows: number): Summary {
  const next = random(p);
  const names = [...Array.from({ length: p }, (_, j) => `x${j}`), 'color'];
  const s = new Summary({ histogram: 'streaming', histogramBins: 16 });
  const data = Array.from({ length: rows }, () => [...Array.from({ length: p }, () => (next() < 0.05 ? '' : String(next() * 100 - 50))), ['red', 'blue', 'green'][Math.floor(next() * 3)]]);
  s.learn({ attributeNames: names, attributeTypes: [...names.slice(0, p).map(() => 'C'), 'T'], data });
  return s;
}

/** Byte equality without jest's element-by-element diff (megabytes here). */
function expectSameBytes(actual: Uint8Array, expected: Uint8Array): void {
  expect(Buffer.from(actual.buffer, actual.byteOffset, actual.byteLength).equals(Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength))).toBe(true);
}

function concat(chunks: readonly Uint8Array[]): Buffer {
  return Buffer.concat(chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength)));
}

test('a summary spanning several default chunks serializes in chunks and reads back from them exactly', () => {
  const s = wide(300, 40);
  const whole = s.serialize();
  const chunks = [...s.serializeChunks()];
  expect(chunks.length).toBeGreaterThanOrEqual(4);
  expect(whole.length).toBeGreaterThan(3 * SERIALIZATION_CHUNK_BYTES);
  for (const c of chunks) expect(c.length).toBeLessThanOrEqual(SERIALIZATION_CHUNK_BYTES);
  expectSameBytes(concat(chunks), whole);
  const back = Summary.deserialize(chunks);
  expectSameBytes(Buffer.from(back.serialize()), whole);
  expect(back.comoments('x3', 'x299')).toEqual(s.comoments('x3', 'x299'));
});

test('deserialize reads the bytes split anywhere, values spanning chunk boundaries included', () => {
  const s = wide(12, 30);
  const whole = s.serialize();
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 700 }), { minLength: 1, maxLength: 40 }), (sizes) => {
      const chunks: Uint8Array[] = [];
      for (let at = 0, k = 0; at < whole.length; k++) {
        // Empty chunks too: a stream may deliver them.
        const n = sizes[k % sizes.length];
        chunks.push(whole.subarray(at, at + n));
        at += n;
        if (sizes.every((z) => z === 0)) break;
      }
      if (concat(chunks).length !== whole.length) return;
      expectSameBytes(Buffer.from(Summary.deserialize(chunks).serialize()), whole);
    }),
  );
});

test('small chunk sizes give the same bytes as serialize()', () => {
  const s = wide(20, 25);
  for (const size of [1, 7, 64, 4096]) expectSameBytes(concat([...s.serializeChunks(size)]), s.serialize());
});

test('deserialize takes chunks one at a time from an iterator, reading each only when it gets to it', () => {
  const s = wide(40, 20);
  const chunks = [...s.serializeChunks(1000)];
  const total = chunks.reduce((n, c) => n + c.length, 0);
  let taken = 0;
  const iterator = chunks[Symbol.iterator]();
  const back = Summary.deserialize({ total, chunks: { next: () => { taken++; return iterator.next(); } } });
  expectSameBytes(back.serialize(), s.serialize());
  expect(taken).toBe(chunks.length);
  // A total that is not what the chunks hold is damage too.
  expect(() => Summary.deserialize({ total: total + 8, chunks: chunks[Symbol.iterator]() })).toThrow('damaged summary serialization');
});

test('chunks cut short are a damaged serialization', () => {
  const chunks = [...wide(12, 10).serializeChunks(256)];
  expect(() => Summary.deserialize(chunks.slice(0, -1))).toThrow('damaged summary serialization');
});

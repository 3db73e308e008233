/**
 * The native kernels (native/kernels.c) other than the cross products compute what the
 * JavaScript computes, bit for bit: a summary learned with them serializes to the same bytes
 * as one learned without them. The cross-product kernel is held to WebAssembly in both, since
 * FMA rounds its sums differently (kernels.test.ts holds each kernel to exact sums instead).
 */
import fc from 'fast-check';
import { Summary, frameFromColumns, readFrameColumns, type DataFrame } from '@sml/stats';
import { nativeAddon } from '../src/kernels/native';
import { selectKernels } from '../src/kernels/select';

afterEach(() => selectKernels());

const cell = fc.oneof(
  { weight: 8, arbitrary: fc.double({ min: -1e6, max: 1e6, noNaN: true }).map(String) },
  { weight: 4, arbitrary: fc.integer({ min: -999999, max: 999999 }).map((m) => (m / 1000).toFixed(3)) },
  { weight: 1, arbitrary: fc.constantFrom('NA', '', '0', '-0', '1e60', '-1e-300', '5e-324', '1e64', '-1e64') },
);

/** A present value: complete columns take the cross-product path (shifted values, blocks of up to 1024 rows). */
const present = fc.oneof(
  fc.double({ min: -1e6, max: 1e6, noNaN: true }).map(String),
  fc.integer({ min: -999999, max: 999999 }).map((m) => (m / 1000).toFixed(3)),
  fc.constantFrom('0', '-0', '1e60', '-1e-300', '5e-324', '1e4', '10000.5'),
);

/** Frames of 1–9 numeric columns (all four lanes and every remainder) over 1–maxRows rows (several 256-row blocks). */
const framesOf = (cells: fc.Arbitrary<string>, maxRows: number) => fc.tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: maxRows })).chain(([width, rows]) =>
  // The row count drawn uniformly (fast-check's default sizes keep arrays short: no second block).
  fc.array(fc.array(cells, { minLength: width, maxLength: width }), { minLength: rows, maxLength: rows }).map((data): DataFrame => ({
    attributeNames: Array.from({ length: width }, (_, c) => `x${c}`),
    attributeTypes: Array.from({ length: width }, () => 'C'),
    data,
  })),
);

function learned(batches: DataFrame[], native: boolean, forgetLast: boolean): Buffer {
  selectKernels({ kernel: 'wasm', native });
  const s = new Summary({ histogram: 'streaming' });
  for (const f of batches) s.learn(f);
  // The gateway's way too: decimal columns read into mantissas, then back to doubles.
  const columns = readFrameColumns(Buffer.from(JSON.stringify(batches[0])));
  if (columns !== null) s.prepare('learn', { columns: frameFromColumns(columns) }).commit();
  if (forgetLast) s.forget(batches[batches.length - 1]);
  return Buffer.from(s.serialize());
}

test.each([
  ['with missing cells', framesOf(cell, 700), 60],
  ['of complete columns (several cross-product blocks)', framesOf(present, 2100), 40],
])('a summary learned with the native kernels is the same, byte for byte, as one learned without them: frames %s', (_what, frames, numRuns) => {
  if (nativeAddon() === null) return; // kernels.int.test.ts says whether this machine should have them
  fc.assert(
    fc.property(fc.array(frames, { minLength: 1, maxLength: 3 }).filter((fs) => fs.every((f) => f.attributeNames.length === fs[0].attributeNames.length)), fc.boolean(), (batches, forgetLast) => {
      expect(learned(batches, true, forgetLast).equals(learned(batches, false, forgetLast))).toBe(true);
    }),
    { numRuns },
  );
});

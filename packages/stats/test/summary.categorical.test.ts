/**
 * Categorical columns are learned sparsely (moments.ts: codes counted, numeric values summed
 * per code, code pairs counted), never expanded into one column per level. Their statistics
 * must equal those of the same rows with every level written out as a binary column (1 in
 * the row's level, 0 in the others, missing when the categorical cell is missing), learned
 * by the dense path.
 */
import fc from 'fast-check';
import { type DataFrame, Summary } from '@sml/stats';
import { expectSameStatistics } from './helpers';

const COLORS = ['red', 'blue', 'green'];
const SHAPES = ['round', 'square'];
const cell = <T extends string>(values: readonly T[]) => fc.oneof({ arbitrary: fc.constantFrom(...values), weight: 5 }, { arbitrary: fc.constant(''), weight: 1 });
const row = fc.tuple(
  cell(COLORS),
  cell(SHAPES),
  fc.oneof({ arbitrary: fc.double({ min: -1e3, max: 1e3, noNaN: true }).map((v) => String(Math.abs(v) < 1e-100 ? 0 : v)), weight: 5 }, { arbitrary: fc.constant('NA'), weight: 1 }),
  fc.oneof(fc.constantFrom('0', '1'), fc.constant('')),
);
const batches = fc.array(fc.array(row, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 4 });

const categorical = (rows: string[][]): DataFrame => ({ attributeNames: ['color', 'x', 'shape', 'flag'], attributeTypes: ['T', 'C', 'T', 'B'], data: rows.map(([c, s, x, f]) => [c, x, s, f]) });

/** The same rows with one binary column per level that occurs anywhere in `all`. */
function expanded(rows: string[][], all: string[][]): DataFrame {
  const levels = (k: number) => [...new Set(all.map((r) => r[k]).filter((v) => v !== ''))].sort();
  const [colors, shapes] = [levels(0), levels(1)];
  const oneHot = (value: string, of: string[]) => of.map((level) => (value === '' ? '' : value === level ? '1' : '0'));
  return {
    attributeNames: [...colors.map((c) => `color$${c}`), 'x', ...shapes.map((s) => `shape$${s}`), 'flag'],
    attributeTypes: [...colors.map(() => 'B'), 'C', ...shapes.map(() => 'B'), 'B'],
    data: rows.map(([c, s, x, f]) => [...oneHot(c, colors), x, ...oneHot(s, shapes), f]),
  };
}

test('categorical levels learned sparsely equal their one-hot columns learned densely, batch by batch', () => {
  fc.assert(
    fc.property(batches, (bs) => {
      const all = bs.flat();
      const sparse = new Summary({ histogram: 'streaming' });
      const dense = new Summary({ histogram: 'streaming' });
      for (const b of bs) {
        sparse.learn(categorical(b));
        dense.learn(expanded(b, all));
      }
      // Levels first seen in a later batch are 0 in every earlier row where their column was
      // present (fillLevelFromSibling), as the expanded columns written from the start are.
      expectSameStatistics(sparse, dense, { tolerance: 1e-12, extremes: true });
      sparse.forget(categorical(bs[0]));
      dense.forget(expanded(bs[0], all));
      expectSameStatistics(sparse, dense, { tolerance: 1e-12, scaleFrom: dense });
    }),
    { numRuns: 300 },
  );
});

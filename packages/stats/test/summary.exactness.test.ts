/**
 * STATS.md §1: learning 10⁶ rows and then forgetting them (in other chunks, in another
 * order) returns every count to exactly 0 and every moment to ≤ 1e-9 of its scale (the
 * sum of |x|^k over the rows learned). Values have a large mean relative to their spread
 * and mixed magnitudes, where uncompensated sums drift.
 */
import { Summary } from '@sml/stats';
import { random } from './helpers';

const ROWS = 1_000_000;
const NAMES = ['a', 'b', 'c'];

test('learn 10⁶ rows then forget them returns counts to 0 and moments to ≤ 1e-9 of scale', () => {
  const next = random(7);
  // Six decimals keep the cells short; the values are still not exact in binary.
  const decimals = (v: number) => Math.round(v * 1e6) / 1e6;
  const columns: (() => number)[] = [() => decimals(1e4 + next()), () => decimals((next() - 0.5) * 1e6), () => (next() < 0.1 ? NaN : decimals(next() * 3 - 1))];
  const values = columns.map((draw) => Float64Array.from({ length: ROWS }, draw));
  // Each row's cells are built once and shared by the learn and forget frames.
  const rows = Array.from({ length: ROWS }, (_, r) => values.map((column) => (Number.isNaN(column[r]) ? 'NA' : String(column[r]))));
  const frame = (from: number, to: number) => ({ attributeNames: NAMES, attributeTypes: ['C', 'C', 'C'], data: rows.slice(from, to) });

  const summary = new Summary();
  for (let from = 0; from < ROWS; from += 100_000) summary.learn(frame(from, from + 100_000));
  expect(summary.rowCount).toBe(ROWS);
  for (let to = ROWS; to > 0; to -= 250_000) summary.forget(frame(to - 250_000, to));

  expect(summary.rowCount).toBe(0);
  // scales[i][k] = Σ|x_i|^k over the rows learned.
  const scales = values.map((column) => {
    const sums = [0, 0, 0, 0, 0];
    for (const v of column) {
      if (v !== v) continue;
      const a = v < 0 ? -v : v;
      for (let k = 1, p = a; k <= 4; k++, p *= a) sums[k] += p;
    }
    return sums;
  });
  const scale = (i: number, power: number) => scales[i][power];
  NAMES.forEach((x, i) => {
    const m = summary.moments(x);
    expect(m.count).toBe(0);
    expect(Math.abs(m.sum)).toBeLessThanOrEqual(1e-9 * scale(i, 1));
    expect(Math.abs(m.sumSquares)).toBeLessThanOrEqual(1e-9 * scale(i, 2));
    expect(Math.abs(m.sumCubes)).toBeLessThanOrEqual(1e-9 * scale(i, 3));
    expect(Math.abs(m.sumFourths)).toBeLessThanOrEqual(1e-9 * scale(i, 4));
    NAMES.forEach((y, j) => {
      const p = summary.comoments(x, y);
      expect(p.count).toBe(0);
      expect(Math.abs(p.sumXY)).toBeLessThanOrEqual(1e-9 * Math.sqrt(scale(i, 2) * scale(j, 2)));
      expect(Math.abs(p.sumXXYY)).toBeLessThanOrEqual(1e-9 * Math.sqrt(scale(i, 4) * scale(j, 4)));
    });
  });
});

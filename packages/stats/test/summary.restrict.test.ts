/**
 * Summary.restrict (sub-summaries for explore and model builds): every statistic of the kept
 * attributes is bit-identical to the full summary's (Object.is on every number, so a sum or a
 * compensation term that differs in its last bit fails), for moments, co-moments in both
 * argument orders, extremes, histograms, conditional histograms (stored and derived) and
 * categorical levels. Reference: the full summary itself.
 */
import fc from 'fast-check';
import { type DataFrame, type Histogram, Summary, type SummaryOptions, resolveAttributes } from '@sml/stats';

const NAMES = ['x', 'y', 'flag', 'color', 'size', 'group', 'time'];
const TYPES = ['C', 'C', 'B', 'T', 'T', 'T', 'C'];
const missing = fc.constantFrom('', 'NA');
const withMissing = (cell: fc.Arbitrary<string>) => fc.oneof({ arbitrary: cell, weight: 4 }, { arbitrary: missing, weight: 1 });
const row = fc.tuple(
  withMissing(fc.double({ min: -1e4, max: 1e4, noNaN: true }).map((v) => String(Math.abs(v) < 1e-100 ? 0 : v))),
  withMissing(fc.integer({ min: -50000, max: 50000 }).map((v) => String(v / 100))),
  withMissing(fc.constantFrom('0', '1')),
  withMissing(fc.constantFrom('red', 'blue', 'green', 'yellow')),
  withMissing(fc.constantFrom('s', 'm', 'l')),
  withMissing(fc.constantFrom('a', 'b')),
  fc.integer({ min: 0, max: 5 }).map(String),
);
/** Several frames, so categorical levels appear after their siblings (levels filled from a sibling). */
const frames = fc.array(fc.array(row, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 4 });
const toFrame = (data: string[][]): DataFrame => ({ attributeNames: NAMES, attributeTypes: TYPES, data });

const CONFIGS: [string, SummaryOptions][] = [
  ['streaming histograms and partitions', { histogram: 'streaming', histogramBins: 8, partitionSplit: 'group' }],
  ['exact histograms degrading at 5 values, survival counts', { histogram: 'exact', exactHistogramCap: 5, km_time_column: 'time', km_event_column: 'flag' }],
  ['no histograms', {}],
];

/** Every number of a histogram, by bin. */
function bins(h: Histogram | undefined): unknown {
  return h === undefined ? undefined : { mode: h.mode, count: h.count, bins: h.toBins().map((b) => [b.lower, b.upper, b.count]) };
}

/** Deep equality where numbers compare with Object.is (bit-identical, NaN equal to NaN). */
function expectIdentical(actual: unknown, expected: unknown, what: string): void {
  const same = (a: unknown, b: unknown): boolean => {
    if (typeof a === 'number' && typeof b === 'number') return Object.is(a, b);
    if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, k) => same(v, b[k]));
    if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
      const keys = Object.keys(a);
      return keys.length === Object.keys(b).length && keys.every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
    }
    return a === b;
  };
  if (!same(actual, expected)) throw new Error(`${what}: ${JSON.stringify(actual)} is not bit-identical to ${JSON.stringify(expected)}`);
}

function expectRestriction(full: Summary, kept: readonly number[], restricted: Summary): void {
  const order = [...new Set(kept)].sort((a, b) => a - b);
  expectIdentical(restricted.attributeNames, order.map((i) => full.attributeNames[i]), 'attribute names');
  expectIdentical(restricted.attributeTypes, order.map((i) => full.attributeTypes[i]), 'attribute types');
  expectIdentical(restricted.rowCount, full.rowCount, 'rows');
  order.forEach((i, a) => {
    const name = full.attributeNames[i];
    expectIdentical(restricted.moments(a), full.moments(i), `moments of ${name}`);
    expectIdentical([restricted.min(a), restricted.max(a), restricted.median(a), restricted.missing(a)], [full.min(i), full.max(i), full.median(i), full.missing(i)], `extremes of ${name}`);
    expectIdentical(bins(restricted.histogram(a)), bins(full.histogram(i)), `histogram of ${name}`);
    order.forEach((j, b) => {
      const pair = `${name}, ${full.attributeNames[j]}`;
      expectIdentical(restricted.comoments(a, b), full.comoments(i, j), `co-moments of ${pair}`);
      expectIdentical(bins(restricted.conditionalHistogram(a, b)), bins(full.conditionalHistogram(i, j)), `conditional histogram of ${pair}`);
    });
  });
  // Categorical levels: a base name resolves to the kept levels of its column.
  for (const base of ['color', 'size']) {
    const levels = order.filter((i) => full.attributeNames[i].startsWith(`${base}$`)).map((i) => full.attributeNames[i]);
    if (levels.length > 0) expect(resolveAttributes(restricted, [base]).map((a) => restricted.attributeNames[a])).toEqual(levels);
  }
  for (const value of full.partitionValues()) {
    const sub = full.partition(value)!;
    // A sub-summary numbers its attributes in its own order of appearance.
    const keptNames = new Set(order.map((i) => full.attributeNames[i]));
    const names = sub.attributeNames.filter((n) => keptNames.has(n));
    const restrictedSub = restricted.partition(value)!;
    expect(restrictedSub.attributeNames).toEqual(names);
    for (const n of names) {
      expectIdentical(restrictedSub.moments(n), sub.moments(n), `partition ${value}: moments of ${n}`);
      for (const m of names) expectIdentical(restrictedSub.comoments(n, m), sub.comoments(n, m), `partition ${value}: co-moments of ${n}, ${m}`);
    }
  }
  if (full.survival) expect(restricted.survival!.groups()).toEqual(full.survival.groups());
}

describe.each(CONFIGS)('Summary.restrict with %s', (_, options) => {
  test('every statistic of the kept attributes is bit-identical to the full summary, also after serialization', () => {
    fc.assert(
      fc.property(frames, fc.array(fc.nat(), { maxLength: 12 }), (data, picks) => {
        const full = new Summary(options);
        for (const f of data) full.learn(toFrame(f));
        const p = full.attributeNames.length;
        // Any order, with duplicates: restrict sorts and keeps each once.
        const kept = picks.map((k) => k % p);
        const restricted = full.restrict(kept);
        expectRestriction(full, kept, restricted);
        expectRestriction(full, kept, Summary.deserialize(restricted.serialize()));
      }),
    );
  });
});

test('restricting to every attribute gives the same serialization', () => {
  const s = new Summary({ histogram: 'streaming' });
  s.learn(toFrame([['1', '2', '1', 'red', 's', 'a', '1'], ['3', '', '0', 'blue', 'l', 'b', '2']]));
  s.learn(toFrame([['5', '7', '', 'green', 'm', 'a', '3']]));
  expect(Buffer.from(s.restrict(s.attributeNames.map((_, i) => i)).serialize())).toEqual(Buffer.from(s.serialize()));
});

test('withSiblingLevels adds every level of the categorical columns named', () => {
  const s = new Summary();
  s.learn(toFrame([['1', '2', '1', 'red', 's', 'a', '1'], ['3', '4', '0', 'blue', 'l', 'b', '0']]));
  const red = s.indexOf('color$red');
  expect(s.withSiblingLevels([s.indexOf('y'), red]).map((i) => s.attributeNames[i])).toEqual(['y', 'color$blue', 'color$red']);
});

test('restricting to an unknown index throws', () => {
  const s = new Summary();
  s.learn(toFrame([['1', '2', '1', 'red', 's', 'a', '1']]));
  expect(() => s.restrict([0, 99])).toThrow('unknown attribute');
});

import { type DataFrame, Histogram, type PairMoments, Summary } from '@sml/stats';

/** Deterministic PRNG (mulberry32) so large generated data sets are reproducible. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function frame(attributeNames: string[], attributeTypes: string[], data: string[][], errorHandling = 0): DataFrame {
  return { attributeNames, attributeTypes, data, errorHandling };
}

/**
 * |actual − expected| ≤ tolerance · max(|expected|, scale) + 1e-300: relative, with a scale
 * for values near 0 and an absolute floor for sums that underflow (denormal inputs).
 */
export function expectClose(actual: number, expected: number, tolerance: number, scale = 0, what = ''): void {
  if (Number.isNaN(expected)) {
    expect({ what, actual }).toEqual({ what, actual: NaN });
    return;
  }
  const bound = tolerance * Math.max(Math.abs(expected), scale) + 1e-300;
  if (!(Math.abs(actual - expected) <= bound)) {
    throw new Error(`${what}: ${actual} differs from ${expected} by ${Math.abs(actual - expected)} > ${bound}`);
  }
}

/**
 * A summary's statistics for an attribute name, also for a categorical level the summary
 * never saw (written independently of the library's alignment code): such a level is 0
 * wherever a sibling level (same text before `$`) is present, missing elsewhere.
 */
function resolveName(s: Summary, name: string): { name: string; zero: boolean } | null {
  if (s.indexOf(name) >= 0) return { name, zero: false };
  const base = name.includes('$') ? name.slice(0, name.indexOf('$') + 1) : null;
  const sibling = base === null ? undefined : s.attributeNames.find((n) => n.startsWith(base));
  return sibling === undefined ? null : { name: sibling, zero: true };
}

function pairView(s: Summary, x: string, y: string): PairMoments {
  const a = resolveName(s, x);
  const b = resolveName(s, y);
  if (a === null || b === null) return { count: 0, sumX: 0, sumY: 0, sumXX: 0, sumYY: 0, sumXY: 0, sumXXYY: 0 };
  const m = s.comoments(a.name, b.name);
  return {
    count: m.count,
    sumX: a.zero ? 0 : m.sumX,
    sumY: b.zero ? 0 : m.sumY,
    sumXX: a.zero ? 0 : m.sumXX,
    sumYY: b.zero ? 0 : m.sumYY,
    sumXY: a.zero || b.zero ? 0 : m.sumXY,
    sumXXYY: a.zero || b.zero ? 0 : m.sumXXYY,
  };
}

function histogramView(s: Summary, name: string): Histogram | null {
  const r = resolveName(s, name);
  if (r === null || s.options.histogram === undefined) return null;
  if (!r.zero) return s.histogram(r.name)!;
  const h = new Histogram(s.options.histogram, s.options.histogramBins, s.options.exactHistogramCap);
  h.add(0, s.count(r.name));
  return h;
}

export interface CompareOptions {
  /** Relative tolerance of sums (scaled by Cauchy-Schwarz bounds of the sums of |x|^k). */
  tolerance: number;
  /** Also compare the extremes ever learned (not subtractable, so not after a forget). */
  extremes?: boolean;
}

/** Expects two summaries to hold the same statistics, attribute order aside. */
export function expectSameStatistics(actual: Summary, expected: Summary, options: CompareOptions, where = 'summary'): void {
  const { tolerance } = options;
  expect(actual.rowCount).toBe(expected.rowCount);
  const names = [...new Set([...actual.attributeNames, ...expected.attributeNames])];
  for (const x of names) {
    for (const y of names) {
      const a = pairView(actual, x, y);
      const e = pairView(expected, x, y);
      const what = `${where} (${x}, ${y})`;
      expect({ what, count: a.count }).toEqual({ what, count: e.count });
      const sx = Math.sqrt(e.count * e.sumXX);
      const sy = Math.sqrt(e.count * e.sumYY);
      expectClose(a.sumX, e.sumX, tolerance, sx, `${what} Σx`);
      expectClose(a.sumY, e.sumY, tolerance, sy, `${what} Σy`);
      expectClose(a.sumXX, e.sumXX, tolerance, 0, `${what} Σx²`);
      expectClose(a.sumYY, e.sumYY, tolerance, 0, `${what} Σy²`);
      expectClose(a.sumXY, e.sumXY, tolerance, Math.sqrt(e.sumXX * e.sumYY), `${what} Σxy`);
      expectClose(a.sumXXYY, e.sumXXYY, tolerance, 0, `${what} Σx²y²`);
    }
    if (actual.indexOf(x) >= 0 && expected.indexOf(x) >= 0) {
      const a = actual.moments(x);
      const e = expected.moments(x);
      expectClose(a.sumCubes, e.sumCubes, tolerance, Math.sqrt(e.sumSquares * e.sumFourths), `${where} ${x} Σx³`);
      expectClose(a.sumFourths, e.sumFourths, tolerance, 0, `${where} ${x} Σx⁴`);
      if (options.extremes) expect([x, a.min, a.max]).toEqual([x, e.min, e.max]);
    }
    const ha = histogramView(actual, x);
    const he = histogramView(expected, x);
    if (ha !== null && he !== null) expect([`${where} histogram ${x}`, ha.equals(he)]).toEqual([`${where} histogram ${x}`, true]);
  }
  for (const value of new Set([...actual.partitionValues(), ...expected.partitionValues()])) {
    const empty = new Summary(actual.partition(value)?.options ?? expected.partition(value)!.options);
    expectSameStatistics(actual.partition(value) ?? empty, expected.partition(value) ?? empty, options, `${where} partition ${value}`);
  }
  if (actual.survival && expected.survival) {
    for (const group of new Set([...actual.survival.groups(), ...expected.survival.groups()])) {
      expect([group, actual.survival.table(group)]).toEqual([group, expected.survival.table(group)]);
    }
  }
  if (actual.sequences && expected.sequences) expect(sequenceCounts(actual)).toEqual(sequenceCounts(expected));
}

/** Every sequence count as plain data, for deep equality. */
export function sequenceCounts(s: Summary): Record<string, unknown> {
  const seq = s.sequences!;
  const out: Record<string, unknown> = {};
  for (const v of seq.variableNames()) {
    const nonEmpty = [...seq.unigrams(v).values()].some((c) => c !== 0) || seq.starts(v).size > 0;
    if (!nonEmpty) continue;
    out[v] = {
      unigrams: Object.fromEntries(seq.unigrams(v)),
      starts: Object.fromEntries(seq.starts(v)),
      lagPairs: Array.from({ length: seq.order }, (_, k) => [...seq.lagPairs(v, k + 1)].map(([from, row]) => [from, Object.fromEntries(row)])),
      ngrams: Array.from({ length: seq.order }, (_, k) => seq.ngrams(v, k + 2)),
    };
    for (const w of seq.variableNames()) {
      if (v < w) out[`${v}|${w}`] = [...seq.cooccurrences(v, w)].map(([from, row]) => [from, Object.fromEntries(row)]);
    }
  }
  return out;
}

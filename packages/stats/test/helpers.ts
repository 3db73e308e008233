import { type DataFrame, Histogram, type PairMoments, Summary } from '@sml/stats';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** A public sample data set committed under the repository's data/ (provenance in data/README.md); missing is an error. */
export function dataFile(name: string): string {
  const path = join(__dirname, '..', '..', '..', 'data', name);
  if (!existsSync(path)) throw new Error(`data file ${name} is missing: ${path} (see data/README.md)`);
  return path;
}

/**
 * Deterministic PRNG (Park-Miller minimal standard), so generated data sets are
 * reproducible. Plain double arithmetic (exact: 48271 · 2³¹ < 2⁵³), no Math calls, which
 * are slow inside jest's vm contexts.
 */
export function random(seed: number): () => number {
  let x = (Math.floor(seed) % 2147483646) + 1;
  return () => {
    x = (x * 48271) % 2147483647;
    return (x - 1) / 2147483646;
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
  /**
   * The summary the statistics were computed from by subtraction: rounding is relative to
   * the magnitudes it held, not to what is left.
   */
  scaleFrom?: Summary;
}

function fail(what: string, actual: unknown, expected: unknown): never {
  throw new Error(`${what}: ${JSON.stringify(actual)} but expected ${JSON.stringify(expected)}`);
}

/** Expects two summaries to hold the same statistics, attribute order aside. Plain checks: this runs in property loops. */
export function expectSameStatistics(actual: Summary, expected: Summary, options: CompareOptions, where = 'summary'): void {
  const { tolerance } = options;
  if (actual.rowCount !== expected.rowCount) fail(`${where} rowCount`, actual.rowCount, expected.rowCount);
  const names = [...new Set([...actual.attributeNames, ...expected.attributeNames])];
  const scaleSources = options.scaleFrom ? [expected, options.scaleFrom] : [expected];
  for (const x of names) {
    for (const y of names) {
      const a = pairView(actual, x, y);
      const e = pairView(expected, x, y);
      const what = `${where} (${x}, ${y})`;
      if (a.count !== e.count) fail(`${what} count`, a.count, e.count);
      const scales = scaleSources.map((s) => pairView(s, x, y));
      const scale = (f: (m: PairMoments) => number) => Math.max(...scales.map(f));
      expectClose(a.sumX, e.sumX, tolerance, scale((m) => Math.sqrt(m.count * m.sumXX)), `${what} Σx`);
      expectClose(a.sumY, e.sumY, tolerance, scale((m) => Math.sqrt(m.count * m.sumYY)), `${what} Σy`);
      expectClose(a.sumXX, e.sumXX, tolerance, scale((m) => m.sumXX), `${what} Σx²`);
      expectClose(a.sumYY, e.sumYY, tolerance, scale((m) => m.sumYY), `${what} Σy²`);
      expectClose(a.sumXY, e.sumXY, tolerance, scale((m) => Math.sqrt(m.sumXX * m.sumYY)), `${what} Σxy`);
      expectClose(a.sumXXYY, e.sumXXYY, tolerance, scale((m) => m.sumXXYY), `${what} Σx²y²`);
    }
    if (actual.indexOf(x) >= 0 && expected.indexOf(x) >= 0) {
      const a = actual.moments(x);
      const e = expected.moments(x);
      const scales = scaleSources.filter((s) => s.indexOf(x) >= 0).map((s) => s.moments(x));
      expectClose(a.sumCubes, e.sumCubes, tolerance, Math.max(...scales.map((m) => Math.sqrt(m.sumSquares * m.sumFourths))), `${where} ${x} Σx³`);
      expectClose(a.sumFourths, e.sumFourths, tolerance, Math.max(...scales.map((m) => m.sumFourths)), `${where} ${x} Σx⁴`);
      if (options.extremes && !(Object.is(a.min, e.min) && Object.is(a.max, e.max))) fail(`${where} ${x} extremes`, [a.min, a.max], [e.min, e.max]);
    }
    const ha = histogramView(actual, x);
    const he = histogramView(expected, x);
    if (ha !== null && he !== null && !ha.equals(he)) fail(`${where} histogram ${x}`, ha.toBins(), he.toBins());
  }
  for (const value of new Set([...actual.partitionValues(), ...expected.partitionValues()])) {
    const empty = new Summary(actual.partition(value)?.options ?? expected.partition(value)!.options);
    const sub = options.scaleFrom?.partition(value);
    expectSameStatistics(actual.partition(value) ?? empty, expected.partition(value) ?? empty, { ...options, ...(sub ? { scaleFrom: sub } : {}) }, `${where} partition ${value}`);
  }
  if (actual.survival && expected.survival) {
    for (const group of new Set([...actual.survival.groups(), ...expected.survival.groups()])) {
      const [a, e] = [actual.survival.table(group), expected.survival.table(group)];
      if (JSON.stringify(a) !== JSON.stringify(e)) fail(`${where} survival ${group}`, a, e);
    }
  }
  if (actual.sequences && expected.sequences) {
    const [a, e] = [sequenceCounts(actual), sequenceCounts(expected)];
    if (JSON.stringify(a) !== JSON.stringify(e)) fail(`${where} sequences`, a, e);
  }
}

/** Every sequence count as plain data with sorted keys, for deep equality. */
export function sequenceCounts(s: Summary): Record<string, unknown> {
  const seq = s.sequences!;
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const nested = (m: Map<string, Map<string, number>>) => [...m].map(([from, row]) => [from, sorted(row)]);
  const out: Record<string, unknown> = {};
  for (const v of seq.variableNames()) {
    if (seq.unigrams(v).size === 0) continue;
    out[v] = {
      unigrams: sorted(seq.unigrams(v)),
      starts: sorted(seq.starts(v)),
      lagPairs: Array.from({ length: seq.order }, (_, k) => nested(seq.lagPairs(v, k + 1))),
      ngrams: Array.from({ length: seq.order }, (_, k) => seq.ngrams(v, k + 2)),
    };
    for (const w of seq.variableNames()) {
      if (v < w && seq.unigrams(w).size > 0) out[`${v}|${w}`] = nested(seq.cooccurrences(v, w));
    }
  }
  return out;
}

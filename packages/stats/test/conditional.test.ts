/**
 * Conditional histograms (STATS.md §3, `conditional_pair[c,t]`): the histogram of t over the
 * rows where binary c = 1. Checked against a direct computation from the rows (written
 * independently of the summary: cells are decoded here, levels and missing columns resolved
 * by name) and by the algebraic laws of the summary (merge, forget, subtract, chunking,
 * serialization), with categorical levels and columns appearing late and missing cells.
 */
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { type DataFrame, Histogram, Summary, SummaryError, type SummaryOptions } from '@sml/stats';
import { expectSameStatistics } from './helpers';

// ---- data ----

const POOL: ReadonlyArray<readonly [name: string, type: 'C' | 'B' | 'T']> = [
  ['x', 'C'],
  ['y', 'C'],
  ['flag', 'B'],
  ['g', 'B'],
  ['color', 'T'],
  ['shape', 'T'],
];
const TYPE_OF = new Map(POOL);
const missing = fc.constantFrom('', 'NA', ' nan ', '?', 'null');
const withMissing = (cell: fc.Arbitrary<string>) => fc.oneof({ arbitrary: cell, weight: 4 }, { arbitrary: missing, weight: 1 });
const cellArbs = [
  withMissing(fc.oneof(fc.integer({ min: -20, max: 20 }).map(String), fc.double({ min: -1e3, max: 1e3, noNaN: true }).map((v) => String(v)))),
  withMissing(fc.integer({ min: 0, max: 3 }).map(String)),
  withMissing(fc.constantFrom('0', '1')),
  withMissing(fc.constantFrom('0', '1', ' 1')),
  withMissing(fc.constantFrom('red', ' Blue', 'RED ', 'green')),
  withMissing(fc.constantFrom('a', 'B', 'c')),
];
/** A frame over a random subset of the columns (in random order): absent columns are missing. */
const frameArb: fc.Arbitrary<DataFrame> = fc
  .tuple(fc.shuffledSubarray([0, 1, 2, 3, 4, 5], { minLength: 1 }), fc.array(fc.tuple(...cellArbs), { minLength: 1, maxLength: 10 }))
  .map(([columns, rows]) => ({
    attributeNames: columns.map((c) => POOL[c][0]),
    attributeTypes: columns.map((c) => POOL[c][1]),
    data: rows.map((row) => columns.map((c) => row[c])),
  }));
const framesArb = fc.array(frameArb, { minLength: 1, maxLength: 4 });

const CONFIGS: [string, SummaryOptions][] = [
  ['streaming histograms of 4 bins, partitions by shape', { histogram: 'streaming', histogramBins: 4, partitionSplit: 'shape' }],
  ['exact histograms degrading past 3 values', { histogram: 'exact', exactHistogramCap: 3, histogramBins: 8 }],
  ['exact histograms', { histogram: 'exact' }],
];

function learned(options: SummaryOptions, frames: readonly DataFrame[]): Summary {
  const s = new Summary(options);
  for (const f of frames) s.learn(f);
  return s;
}

// ---- the direct computation ----

const MISSING = new Set(['', 'na', 'nan', 'null', '?']);
const present = (cell: string) => !MISSING.has(cell.trim().toLowerCase());

/** The value of (expanded) attribute `name` in a row of a frame; null when missing or absent. */
function valueOf(frame: DataFrame, row: readonly string[], name: string): number | null {
  const cut = name.indexOf('$');
  const column = cut < 0 ? name : name.slice(0, cut);
  const at = frame.attributeNames.indexOf(column);
  if (at < 0 || !present(row[at])) return null;
  if (cut < 0) return Number(row[at]);
  return row[at].trim().toLowerCase() === name.slice(cut + 1) ? 1 : 0;
}

function histogramOf(options: SummaryOptions, values: readonly number[]): Histogram {
  const h = new Histogram(options.histogram!, options.histogramBins, options.exactHistogramCap);
  for (const v of values) h.add(v);
  return h;
}

/** The histogram of t over the rows (of frames, filtered by `keep`) where c = 1. */
function expected(options: SummaryOptions, frames: readonly DataFrame[], c: string, t: string, keep: (f: DataFrame, row: string[]) => boolean = () => true): Histogram {
  const values: number[] = [];
  for (const f of frames) {
    for (const row of f.data) {
      if (!keep(f, row) || valueOf(f, row, c) !== 1) continue;
      const v = valueOf(f, row, t);
      if (v !== null) values.push(v);
    }
  }
  return histogramOf(options, values);
}

const isBinary = (name: string) => name.includes('$') || TYPE_OF.get(name) === 'B';

/** `sameMode`: also the mode (not after a forget: an exact histogram degrades for good). */
function expectMatchesRows(s: Summary, options: SummaryOptions, frames: readonly DataFrame[], keep?: (f: DataFrame, row: string[]) => boolean, where = 'summary', sameMode = true): void {
  for (const c of s.attributeNames) {
    for (const t of s.attributeNames) {
      const actual = s.conditionalHistogram(c, t);
      if (!isBinary(c)) {
        if (actual !== undefined) throw new Error(`${where}: conditional histogram given continuous ${c}`);
        continue;
      }
      const e = expected(options, frames, c, t, keep);
      if (e.count === 0) {
        if (actual !== undefined) throw new Error(`${where} ${t} | ${c}=1: ${JSON.stringify(actual.toBins())} but expected none`);
      } else if (actual === undefined || !actual.equals(e) || (sameMode && actual.mode !== e.mode)) {
        throw new Error(`${where} ${t} | ${c}=1: ${JSON.stringify(actual?.toBins())} (${actual?.mode}) but expected ${JSON.stringify(e.toBins())} (${e.mode})`);
      }
    }
  }
}

// ---- comparing two summaries ----

/**
 * A summary's conditional histogram of t given c = 1, also for attributes it never saw: an
 * unknown c was never 1; an unknown level t whose categorical attribute the summary knows is
 * 0 wherever a sibling level is present (rows with c = 1 and the sibling present).
 */
function view(s: Summary, c: string, t: string): Histogram | null {
  if (s.indexOf(c) < 0) return null;
  if (s.indexOf(t) >= 0) return s.conditionalHistogram(c, t) ?? null;
  const base = t.includes('$') ? t.slice(0, t.indexOf('$') + 1) : null;
  const sibling = base === null ? undefined : s.attributeNames.find((n) => n.startsWith(base));
  if (sibling === undefined) return null;
  const n = s.conditionalHistogram(c, sibling)?.count ?? 0;
  if (n === 0) return null;
  const h = new Histogram(s.options.histogram!, s.options.histogramBins, s.options.exactHistogramCap);
  h.add(0, n);
  return h;
}

function expectSameConditionals(actual: Summary, expectedSummary: Summary, where = 'summary'): void {
  if (actual.rowCount !== expectedSummary.rowCount) throw new Error(`${where}: rowCount ${actual.rowCount} vs ${expectedSummary.rowCount}`);
  const names = [...new Set([...actual.attributeNames, ...expectedSummary.attributeNames])];
  for (const c of names.filter(isBinary)) {
    for (const t of names) {
      const a = view(actual, c, t);
      const e = view(expectedSummary, c, t);
      if (a !== null && a.count === 0) throw new Error(`${where} ${t} | ${c}=1: an empty histogram instead of undefined`);
      if (a === null && e === null) continue;
      if (a === null || e === null || !a.equals(e)) throw new Error(`${where} ${t} | ${c}=1: ${JSON.stringify(a?.toBins())} but expected ${JSON.stringify(e?.toBins())}`);
    }
  }
  for (const value of new Set([...actual.partitionValues(), ...expectedSummary.partitionValues()])) {
    const empty = new Summary(actual.partition(value)?.options ?? expectedSummary.partition(value)!.options);
    expectSameConditionals(actual.partition(value) ?? empty, expectedSummary.partition(value) ?? empty, `${where} partition ${value}`);
  }
}

// ---- tests ----

describe.each(CONFIGS)('conditional histograms with %s', (_, options) => {
  test('equal the histogram of t over the rows where c = 1, computed from the rows', () => {
    fc.assert(
      fc.property(framesArb, (frames) => {
        const s = learned(options, frames);
        expectMatchesRows(s, options, frames);
        for (const value of s.partitionValues()) {
          const keep = (f: DataFrame, row: string[]) => {
            const at = f.attributeNames.indexOf('shape');
            return at >= 0 && present(row[at]) && row[at].trim().toLowerCase() === value;
          };
          expectMatchesRows(s.partition(value)!, options, frames, keep, `partition ${value}`);
        }
      }),
    );
  });

  test('learn(A ∪ B) equals learn(A) merged with learn(B)', () => {
    fc.assert(
      fc.property(framesArb, framesArb, (a, b) => {
        expectSameConditionals(learned(options, a).merge(learned(options, b)), learned(options, [...a, ...b]));
      }),
    );
  });

  test('forget(B) after learn(A ∪ B) equals learn(A)', () => {
    fc.assert(
      fc.property(framesArb, framesArb, (a, b) => {
        const s = learned(options, [...a, ...b]);
        for (const f of b) s.forget(f);
        expectSameConditionals(s, learned(options, a));
        expectMatchesRows(s, options, a, undefined, 'summary', false);
      }),
    );
  });

  test('subtract undoes merge', () => {
    fc.assert(
      fc.property(framesArb, framesArb, (a, b) => {
        const sb = learned(options, b);
        expectSameConditionals(learned(options, a).merge(sb).merge(sb, -1), learned(options, a));
      }),
    );
  });

  test('row order and chunking do not change the conditional histograms', () => {
    fc.assert(
      fc.property(
        framesArb.chain((frames) => {
          const chunks = frames.flatMap((f) => f.data.map((row) => ({ ...f, data: [row] })));
          return fc.tuple(fc.constant(frames), fc.shuffledSubarray(chunks, { minLength: chunks.length }), fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1 }));
        }),
        ([frames, rows, sizes]) => {
          // Regroup consecutive one-row frames with the same columns into chunks of the given sizes.
          const chunks: DataFrame[] = [];
          for (let at = 0, k = 0; at < rows.length; k++) {
            let end = at + 1;
            while (end < rows.length && end - at < sizes[k % sizes.length] && rows[end].attributeNames === rows[at].attributeNames) end++;
            chunks.push({ ...rows[at], data: rows.slice(at, end).flatMap((f) => f.data) });
            at = end;
          }
          expectSameConditionals(learned(options, chunks), learned(options, frames));
        },
      ),
    );
  });

  test('serialize then deserialize gives the same bytes and conditional histograms', () => {
    fc.assert(
      fc.property(framesArb, framesArb, (a, b) => {
        const s = learned(options, [...a, ...b]);
        s.forget({ ...b[0], data: b[0].data.slice(0, 1) });
        const bytes = s.serialize();
        const copy = Summary.deserialize(bytes);
        if (!Buffer.from(copy.serialize()).equals(Buffer.from(bytes))) throw new Error('serialization round trip changed the bytes');
        expectSameConditionals(copy, s);
        expectSameConditionals(s.clone(), s);
        for (const c of s.attributeNames) {
          for (const t of s.attributeNames) {
            const [h, k] = [s.conditionalHistogram(c, t), copy.conditionalHistogram(c, t)];
            if (JSON.stringify(h?.toBins()) !== JSON.stringify(k?.toBins()) || h?.mode !== k?.mode) throw new Error(`${t} | ${c}=1 changed in the round trip`);
          }
        }
      }),
    );
  });

  test('a forget that fails changes nothing', () => {
    fc.assert(
      fc.property(framesArb, frameArb, (a, b) => {
        const s = learned(options, a);
        const before = Buffer.from(s.serialize());
        try {
          s.forget(b);
        } catch (e) {
          if (!(e instanceof SummaryError)) throw e;
          if (!Buffer.from(s.serialize()).equals(before)) throw new Error('a failed forget changed the summary');
        }
      }),
    );
  });

  test('learnJson gives the same conditional histograms as learn', () => {
    fc.assert(
      fc.property(framesArb, (frames) => {
        const s = new Summary(options);
        for (const f of frames) s.learnJson(new TextEncoder().encode(JSON.stringify(f)));
        if (!Buffer.from(s.serialize()).equals(Buffer.from(learned(options, frames).serialize()))) throw new Error('learnJson and learn differ');
      }),
      { numRuns: 30 },
    );
  });
});

describe.each<'streaming' | 'exact'>(['streaming', 'exact'])('forgetting rows never learned (%s)', (mode) => {
  // Same counts, moments' counts and per-attribute histograms: only the conditional histograms differ.
  const cases: [string, DataFrame, DataFrame][] = [
    [
      'binary condition',
      { attributeNames: ['x', 'flag'], attributeTypes: ['C', 'B'], data: [['1', '1'], ['2', '0']] },
      { attributeNames: ['x', 'flag'], attributeTypes: ['C', 'B'], data: [['2', '1'], ['1', '0']] },
    ],
    [
      'categorical level condition',
      { attributeNames: ['x', 'color'], attributeTypes: ['C', 'T'], data: [['1', 'red'], ['2', 'blue']] },
      { attributeNames: ['x', 'color'], attributeTypes: ['C', 'T'], data: [['2', 'red'], ['1', 'blue']] },
    ],
  ];
  test.each(cases)('%s: throws SummaryError and leaves the summary unchanged', (_, learnedFrame, forgotten) => {
    const s = new Summary({ histogram: mode });
    s.learn(learnedFrame);
    const before = Buffer.from(s.serialize());
    expect(() => s.forget(forgotten)).toThrow(SummaryError);
    expect(() => s.forget(forgotten)).toThrow(/given .* = 1/);
    expect(Buffer.from(s.serialize()).equals(before)).toBe(true);
    expect(() => s.clone().merge(learned({ histogram: mode }, [forgotten]), -1)).toThrow(SummaryError);
    // The rows that were learned forget fine.
    s.forget(learnedFrame);
    expect(s.rowCount).toBe(0);
    expect(s.conditionalHistogram(1, 0)).toBeUndefined();
  });
});

describe('conditionalHistogram', () => {
  const f: DataFrame = {
    attributeNames: ['x', 'flag', 'color'],
    attributeTypes: ['C', 'B', 'T'],
    data: [['1.5', '1', 'red'], ['-2', '0', 'blue'], ['', '1', 'red'], ['7', '1', ''], ['3', '', 'blue']],
  };

  test('worked example', () => {
    const s = learned({ histogram: 'exact' }, [f]);
    const bins = (c: string, t: string) => s.conditionalHistogram(c, t)?.toBins().map((b) => [b.lower, b.count]);
    expect(bins('flag', 'x')).toEqual([[1.5, 1], [7, 1]]);
    expect(bins('color$red', 'x')).toEqual([[1.5, 1]]);
    expect(bins('color$blue', 'x')).toEqual([[-2, 1], [3, 1]]);
    expect(bins('flag', 'color$red')).toEqual([[1, 2]]);
    expect(bins('color$blue', 'flag')).toEqual([[0, 1]]);
    expect(bins('color$red', 'color$blue')).toEqual([[0, 2]]);
    expect(bins('flag', 'flag')).toEqual([[1, 3]]);
    expect(s.conditionalHistogram('x', 'flag')).toBeUndefined();
    expect(s.conditionalHistogram(s.indexOf('flag'), s.indexOf('x'))?.count).toBe(2);
    // A level seen late: earlier rows with the attribute present had it 0.
    s.learn({ attributeNames: ['color', 'x'], attributeTypes: ['T', 'C'], data: [['green', '4']] });
    expect(bins('flag', 'color$green')).toEqual([[0, 2]]);
    expect(bins('color$red', 'color$green')).toEqual([[0, 2]]);
    expect(bins('color$green', 'x')).toEqual([[4, 1]]);
    expect(bins('color$green', 'flag')).toBeUndefined();
  });

  test('undefined without histograms; unknown attributes throw SummaryError', () => {
    const s = learned({}, [f]);
    expect(s.conditionalHistogram('flag', 'x')).toBeUndefined();
    expect(() => s.conditionalHistogram('flag', 'nope')).toThrow(SummaryError);
    expect(() => s.conditionalHistogram('nope', 'x')).toThrow(expect.objectContaining({ attribute: 'nope' }));
    expect(() => learned({ histogram: 'streaming' }, [f]).conditionalHistogram(99, 0)).toThrow(SummaryError);
  });

  test('no binary attribute: no conditional histograms, serialization as small as before', () => {
    const s = learned({ histogram: 'streaming' }, [{ attributeNames: ['x', 'y'], attributeTypes: ['C', 'C'], data: [['1', '2'], ['3', '']] }]);
    expect(s.conditionalHistogram('x', 'y')).toBeUndefined();
    // One u32 (no conditions) more than version 1.
    const copy = Summary.deserialize(s.serialize());
    expect(copy.hash()).toBe(s.hash());
  });
});

describe('format version 1', () => {
  // Serialized by the version-1 code (commit 5bcc3f3) after learning V1_FRAME into
  // new Summary({ histogram: 'streaming', histogramBins: 4, partitionSplit: 'color' }); gzip, base64.
  const V1 =
    'H4sIAAAAAAACA91WsU4bQRCds0FKSOMiDVEKe4RQiiuOiOoaNrgBhaTxFyzmMCfZPmu9lowimrT8BOJHjEQN38AHULhESuHobM7n27317ok1SExxq7ezNzP7ZjSzjV9HDQcALgHgDzYpD1oRO28EPcoojxj6uIUudujwB+csPB7woI/+d8/zXDwL+zxqMdrZD7t99HddDIa0yQ+S7Trtob/jZc+ij33OAtoJuy10sUcZD3kYdRu9dsjRx2bUjhhewFQqZA0A4vCGUxyj0zZtxTuwAQDT01vH7UFQWk/gx/k+C07SbRcW5AOZrV/I4i5c/czi7UEGVx+vs3qAm9nylSQBZ+2L/kxxIuO9rD7Bot4Uq+yC6L8ontv9CwY863jXYDkPKj+w3K50j5pw/lDQ28qvNv/P+GG0PJ+bRJPvm/z4Jb86O8SsrlRiq3619W2JtycBlwx5s41VvBXNl2l+Vncfp5QGOyqr+lG6OpPJZJKolefT+Jefl/kqZh9I6Xn8xLOGvcWsvEgiKxcfiTXl/TT9oSroPcX8S9aifcFUxPp4ab8Y7/024kPHjw57xIx3USrEDl+rFtV9RP+VF84p3TvGFg+260zGzv2871RvHdm/c/8v7Ut5+rv0/7qTH3/cIVhw8pZtCsiSNqV4oddkvnRz+FMWk88kf47P7Viac1KdWLeb35+eCr5TNFjiS+VnrPFT9P0Er/R+em/3Wb2fhf7yrV64/wDR6ePPf4LjHf10EAAA';
  const V1_FRAME: DataFrame = {
    attributeNames: ['x', 'flag', 'color'],
    attributeTypes: ['C', 'B', 'T'],
    data: [['1.5', '1', 'red'], ['-2', '0', 'blue'], ['', '1', 'red'], ['7', '1', '']],
  };
  const options: SummaryOptions = { histogram: 'streaming', histogramBins: 4, partitionSplit: 'color' };

  test('reads as the same statistics without conditional histograms, then writes version 2', () => {
    const bytes = new Uint8Array(gunzipSync(Buffer.from(V1, 'base64')));
    expect(new DataView(bytes.buffer, bytes.byteOffset).getUint32(4, true)).toBe(1);
    const old = Summary.deserialize(bytes);
    expectSameStatistics(old, learned(options, [V1_FRAME]), { tolerance: 0, extremes: true });
    expect(old.partitionValues()).toEqual(['blue', 'red']);
    expect(old.conditionalHistogram('flag', 'x')).toBeUndefined();
    const again = old.serialize();
    expect(new DataView(again.buffer, again.byteOffset).getUint32(4, true)).toBe(2);
    expect(Buffer.from(Summary.deserialize(again).serialize()).equals(Buffer.from(again))).toBe(true);
    // Rows learned after the upgrade are counted.
    old.learn(V1_FRAME);
    expect(old.conditionalHistogram('flag', 'x')?.count).toBe(2);
  });

  test('a damaged conditional section throws SummaryError', () => {
    const s = learned({ histogram: 'exact' }, [V1_FRAME]);
    const bytes = s.serialize();
    // The first condition index sits right after the per-attribute histograms; corrupt every u32 in turn
    // until one decodes as a bad index: deserialize must throw SummaryError, never anything else.
    let damaged = 0;
    for (let at = 8; at + 4 <= bytes.length; at += 4) {
      const copy = bytes.slice();
      new DataView(copy.buffer).setUint32(at, 0xfffffff0, true);
      try {
        Summary.deserialize(copy);
      } catch (e) {
        expect(e).toBeInstanceOf(SummaryError);
        damaged++;
      }
    }
    expect(damaged).toBeGreaterThan(0);
  });
});

describe('streaming histogram window (grows from a few slots, so sparse conditional histograms stay small)', () => {
  // Bin k of width w is [k·w, (k+1)·w): tally the values directly at the histogram's width.
  const reference = (values: readonly number[], width: number) => {
    const counts = new Map<number, number>();
    for (const v of values) counts.set(Math.floor(v / width), (counts.get(Math.floor(v / width)) ?? 0) + 1);
    return [...counts].sort((a, b) => a[0] - b[0]).map(([k, count]) => ({ lower: k * width, upper: (k + 1) * width, count }));
  };
  const values = fc.array(fc.oneof(fc.integer({ min: -5000, max: 5000 }), fc.integer({ min: -40, max: 40 }).map((v) => v / 8)), { minLength: 1, maxLength: 300 });

  test('values in any order give the bins of a direct tally, within the bin count', () => {
    fc.assert(
      fc.property(values, fc.constantFrom(2, 3, 5, 8, 64, 256), (xs, bins) => {
        const h = new Histogram('streaming', bins);
        for (const v of xs) h.add(v);
        const sorted = new Histogram('streaming', bins);
        for (const v of [...xs].sort((a, b) => a - b)) sorted.add(v);
        expect(h.toBins()).toEqual(reference(xs, h.width));
        expect(sorted.toBins()).toEqual(h.toBins());
        expect(h.toBins().length).toBeLessThanOrEqual(bins);
        // Subtracting a part leaves the tally of the rest on the same grid.
        const half = xs.slice(0, Math.floor(xs.length / 2));
        const part = new Histogram('streaming', bins);
        for (const v of half) part.add(v);
        const width = h.width;
        h.merge(part, -1);
        expect(h.toBins()).toEqual(reference(xs.slice(half.length), width));
      }),
    );
  });
});

describe('the conditional histograms of one categorical column', () => {
  // Two levels of one column are never stored (derived: where one is 1 the other is 0), so a
  // column of L levels adds O(L · other columns) histograms, not L² (a tenant's 1 000-level
  // column once held 10⁶ of them, ≈ 500 MiB).
  test('a 300-level column next to two C columns costs O(L) conditional histograms in the serialized summary', () => {
    const L = 300;
    const data = Array.from({ length: 3 * L }, (_, r) => [String(r % 7), String((r * 13) % 11), `level${r % L}`]);
    const frame: DataFrame = { attributeNames: ['x', 'y', 'cat'], attributeTypes: ['C', 'C', 'T'], data };
    const size = (conditionalHistograms: boolean) => {
      const s = new Summary({ histogram: 'streaming', conditionalHistograms });
      s.learn(frame);
      return s.serialize().length;
    };
    const conditionalBytes = size(true) - size(false);
    // 2 · L histograms (x and y given each level), ≈ 1.4 KB each serialized: ≈ 0.83 MB. With
    // the L² same-column pairs stored as well (90 000 more histograms) it was 3.7 MB.
    expect(conditionalBytes).toBeLessThan(2 * L * 2000);
    const s = new Summary({ histogram: 'streaming' });
    s.learn(frame);
    expect(s.conditionalHistogram('cat$level1', 'cat$level2')?.toBins().map((b) => [b.lower, b.count])).toEqual([[0, 3]]);
  });
});

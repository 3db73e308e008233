/**
 * The laws of every summary part (src/parts.ts; STYLE.md: one generic suite over every part,
 * as river's conformance suite over its statistics), each part with a generator of its input:
 * - A + B = C: the parts of two batches merged equal the part of both learned at once;
 * - C − B = A: merge(B, -1) and learn(B, -1) leave the part of A, exactly for counts, within
 *   the rounding of compensated sums otherwise;
 * - merge(X, 1) then merge(X, -1) restores the part (any part whose counts add up);
 * - a removal that would make a count negative throws SummaryError, from checkMerge too, and
 *   changes nothing;
 * - read(write()) writes the same bytes; learning batches one after another equals learning
 *   them at once.
 * Parts that do not add up say so (`additive: false`, their READMEs say why): sequence counts
 * in `steps` layout (pairs cross from one learn call into the next), micro-clusters and the
 * forest (online models; sign -1 leaves them as they are). The reference: the same part
 * learned from all rows at once.
 */
import fc from 'fast-check';
import { AttributeStatistics } from '../src/attribute-statistics';
import { ByteReader, ByteWriter } from '../src/binary';
import { SummaryError } from '../src/errors';
import { type DataFrame, type ParsedFrame, parseFrame } from '../src/frame';
import { Histogram } from '../src/histogram';
import { MondrianForest } from '../src/models/forest/mondrian';
import { MicroClusters } from '../src/models/kmeans/micro-clusters';
import { PowerColumns } from '../src/models/powerreg/power-columns';
import { SequenceCounts } from '../src/models/sequence/counts';
import { resolveOptions } from '../src/options';
import type { Sign, SummaryPart } from '../src/parts';
import { Summary } from '../src/summary';
import { SurvivalCounts } from '../src/survival/counts';
import { expectSameStatistics } from './helpers';

/** One part under test: how to make it, what it learns (batches of rows), how to compare two. */
interface PartCase<P extends SummaryPart<P, I>, I> {
  name: string;
  empty: () => P;
  /** A batch of rows. */
  rows: fc.Arbitrary<string[][]>;
  /** A row every count of the part learns (no missing cell). */
  complete: string[];
  /** The input the part learns from a batch. */
  input: (rows: string[][]) => I;
  /** Merge and subtraction add up to learning (false: the part keeps an order or approximates). */
  additive: boolean;
  /** Removing rows never learned throws (false: sign -1 does not apply to the part). */
  counts: boolean;
  /** Fails the test unless a and b hold the same state (bytes, or sums within rounding). */
  same: (a: P, b: P) => void;
  /** Fewer runs than fast-check's default, for a part slow to learn. */
  runs?: number;
}

const bytes = (part: { write: (w: ByteWriter) => void }): Uint8Array => {
  const w = new ByteWriter();
  part.write(w);
  return w.bytes();
};
const sameBytes = <P extends SummaryPart<P, unknown>>(a: P, b: P): void => expect(bytes(a)).toEqual(bytes(b));

const missing = fc.constantFrom('', 'NA');
const cell = (values: fc.Arbitrary<string>) => fc.oneof({ arbitrary: values, weight: 5 }, { arbitrary: missing, weight: 1 });
const batch = (row: fc.Arbitrary<string[]>) => fc.array(row, { minLength: 1, maxLength: 20 });
const frameOf = (names: string[], types: string[]) => (data: string[][]): ParsedFrame => parseFrame({ attributeNames: names, attributeTypes: types, data } satisfies DataFrame);

const survivalColumns = { time: 'time', event: 'event', group: 'group' };
const survival: PartCase<SurvivalCounts, ParsedFrame> = {
  name: 'survival counts',
  empty: () => new SurvivalCounts(survivalColumns),
  rows: batch(fc.tuple(cell(fc.integer({ min: 0, max: 5 }).map(String)), cell(fc.constantFrom('0', '1', '2')), cell(fc.constantFrom('a', 'B ', 'c')))),
  complete: ['3', '1', 'a'],
  input: frameOf(['time', 'event', 'group'], ['C', 'C', 'T']),
  additive: true,
  counts: true,
  same: sameBytes,
};

const states = cell(fc.constantFrom('sun', 'rain', 'Fog '));
const sequenceNames = ['weather', 'mood'];
const sequenceRows = batch(fc.tuple(states, states));
const sequencesOf = frameOf(sequenceNames, ['T', 'T']);
const sequenceRowsLayout: PartCase<SequenceCounts, ParsedFrame> = {
  name: 'sequence counts, rows layout',
  empty: () => new SequenceCounts(2, 'rows'),
  rows: sequenceRows,
  complete: ['sun', 'rain'],
  input: sequencesOf,
  additive: true,
  counts: true,
  same: sameBytes,
};
const sequenceStepsLayout: PartCase<SequenceCounts, ParsedFrame> = { ...sequenceRowsLayout, name: 'sequence counts, steps layout', empty: () => new SequenceCounts(2, 'steps'), additive: false };

const numbers = cell(fc.integer({ min: -400, max: 400 }).map((v) => String(v / 4)));
const numericRows = batch(fc.tuple(numbers, numbers));
const numericOf = frameOf(['x', 'y'], ['C', 'C']);

/** Sums compensated, so equal up to a few ulps of the largest partial sum: 1e-9 of the summed magnitudes. */
const power: PartCase<PowerColumns, ParsedFrame> = {
  name: 'power columns',
  empty: () => new PowerColumns({ column: 'x', min: -1, max: 1, steps: 5 }),
  rows: numericRows,
  complete: ['1', '2'],
  input: numericOf,
  additive: true,
  counts: true,
  same: (a, b) => {
    expect(a.rowCount).toBe(b.rowCount);
    expect(Math.abs(a.jacobianSum - b.jacobianSum)).toBeLessThanOrEqual(1e-9 * Math.max(1, a.rowCount * Math.log1p(100)));
  },
};

const values = batch(fc.tuple(numbers));
const columnOf = (rows: string[][]): Float64Array => numericOf(rows.map(([x]) => [x, '0'])).numeric[0].values;
/**
 * 8 bins, so streaming grids widen within a test. Equal as histogram.ts defines it: the same
 * counts once both are on the wider grid (a removal never narrows a grid).
 */
const histogram = (mode: 'exact' | 'streaming'): PartCase<Histogram, Float64Array> => ({
  name: `${mode} histogram`,
  empty: () => new Histogram(mode, 8),
  rows: values,
  complete: ['1'],
  input: columnOf,
  additive: true,
  counts: true,
  same: (a, b) => {
    expect(a.count).toBe(b.count);
    expect(a.equals(b)).toBe(true);
  },
});

/**
 * Quarters of magnitude ≤ 100 and at most 80 rows: every power sum is exact in doubles, so
 * merge and removal agree with learning exactly. Compared by attribute name (a merge appends
 * the other's new levels after this one's), as the summary laws compare whole summaries.
 */
const attributeOptions = resolveOptions({ histogram: 'streaming', histogramBins: 8 });
const attributes: PartCase<AttributeStatistics, ParsedFrame> = {
  name: 'attribute statistics (moments, co-moments, histograms, conditional histograms)',
  empty: () => new AttributeStatistics(attributeOptions),
  rows: batch(fc.tuple(numbers, cell(fc.constantFrom('0', '1')), cell(fc.constantFrom('red', 'Blue', 'green')))),
  complete: ['1', '1', 'red'],
  input: frameOf(['x', 'flag', 'color'], ['C', 'B', 'T']),
  additive: true,
  counts: true,
  same: (a, b) => {
    const [sa, sb] = [new Summary(attributeOptions, a), new Summary(attributeOptions, b)];
    expectSameStatistics(sa, sb, { tolerance: 0 });
    // expectSameStatistics leaves the conditional histograms out: compared here, by name.
    const names = sa.attributeNames.filter((n) => sb.indexOf(n) >= 0);
    for (const c of names) {
      for (const t of names) {
        const [ha, hb] = [sa.conditionalHistogram(c, t), sb.conditionalHistogram(c, t)];
        // On the wider grid: a removal never narrows one.
        const equal = ha === undefined || hb === undefined ? ha === hb : ha.equals(hb);
        expect([c, t, equal]).toEqual([c, t, true]);
      }
    }
  },
};

/** The online models learn numeric rows; merges approximate or do not apply, sign -1 is ignored. */
const online = { rows: numericRows, complete: ['1', '2'], input: numericOf, additive: false, counts: false, same: sameBytes };

const clusters: PartCase<MicroClusters, ParsedFrame> = {
  ...online,
  name: 'micro-clusters',
  empty: () => new MicroClusters({ features: ['x', 'y'], centroids: 4, warmup: 5 }),
};

const forest: PartCase<MondrianForest, ParsedFrame> = {
  ...online,
  name: 'Mondrian forest',
  empty: () => new MondrianForest({ type: 'rf_regressor', target: 'y', features: ['x'], trees: 2, classes: 2, maxDepth: 4, step: 1, dirichlet: 0.5, alwaysSplit: true, missing: 0, seed: 126 }),
  // Each write copies every tree's node arrays: a quarter of the runs keeps the suite near 20 s.
  runs: 25,
};

function lawsOf<P extends SummaryPart<P, I>, I>(c: PartCase<P, I>): void {
  const learned = (rows: string[][], sign: Sign = 1, into = c.empty()): P => {
    into.learn(c.input(rows), sign);
    return into;
  };
  const copy = (part: P): P => {
    const out = c.empty();
    out.read(new ByteReader(bytes(part)));
    return out;
  };

  const runs = c.runs === undefined ? {} : { numRuns: c.runs };
  /** A law over two batches. */
  const law = (name: string, holds: (a: string[][], b: string[][]) => void) => test(name, () => fc.assert(fc.property(c.rows, c.rows, holds), runs));

  describe(c.name, () => {
    test('read(write()) gives a part that writes the same bytes', () => {
      fc.assert(fc.property(c.rows, (rows) => {
        const part = learned(rows);
        expect(bytes(copy(part))).toEqual(bytes(part));
        c.same(copy(part), part);
      }), runs);
    });

    test('learning batches one after another equals learning them at once', () => {
      fc.assert(fc.property(fc.array(c.rows, { minLength: 1, maxLength: 4 }), (batches) => {
        const chunked = c.empty();
        for (const rows of batches) learned(rows, 1, chunked);
        c.same(chunked, learned(batches.flat()));
      }), runs);
    });

    if (c.additive) {
      law('A + B = C: the merged parts of two batches equal the part of both', (a, b) => {
        const merged = learned(a);
        merged.merge(learned(b), 1);
        c.same(merged, learned([...a, ...b]));
      });

      law('C − B = A: merge(B, -1) and learn(B, -1) leave the part of A', (a, b) => {
        const merged = learned([...a, ...b]);
        merged.merge(learned(b), -1);
        c.same(merged, learned(a));
        c.same(learned(b, -1, learned([...a, ...b])), learned(a));
      });
    }

    if (c.counts) {
      law('merge(X, 1) then merge(X, -1) restores the part', (a, x) => {
        const part = learned(a);
        part.merge(learned(x), 1);
        part.merge(learned(x), -1);
        c.same(part, learned(a));
      });

      test('removing rows never learned throws SummaryError, checkMerge too, and changes nothing', () => {
        fc.assert(fc.property(c.rows, (a) => {
          const part = learned(a);
          const before = bytes(part);
          // One complete row more than `part` learned.
          const more = [...a, c.complete];
          expect(() => part.checkMerge(learned(more), -1)).toThrow(SummaryError);
          expect(() => part.merge(learned(more), -1)).toThrow(SummaryError);
          expect(() => part.learn(c.input(more), -1)).toThrow(SummaryError);
          expect(bytes(part)).toEqual(before);
        }), runs);
      });
    } else {
      law('sign -1 does not apply: learn and merge with -1 leave the part as it is', (a, b) => {
        const part = learned(a);
        const before = bytes(part);
        part.checkMerge(learned(b), -1);
        part.merge(learned(b), -1);
        part.learn(c.input(b), -1);
        expect(bytes(part)).toEqual(before);
      });
    }
  });
}

lawsOf(attributes);
lawsOf(survival);
lawsOf(sequenceRowsLayout);
lawsOf(sequenceStepsLayout);
lawsOf(power);
lawsOf(histogram('exact'));
lawsOf(histogram('streaming'));
lawsOf(clusters);
lawsOf(forest);

/**
 * Reference: H(T) − Σᵥ P(X=v)·H(T | X=v) in bits, written with numpy from the joint counts of
 * the rows (fixtures/gen_explore.py, Debian's /usr/bin/python3). Categorical levels form one X
 * (named by the categorical), a binary X has values 0/1, a continuous X its distinct values; one
 * binary target gives classes t = 0/1, several targets one class each. For a continuous X and a
 * single binary target, rows where T is missing count as t = 0 (documented convention).
 * Tolerance 1e-9 relative (STATS.md), with a 1e-12 absolute floor for gains near 0.
 */
import { approximateKeys, explore, ExploreInputError } from '../../src/explore';
import { expectClose, frame } from '../helpers';
import { casesOf, FIXTURES, learned, load, run, value } from './fixture';
import type { Case } from './fixture';
import type { Summary } from '@sml/stats';

function expectGains(summary: Summary, c: Case): void {
  const actual = run(summary, c);
  expect(actual.map((m) => Object.keys(m))).toEqual(c.expected.map((m) => Object.keys(m)));
  c.expected.forEach((m, k) => {
    for (const [key, v] of Object.entries(m)) expectClose(actual[k][key], value(v), 1e-9, 1e-3, `gain ${key}`);
  });
}

describe.each(FIXTURES)('%s', (name) => {
  const fixture = load(name);
  const plain = learned(fixture.frame);
  const exact = learned(fixture.frame, { histogram: 'exact' });
  // 256 streaming bins separate every distinct value of these attributes (steps of 0.1 or 1).
  const streaming = learned(fixture.frame, { histogram: 'streaming' });

  test.each(casesOf(fixture, ['gain']).filter(([, c]) => !c.histograms))('%s equals the entropy difference from the rows, one map per X', (_, c) => {
    expectGains(plain, c);
  });

  test.each(casesOf(fixture, ['gain']).filter(([, c]) => c.histograms))('%s bins a continuous X by its exact histogram', (_, c) => {
    expectGains(exact, c);
  });

  test.each(casesOf(fixture, ['gain']).filter(([, c]) => c.histograms))('%s equals the same with streaming bins that separate the values', (_, c) => {
    expectGains(streaming, c);
  });
});

test('a continuous X on a coarse streaming grid is binned: values sharing a bin are one value of X', () => {
  // x ∈ {0.1, 0.2} share a bin once the grid widens to hold 9.9 with 2 bins; t is 1 exactly for 0.2.
  const data = [['0.1', '0'], ['0.2', '1'], ['9.9', '0'], ['0.1', '0'], ['0.2', '1']];
  const s = learned(frame(['x', 't'], ['C', 'B'], data), { histogram: 'streaming', histogramBins: 2 });
  const [m] = explore(s, 'gain', { inputs: [0], targets: [1], extra: {} }, { histograms: true });
  // Bins {0.1, 0.1, 0.2, 0.2} (t: 0,0,1,1) and {9.9} (t: 0): H(T) − 4/5·H(½) = H(2/5) − 0.8.
  const h = (p: number) => -p * Math.log2(p) - (1 - p) * Math.log2(1 - p);
  expectClose(m.x, h(0.4) - 0.8, 1e-12, 0, 'gain');
});

test('approximateKeys marks the gain of a continuous X binned by a streaming histogram, not of a binary X or an exact histogram', () => {
  const data = [['0.1', '1', '0'], ['0.2', '0', '1'], ['9.9', '1', '0']];
  const input = { inputs: [0, 1], targets: [2], extra: {} };
  const streaming = learned(frame(['x', 'b', 't'], ['C', 'B', 'B'], data), { histogram: 'streaming', histogramBins: 2 });
  expect(approximateKeys(streaming, 'gain', input, { histograms: true })).toEqual([['x'], []]);
  const exact = learned(frame(['x', 'b', 't'], ['C', 'B', 'B'], data), { histogram: 'exact' });
  expect(approximateKeys(exact, 'gain', input, { histograms: true })).toEqual([[], []]);
});

test('a continuous X needs histograms', () => {
  const s = learned(frame(['x', 't'], ['C', 'B'], [['1', '0'], ['2', '1']]));
  expect(() => explore(s, 'gain', { inputs: [0], targets: [1], extra: {} }, { histograms: false })).toThrow(new ExploreInputError('gain of continuous attribute [x] needs histograms'));
});

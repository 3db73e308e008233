/**
 * Metrics depend on the summary only (STATS.md §1): learning the rows in chunks and merging,
 * or learning extra rows and forgetting them, gives the same explorations as learning the rows
 * at once, to 1e-9 relative (fast-check over random splits of the fixture rows).
 */
import fc from 'fast-check';
import type { Summary, SummaryOptions } from '@sml/stats';
import { conditionalDensityEstimate, densityEstimate } from '../../src/explore';
import { expectClose, frame } from '../helpers';
import { type Case, FIXTURES, learned, load, run } from './fixture';

function same(actual: Summary, expected: Summary, cases: readonly Case[]): void {
  for (const c of cases) {
    const a = run(actual, c);
    const e = run(expected, c);
    expect(a.map((m) => Object.keys(m))).toEqual(e.map((m) => Object.keys(m)));
    e.forEach((m, k) => {
      for (const [key, v] of Object.entries(m)) expectClose(a[k][key], v, 1e-9, 1e-3, `${c.metric} ${key}`);
    });
  }
}

describe.each(FIXTURES)('%s', (name) => {
  const fixture = load(name);
  const { attributeNames, attributeTypes, data } = fixture.frame;
  const options: SummaryOptions = { histogram: 'exact' };
  const whole = learned(fixture.frame, options);

  test('learning in two chunks and merging gives the explorations of learning at once', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: data.length, maxLength: data.length }), (side) => {
        const a = learned(frame(attributeNames, attributeTypes, data.filter((_, r) => side[r])), options);
        const b = learned(frame(attributeNames, attributeTypes, data.filter((_, r) => !side[r])), options);
        same(a.merge(b), whole, fixture.cases);
      }),
      { numRuns: 8 },
    );
  });

  test('forgetting rows learned on top gives the explorations and densities of never learning them', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 1000 }), (count, offset) => {
        const extra = Array.from({ length: count }, (_, k) => data[(offset + 7 * k) % data.length]);
        const s = learned(fixture.frame, options);
        s.learn(frame(attributeNames, attributeTypes, extra));
        s.forget(frame(attributeNames, attributeTypes, extra));
        same(s, whole, fixture.cases);
        for (const d of fixture.densities) {
          const t = whole.indexOf(d.attribute);
          const opts = { bins: d.bins, normalized: d.normalized };
          const [x, y] = d.condition === null
            ? [densityEstimate(s, s.indexOf(d.attribute), opts), densityEstimate(whole, t, opts)]
            : [conditionalDensityEstimate(s, s.indexOf(d.condition), s.indexOf(d.attribute), opts), conditionalDensityEstimate(whole, whole.indexOf(d.condition), t, opts)];
          expect(x).toEqual(y);
        }
      }),
      { numRuns: 8 },
    );
  });
});

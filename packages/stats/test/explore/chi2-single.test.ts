import { explore, Summary } from '@sml/stats';

// A single binary target (or input) stands for its two values. Reference: the same table
// built from an explicit complement column, whose k × 2 path is checked against
// scipy chi2_contingency in chi2.test.ts.
describe('chi2 with one binary side', () => {
  const rows = Array.from({ length: 60 }, (_, i) => [i % 2, (i + 1) % 2, i % 3 === 0 ? 1 : 0]).map((r) => [...r, 1 - r[2]].map(String));
  const s = new Summary();
  s.learn({ attributeNames: ['b1', 'b2', 'b3', 'not_b3'], attributeTypes: ['B', 'B', 'B', 'B'], data: rows });

  it('one target column = the table with its complement as a second column', () => {
    const [single] = explore(s, 'chi2', { inputs: [0, 1], targets: [2], extra: {} }, { histograms: false });
    const [explicit] = explore(s, 'chi2', { inputs: [0, 1], targets: [2, 3], extra: {} }, { histograms: false });
    for (const key of ['chiStat', 'df', 'pval', 'coef']) expect(single[key]).toBeCloseTo(explicit[key], 12);
    // Keys are project attribute indexes (b1 0, b2 1, b3 2, not_b3 3); the negated line of b3 is `!2`.
    expect(single['obs$0:!2']).toBe(explicit['obs$0:3']);
    expect(single['obs$1:2']).toBe(explicit['obs$1:2']);
    expect(Object.keys(single).filter((k) => k.startsWith('obs$'))).toEqual(['obs$0:2', 'obs$0:!2', 'obs$1:2', 'obs$1:!2']);
  });

  it('one input row and one target = the 2 × 2 table', () => {
    const [m] = explore(s, 'chi2', { inputs: [0], targets: [2], extra: {} }, { histograms: false });
    expect(m.df).toBe(1);
    const cells = ['obs$0:2', 'obs$0:!2', 'obs$!0:2', 'obs$!0:!2'].map((k) => m[k]);
    expect(cells.reduce((a, b) => a + b, 0)).toBe(60);
    expect(cells).toEqual([10, 20, 10, 20]);
  });
});

/**
 * Reference: fixtures/gen_drift.py (Debian's /usr/bin/python3) on the same rows — scipy
 * `ks_2samp` (D) and `kstwobign.sf` (p-value at √(n₁n₂/(n₁+n₂))·D), scipy `jensenshannon`
 * (base 2) on value counts, numpy closed forms for the Hellinger distances and the PCA
 * reconstruction error (residuals of the standardized rows themselves). The summaries keep
 * exact histograms, on which every metric is exact: 1e-9 relative. Streaming histograms make
 * the marginal metrics approximate (tested against their exact values below).
 */
import { Summary, type SummaryOptions } from '@sml/stats';
import { dataDrift, type DriftMetric, ExploreInputError, kolmogorovSurvival } from '../../src/explore';
import { expectClose } from '../helpers';
import { type Fixture as ExploreFixture, load } from './fixture';

type Frame = ExploreFixture['frame'];

interface Fixture {
  baseline: Frame;
  analyses: Record<string, Frame>;
  cases: { label: string; metric: DriftMetric; attributes: string[]; options: { pcaComponents?: number }; expected: Record<string, number> }[];
}

const fixture = load<Fixture>('drift.json');

function learned(frame: Frame, options: SummaryOptions): Summary {
  const summary = new Summary(options);
  summary.learn(frame);
  return summary;
}

const exact: SummaryOptions = { histogram: 'exact' };
const baseline = { name: 'base', summary: learned(fixture.baseline, exact) };
const analyses = Object.fromEntries(Object.entries(fixture.analyses).map(([label, frame]) => [label, { name: 'now', summary: learned(frame, exact) }]));

describe('dataDrift equals scipy and numpy on the same rows', () => {
  test.each(fixture.cases.map((c) => [`${c.metric} ${c.label}${c.options.pcaComponents ? ` k=${c.options.pcaComponents}` : ''}`, c] as const))('%s', (_, c) => {
    const map = dataDrift(baseline, analyses[c.label], c.attributes, c.metric, c.options);
    expect(Object.keys(map).sort()).toEqual(Object.keys(c.expected).sort());
    for (const [key, expected] of Object.entries(c.expected)) expectClose(map[key], expected, 1e-9, 1e-12, `${c.metric} ${key}`);
  });
});

describe('dataDrift', () => {
  test('a project compared with itself has no drift (pca: ratio 1)', () => {
    const names = ['x1', 'x2', 'x3', 'b'];
    for (const metric of ['marginal_stat', 'marginal_non_stat', 'global'] as const) expect(dataDrift(baseline, baseline, names, metric).driftScore).toBeCloseTo(0, 12);
    expect(dataDrift(baseline, baseline, names, 'pca_reconstruction_error').driftScore).toBeCloseTo(1, 12);
  });

  test('streaming histograms: KS D within one bin of the exact D, JS of the binned grid ≤ the exact one', () => {
    const streaming: SummaryOptions = { histogram: 'streaming', histogramBins: 64 };
    const b = { name: 'base', summary: learned(fixture.baseline, streaming) };
    const a = { name: 'now', summary: learned(fixture.analyses.shifted, streaming) };
    const binned = dataDrift(b, a, ['x1'], 'marginal_stat');
    const exactD = dataDrift(baseline, analyses.shifted, ['x1'], 'marginal_stat');
    const widest = Math.max(b.summary.histogram('x1')!.width, a.summary.histogram('x1')!.width);
    // D on a coarser grid is a max over fewer points; it misses at most the mass of one bin on either side.
    const bin = (s: Summary) => Math.max(...s.histogram('x1')!.toBins().map((x) => x.count)) / s.count('x1');
    expect(widest).toBeGreaterThan(0);
    expect(binned.x1_drift).toBeLessThanOrEqual(exactD.x1_drift + 1e-12);
    expect(exactD.x1_drift - binned.x1_drift).toBeLessThanOrEqual(bin(b.summary) + bin(a.summary));
    // Merging values into bins can only lose information (the data-processing inequality).
    expect(dataDrift(b, a, ['x1'], 'marginal_non_stat').x1_drift).toBeLessThanOrEqual(dataDrift(baseline, analyses.shifted, ['x1'], 'marginal_non_stat').x1_drift);
  });

  test('continuous attributes without histograms: an input error naming the project', () => {
    const plain = { name: 'nohist', summary: learned(fixture.baseline, {}) };
    expect(() => dataDrift(plain, baseline, ['x1'], 'marginal_stat')).toThrow(new ExploreInputError('histograms of project [nohist] are not enabled: drift of continuous attribute [x1] needs them'));
    // Binary attributes need only their counts.
    expect(dataDrift(plain, baseline, ['b'], 'marginal_stat').b_drift).toBe(0);
  });

  test('an attribute missing in either project, none at all, or too many components: input errors', () => {
    expect(() => dataDrift(baseline, analyses.shifted, ['x1', 'zz'], 'global')).toThrow('attribute [zz] is not in project [base]');
    expect(() => dataDrift(baseline, analyses.shifted, [], 'global')).toThrow(ExploreInputError);
    expect(() => dataDrift(baseline, analyses.shifted, ['x1', 'x2'], 'pca_reconstruction_error', { pcaComponents: 2 })).toThrow('pca_num_components = 2 must be at most 1');
  });

  test('Kolmogorov survival matches scipy kstwobign.sf on both sides of x = 1', () => {
    // scipy.stats.kstwobign.sf([0.3, 0.8, 1.0, 1.5, 3.0])
    const expected = [0.9999906941986655, 0.5441424115741981, 0.26999967167735456, 0.022217962616525127, 3.045995948942526e-08];
    [0.3, 0.8, 1.0, 1.5, 3.0].forEach((x, i) => expectClose(kolmogorovSurvival(x), expected[i], 1e-12, 0, `x=${x}`));
    expect(kolmogorovSurvival(0)).toBe(1);
  });
});

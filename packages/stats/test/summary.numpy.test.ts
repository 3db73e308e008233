/**
 * Reference: numpy (fixtures/gen_summary.py, run with Debian's /usr/bin/python3). Means,
 * variances, min/max over each attribute's present cells; covariance and correlation per
 * pair over the rows where both are present; conditional moments over rows with b = 1.
 * Tolerance 1e-9 relative (STATS.md: closed forms).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DataFrame, Summary } from '@sml/stats';
import { expectClose } from './helpers';

interface Expected {
  attributeNames: string[];
  count: number[];
  mean: number[];
  variance: number[];
  varianceUnbiased: number[];
  min: number[];
  max: number[];
  median: number[];
  sumCubes: number[];
  sumFourths: number[];
  pairCount: number[][];
  covariance: number[][];
  covarianceUnbiased: number[][];
  correlation: number[][];
  conditional: { x: string; b: string; count: number; mean: number; variance: number }[];
}

const TOLERANCE = 1e-9;

function load(name: string): { frame: DataFrame; expected: Expected } {
  return JSON.parse(readFileSync(join(__dirname, 'fixtures', name), 'utf8'));
}

describe.each(['summary_random.json', 'summary_iris.json'])('statistics equal numpy on %s', (fixture) => {
  const { frame, expected } = load(fixture);
  const summary = new Summary();
  summary.learn(frame);
  const names = expected.attributeNames;
  const sd = names.map((_, i) => Math.sqrt(expected.variance[i]));

  test('attribute names and types follow the frame, categorical levels expanded in sorted order', () => {
    expect(summary.attributeNames).toEqual(names);
    expect(summary.attributeTypes).toEqual(names.map((n) => (frame.attributeTypes[frame.attributeNames.indexOf(n)] === 'C' ? 'C' : 'B')));
    expect(summary.rowCount).toBe(frame.data.length);
  });

  test('count, mean, population and unbiased variance, extremes, third and fourth power sums', () => {
    names.forEach((name, i) => {
      expect([name, summary.count(name)]).toEqual([name, expected.count[i]]);
      expect(summary.missing(name)).toBe(frame.data.length - expected.count[i]);
      expectClose(summary.mean(name), expected.mean[i], TOLERANCE, sd[i], `mean ${name}`);
      expectClose(summary.variance(name), expected.variance[i], TOLERANCE, 0, `variance ${name}`);
      expectClose(summary.variance(name, { unbiased: true }), expected.varianceUnbiased[i], TOLERANCE, 0, `unbiased variance ${name}`);
      expect([name, summary.min(name), summary.max(name)]).toEqual([name, expected.min[i], expected.max[i]]);
      const m = summary.moments(name);
      expectClose(m.sumCubes, expected.sumCubes[i], TOLERANCE, 0, `Σx³ ${name}`);
      expectClose(m.sumFourths, expected.sumFourths[i], TOLERANCE, 0, `Σx⁴ ${name}`);
    });
  });

  test('pairwise-complete covariance (population and unbiased) and correlation', () => {
    const cov = summary.covariance(names);
    const covUnbiased = summary.covariance(names, { unbiased: true });
    const corr = summary.correlation(names);
    names.forEach((x, i) =>
      names.forEach((y, j) => {
        expect([x, y, summary.comoments(x, y).count]).toEqual([x, y, expected.pairCount[i][j]]);
        const scale = sd[i] * sd[j];
        expectClose(cov.get(i, j), expected.covariance[i][j], TOLERANCE, scale, `cov ${x},${y}`);
        expectClose(covUnbiased.get(i, j), expected.covarianceUnbiased[i][j], TOLERANCE, scale, `unbiased cov ${x},${y}`);
        expectClose(corr.get(i, j), expected.correlation[i][j], TOLERANCE, 1, `corr ${x},${y}`);
      }),
    );
  });

  test('conditional moments of x over rows with binary b = 1', () => {
    for (const c of expected.conditional) {
      const m = summary.conditionalMoments(c.x, c.b);
      expect(m.count).toBe(c.count);
      expectClose(m.mean, c.mean, TOLERANCE, 0, `conditional mean ${c.x}|${c.b}`);
      expectClose(m.variance, c.variance, TOLERANCE, 0, `conditional variance ${c.x}|${c.b}`);
    }
  });

  test('medians from an exact histogram equal numpy; a streaming one is within one bin width', () => {
    const exact = new Summary({ histogram: 'exact' });
    exact.learn(frame);
    const streaming = new Summary({ histogram: 'streaming' });
    streaming.learn(frame);
    names.forEach((name, i) => {
      expect([name, exact.median(name)]).toEqual([name, expected.median[i]]);
      const width = streaming.histogram(name)!.width;
      expect(Math.abs(streaming.median(name) - expected.median[i])).toBeLessThanOrEqual(width);
      expect([name, streaming.min(name), streaming.max(name)]).toEqual([name, expected.min[i], expected.max[i]]);
    });
  });
});

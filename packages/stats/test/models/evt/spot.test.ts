/**
 * SPOT / DSPOT (STATS.md §5). Reference: fixtures/gen_spot.py, the paper's algorithm written
 * independently in python (numpy, scipy brentq for Grimshaw's roots) on generated streams with
 * injected anomalies: heavy tail (γ > 0 fits), light tail (γ < 0, quantile given in percent),
 * method of moments, a cap of 30 kept excesses, and DSPOT on a drifting stream. Thresholds
 * 1e-6 relative (iterative root finding), tail probabilities 1e-6 relative, the same flagged
 * indexes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EvtWrapper, type EvtResult } from '../../../src/models/evt';

interface Case {
  name: string;
  stream: string;
  params: Record<string, string>;
  warmup: number;
  anomalies: number[];
  /** [index, threshold] where it changed. */
  thresholds: [number, number][];
  /** [index, confidence] where the score was above t. */
  confidences: [number, number][];
  final: { t: number; gamma: number; sigma: number; z: number; n: number; exceedances: number; kept: number };
}
const fixture: { streams: Record<string, number[]>; cases: Case[] } = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'spot.json'), 'utf8'));

function expectRelative(actual: number, expected: number, tolerance: number, floor: number, what: string): void {
  if (!(Math.abs(actual - expected) <= tolerance * Math.max(Math.abs(expected), floor))) throw new Error(`${what}: ${actual} differs from ${expected}`);
}

describe.each(fixture.cases.map((c) => [c.name, c] as const))('%s equals the python reference', (_, c) => {
  const stream = fixture.streams[c.stream];
  const wrapper = new EvtWrapper(c.params);
  const results: EvtResult[] = stream.map((x) => wrapper.update(x));

  test('warm-up: no anomaly, threshold NaN, confidence 0', () => {
    for (const r of results.slice(0, c.warmup)) expect(r).toEqual({ evt_is_anomaly: '0', evt_threshold: 'NaN', evt_anomaly_confidence: '0' });
  });

  test('the same scores are flagged', () => {
    expect(results.flatMap((r, i) => (r.evt_is_anomaly === '1' ? [i] : []))).toEqual(c.anomalies);
  });

  test('the same threshold at every step (1e-6 relative)', () => {
    let k = 0;
    for (let i = c.warmup; i < stream.length; i++) {
      while (k + 1 < c.thresholds.length && c.thresholds[k + 1][0] <= i) k++;
      expectRelative(Number(results[i].evt_threshold), c.thresholds[k][1], 1e-6, 1e-12, `threshold at ${i}`);
    }
  });

  test('the same confidence = 1 − tail probability above t (1e-6 relative on the tail), 0 elsewhere', () => {
    const expected = new Map(c.confidences);
    for (let i = c.warmup; i < stream.length; i++) {
      const got = Number(results[i].evt_anomaly_confidence);
      const want = expected.get(i);
      if (want === undefined) expect(got).toBe(0);
      else expectRelative(1 - got, 1 - want, 1e-6, 1e-12, `tail probability at ${i}`);
      expect(got >= 0 && got <= 1).toBe(true);
    }
  });

  test('the same final fit and counts', () => {
    const s = wrapper.state();
    expect([s.n, s.exceedances, s.peaks.length]).toEqual([c.final.n, c.final.exceedances, c.final.kept]);
    expectRelative(s.t, c.final.t, 1e-12, 1e-12, 't');
    expectRelative(s.gamma, c.final.gamma, 1e-6, 1e-6, 'gamma');
    expectRelative(s.sigma, c.final.sigma, 1e-6, 1e-12, 'sigma');
    expectRelative(s.z, c.final.z, 1e-6, 1e-12, 'z');
  });

  test('a restart from the JSON state continues exactly as without one', () => {
    const half = Math.floor(stream.length * 0.6);
    const first = new EvtWrapper(c.params);
    for (const x of stream.slice(0, half)) first.update(x);
    const restarted = EvtWrapper.restore(JSON.parse(JSON.stringify(first.state())));
    expect(stream.slice(half).map((x) => restarted.update(x))).toEqual(results.slice(half));
    expect(restarted.state()).toEqual(wrapper.state());
  });
});

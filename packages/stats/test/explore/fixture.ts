import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DataFrame, Summary, type SummaryOptions } from '@sml/stats';
import { type DensityResult, explore, type ExploreMetric, type MetricMap } from '../../src/explore';
import { expectClose } from '../helpers';

/** A fixture number; "NaN" stands for NaN (JSON has none). */
export type Value = number | 'NaN';

export interface Case {
  metric: ExploreMetric;
  inputs: string[];
  targets: string[];
  extra: Record<string, string>;
  /** Learn with (exact) histograms and explore with `histograms: true`. */
  histograms: boolean;
  expected: Record<string, Value>[];
}

export interface ExpectedDensity {
  attrName: string;
  min: number;
  max: number;
  width: number;
  histogram: number[];
  valueForMissing: number;
}

export interface DensityCase {
  attribute: string;
  /** The binary condition c of a conditional density, or null. */
  condition: string | null;
  bins: number;
  normalized: boolean;
  expected: ExpectedDensity;
}

export interface Fixture {
  frame: DataFrame;
  cases: Case[];
  densities: DensityCase[];
}

export const FIXTURES = ['explore_random.json', 'explore_iris.json'];

/** STATS.md: closed forms and p-values (see distributions.test.ts for the special functions) to 1e-9 relative. */
export const TOLERANCE = 1e-9;

export function load<T = Fixture>(name: string): T {
  return JSON.parse(readFileSync(join(__dirname, 'fixtures', name), 'utf8')) as T;
}

export function value(v: Value): number {
  return v === 'NaN' ? NaN : v;
}

export function learned(frame: DataFrame, options: SummaryOptions = {}): Summary {
  const summary = new Summary(options);
  summary.learn(frame);
  return summary;
}

function indexes(summary: Summary, names: readonly string[]): number[] {
  return names.map((name) => {
    const i = summary.indexOf(name);
    if (i < 0) throw new Error(`fixture names unknown attribute ${name}`);
    return i;
  });
}

export function run(summary: Summary, c: Case, histograms = c.histograms): MetricMap[] {
  return explore(summary, c.metric, { inputs: indexes(summary, c.inputs), targets: indexes(summary, c.targets), extra: c.extra }, { histograms });
}

export function describeCase(c: Case): string {
  const extra = Object.entries(c.extra).map(([k, v]) => `${k}=${v}`);
  return `${c.metric} [${c.inputs.join(', ')}]${c.targets.length > 0 ? ` → [${c.targets.join(', ')}]` : ''}${extra.length > 0 ? ` ${extra.join(' ')}` : ''}${c.histograms ? ' (histograms)' : ''}`;
}

/** Same maps, same keys in the same order, every value within `tolerance` relative (NaN where NaN). */
export function expectMaps(actual: MetricMap[], expected: Record<string, Value>[], tolerance = TOLERANCE, what = ''): void {
  expect(actual.map((m) => Object.keys(m))).toEqual(expected.map((m) => Object.keys(m)));
  expected.forEach((m, k) => {
    for (const [key, v] of Object.entries(m)) expectClose(actual[k][key], value(v), tolerance, 0, `${what} ${key}`);
  });
}

/** The cases of one metric family, per fixture. */
export function casesOf(fixture: Fixture, metrics: readonly ExploreMetric[]): [string, Case][] {
  return fixture.cases.filter((c) => metrics.includes(c.metric)).map((c) => [describeCase(c), c]);
}

export function expectDensity(actual: DensityResult, expected: ExpectedDensity, tolerance = TOLERANCE): void {
  expect(actual.attrName).toBe(expected.attrName);
  expect(actual.histogram).toHaveLength(expected.histogram.length);
  expectClose(actual.min, expected.min, tolerance, 0, 'min');
  expectClose(actual.max, expected.max, tolerance, 0, 'max');
  expectClose(actual.width, expected.width, tolerance, 0, 'width');
  expectClose(actual.valueForMissing, expected.valueForMissing, tolerance, 0, 'valueForMissing');
  actual.histogram.forEach((h, j) => expectClose(h, expected.histogram[j], tolerance, 0, `histogram[${j}]`));
}

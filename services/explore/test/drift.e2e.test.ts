import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SmlClient } from '@sml/sdk';
import { newCustomer, sharedSystem } from '@sml/testkit';

// Expected values: scipy ks_2samp / kstwobign / jensenshannon and numpy closed forms on the same
// rows (packages/stats/test/explore/fixtures/gen_drift.py). Both projects keep exact histograms,
// on which every metric is exact.
interface Fixture {
  baseline: { attributeNames: string[]; attributeTypes: string[]; data: string[][] };
  analyses: Record<string, Fixture['baseline']>;
  cases: { label: string; metric: string; attributes: string[]; options: { pcaComponents?: number }; expected: Record<string, number> }[];
}
const fixture = JSON.parse(readFileSync(join(__dirname, '../../../packages/stats/test/explore/fixtures/drift.json'), 'utf8')) as Fixture;
type Answer = { statusCode: number; statusString: string; values: { KSVDMap?: { values: Record<string, number | string>[] }; approximate?: string[][] } };

describe('dataDrift end to end', () => {
  let alice: SmlClient;
  let user: string;
  const drift = async (extra: Record<string, string>, names: string[] = []) =>
    (await alice.request('POST', '/projects/dataDrift', { json: { inputAttributeNames: names, extraParameters: { driftPreferenceProjectName: 'base', driftAnalysisProjectName: 'now', ...extra } } })).body as Answer;

  beforeAll(async () => {
    ({ sdk: alice, user } = await newCustomer(await sharedSystem(), 'alice'));
    for (const [pid, frame] of [['base', fixture.baseline], ['now', fixture.analyses.shifted]] as const) {
      await alice.createProject(pid, { enableHistogram: true, histogramType: 'exact' });
      expect((await alice.learn(pid, { ...frame, errorHandling: 0 })).status).toBe(200);
    }
  });
  afterAll(() => alice?.close());

  it.each(fixture.cases.filter((c) => c.label === 'shifted').map((c) => [`${c.metric}${c.options.pcaComponents ? ` k=${c.options.pcaComponents}` : ''}`, c] as const))('%s equals scipy/numpy on the rows', async (_, c) => {
    const extra: Record<string, string> = { driftMetric: c.metric, ...(c.options.pcaComponents ? { pca_num_components: String(c.options.pcaComponents) } : {}) };
    const r = await drift(extra, c.attributes);
    expect(r.statusCode).toBe(200);
    const map = r.values.KSVDMap!.values[0];
    expect(Object.keys(map).sort()).toEqual(Object.keys(c.expected).sort());
    for (const [key, expected] of Object.entries(c.expected)) expect(Math.abs(Number(map[key]) - expected)).toBeLessThanOrEqual(1e-9 * Math.max(Math.abs(expected), 1e-3));
  });

  it('without attribute names, every attribute both projects have', async () => {
    const r = await drift({ driftMetric: 'marginal_non_stat' });
    expect(Object.keys(r.values.KSVDMap!.values[0])).toEqual(['driftScore', 'x1_drift', 'x2_drift', 'x3_drift', 'b_drift']);
  });

  it('streaming histograms mark the binned marginal keys approximate; exact ones carry no mark', async () => {
    for (const [pid, frame] of [['sbase', fixture.baseline], ['snow', fixture.analyses.shifted]] as const) {
      await alice.createProject(pid, { enableHistogram: true });
      expect((await alice.learn(pid, { ...frame, errorHandling: 0 })).status).toBe(200);
    }
    const r = await drift({ driftMetric: 'marginal_stat', driftPreferenceProjectName: 'sbase', driftAnalysisProjectName: 'snow' }, ['x1', 'b']);
    expect(r.values.approximate).toEqual([['driftScore', 'x1_drift', 'x1_pvalue']]);
    expect('approximate' in (await drift({ driftMetric: 'marginal_stat' }, ['x1', 'b'])).values).toBe(false);
  });

  it.each([
    ['an unknown project, named', { driftAnalysisProjectName: 'gone', driftMetric: 'global' }, [], (): string => `Cannot Find Project id[gone] for Customer id [${user}]`],
    ['an unknown metric', { driftMetric: 'psi' }, [], (): string => 'Unknown drift metric [psi]'],
    ['an attribute missing in a project', { driftMetric: 'global' }, ['x1', 'nope'], (): string => 'Unknown attribute [nope] in project [base]'],
    ['a rolling-window project', { driftMetric: 'global', rolling_window_embedded_project: 'true' }, [], (): string => 'Rolling-window projects are not supported'],
  ])('%s → 400', async (_what, extra, names, message) => {
    expect(await drift(extra, names)).toEqual({ statusCode: 400, statusString: message(), values: {} });
  });
});

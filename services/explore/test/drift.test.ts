/**
 * dataDrift's domain module without NATS: what the request must carry, which attributes are
 * compared, which sub-summaries are read, and the 400s. The metrics themselves are tested
 * against scipy/numpy in packages/stats (test/explore/drift.test.ts); the route end to end in
 * drift.e2e.test.ts.
 */
import { parameterBounds, SmlError } from '@sml/core';
import { sml } from '@sml/proto';
import { Summary, type DataFrame } from '@sml/stats';
import { driftMap, driftQuery } from '../src/drift';
import type { ProjectView, SummarySource } from '../src/summaries';

const bounds = parameterBounds({
  SML_MAX_SEQUENCE_ORDER: 10, SML_MAX_HISTOGRAM_BINS: 10_000, SML_MAX_SELECTION_CANDIDATES: 10_000,
  SML_MAX_ITERATIONS: 100_000, SML_MAX_CENTROIDS: 10_000, SML_MAX_EVT_WINDOW: 1_000_000,
});

function learned(names: string[], types: string[], data: string[][]): Summary {
  const s = new Summary({ histogram: 'exact' });
  const frame: DataFrame = { attributeNames: names, attributeTypes: types, data, errorHandling: 0 };
  s.learn(frame);
  return s;
}

/** What the projects service answers for one project; `asked` records the sub-summaries requested. */
function source(summary: Summary, asked: number[][] = []): SummarySource {
  const meta = sml.v1.ProjectMeta.fromObject({ histogramEnabled: true });
  const whole: ProjectView = { summary, bytes: summary.serialize(), meta };
  return {
    schema: () => Promise.resolve({ attributeNames: summary.attributeNames, attributeTypes: summary.attributeTypes, indexOf: (n) => summary.indexOf(n), meta, etag: 'e' }),
    restricted: (indexes) => {
      asked.push([...indexes]);
      const sub = summary.restrict(indexes);
      return Promise.resolve({ summary: sub, bytes: sub.serialize(), meta, projectIndexes: [...indexes] });
    },
    project: () => Promise.resolve(whole),
  };
}

async function errorOf(fn: () => unknown): Promise<{ code: string; message: string }> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof SmlError) return { code: err.code, message: err.message };
    throw err;
  }
  return { code: 'none', message: '' };
}

const extra = (more: Record<string, string> = {}) => ({ driftPreferenceProjectName: 'base', driftAnalysisProjectName: 'now', driftMetric: 'marginal_stat', ...more });
const base = learned(['a', 'x', 'y', 'b'], ['C', 'C', 'C', 'B'], [['9', '1', '2', '0'], ['9', '2', '4', '1'], ['9', '3', '5', '0'], ['9', '4', '9', '1']]);
const now = learned(['y', 'x', 'b', 'z'], ['C', 'C', 'B', 'C'], [['1', '2', '1', '0'], ['3', '5', '1', '1'], ['4', '6', '0', '0'], ['8', '7', '1', '2']]);

describe('dataDrift request', () => {
  it('names both projects and a known metric; rolling-window projects are refused first', async () => {
    expect(driftQuery({ extraParameters: extra({ pca_num_components: '2' }), inputAttributeNames: ['x'] }, bounds)).toEqual({
      baseline: 'base', analysis: 'now', metric: 'marginal_stat', names: ['x'], indexes: [], pcaComponents: 2,
    });
    expect(await errorOf(() => driftQuery({ extraParameters: extra({ driftMetric: 'psi' }) }, bounds))).toEqual({ code: 'UNKNOWN_DRIFT_METRIC', message: 'Unknown drift metric [psi]' });
    expect(await errorOf(() => driftQuery({ extraParameters: extra({ driftMetric: 'psi', rolling_window_embedded_project: 'true' }) }, bounds))).toEqual({
      code: 'ROLLING_WINDOW_UNSUPPORTED', message: 'Rolling-window projects are not supported',
    });
    expect((await errorOf(() => driftQuery({ extraParameters: { driftMetric: 'global', driftAnalysisProjectName: 'now' } }, bounds))).message).toContain('[driftPreferenceProjectName]');
    expect((await errorOf(() => driftQuery({ extraParameters: extra({ pca_num_components: '0' }) }, bounds))).code).toBe('INVALID_PARAMETER');
  });
});

describe('dataDrift attributes', () => {
  it('without names: every attribute both projects have, in the baseline order; only their sub-summaries are read', async () => {
    const asked: number[][] = [];
    const { map, approximate } = await driftMap(source(base, asked), source(now, asked), driftQuery({ extraParameters: extra() }, bounds), 500);
    expect(Object.keys(map)).toEqual(['driftScore', 'x_drift', 'x_pvalue', 'y_drift', 'y_pvalue', 'b_drift', 'b_pvalue']);
    expect(asked).toEqual([[1, 2, 3], [0, 1, 2]]);
    expect(approximate).toEqual([]);
  });

  it('a named attribute missing in either project is a 400 naming that project; none in common is a 400', async () => {
    const q = (names: string[], indexes: string[] = []) => ({ ...driftQuery({ extraParameters: extra(), inputAttributeNames: names }, bounds), indexes });
    expect(await errorOf(() => driftMap(source(base), source(now), q(['x', 'a']), 500))).toEqual({ code: 'UNKNOWN_ATTRIBUTE', message: 'Unknown attribute [a] in project [now]' });
    expect(await errorOf(() => driftMap(source(base), source(now), q(['z']), 500))).toEqual({ code: 'UNKNOWN_ATTRIBUTE', message: 'Unknown attribute [z] in project [base]' });
    expect(await errorOf(() => driftMap(source(base), source(now), q([], ['7']), 500))).toEqual({ code: 'UNKNOWN_ATTRIBUTE', message: 'Unknown attribute [7] in project [base]' });
    const other = learned(['q'], ['C'], [['1'], ['2']]);
    expect(await errorOf(() => driftMap(source(base), source(other), q([]), 500))).toEqual({ code: 'EXPLORE_INPUT', message: 'Projects [base] and [now] have no attribute in common' });
  });

  it('matrix metrics compare at most the sub-summary bound of attributes', async () => {
    const q = driftQuery({ extraParameters: extra({ driftMetric: 'global' }) }, bounds);
    expect((await errorOf(() => driftMap(source(base), source(now), q, 2))).message).toBe('Drift metric [global] compares at most 2 attributes (SML_MAX_SUMMARY_ATTRIBUTES), got 3');
    // The marginal metrics read the whole summaries past the bound instead.
    expect(Object.keys((await driftMap(source(base), source(now), { ...q, metric: 'marginal_non_stat' }, 2)).map)).toHaveLength(4);
  });

  it('a streaming histogram marks the binned keys and the score approximate', async () => {
    const streaming = new Summary({ histogram: 'streaming' });
    streaming.learn({ attributeNames: ['x', 'b'], attributeTypes: ['C', 'B'], data: [['1.5', '0'], ['2.25', '1']], errorHandling: 0 });
    const { approximate } = await driftMap(source(base), source(streaming), driftQuery({ extraParameters: extra() }, bounds), 500);
    expect(approximate).toEqual(['driftScore', 'x_drift', 'x_pvalue']);
  });
});

/**
 * The explore service's domain modules without NATS: what each endpoint checks before any
 * work, and how its result is shaped. The numerics are packages/stats' (tested there); the
 * endpoints end to end are explore.e2e.test.ts.
 */
import { answeringDomainErrors, parameterBounds, SmlError } from '@sml/core';
import { sml } from '@sml/proto';
import { Summary, type DataFrame } from '@sml/stats';
import { densityTasks } from '../src/density';
import { checkMatrixEntries, matrixAttributes, matrixJobResult, matrixJobType } from '../src/matrix';
import { exploreContexts, exploreMaps, exploreMetric } from '../src/metrics';
import { SummaryCache, type ProjectSchema, type ProjectView, type SummarySource } from '../src/summaries';
import type { BusClient } from '@sml/bus';
import { checkKmQueries, cumulativeIncidenceResults, kaplanMeierResults, survivalCounts } from '../src/survival';

const bounds = parameterBounds({
  SML_MAX_SEQUENCE_ORDER: 10, SML_MAX_HISTOGRAM_BINS: 10_000, SML_MAX_SELECTION_CANDIDATES: 10_000,
  SML_MAX_ITERATIONS: 100_000, SML_MAX_CENTROIDS: 10_000, SML_MAX_EVT_WINDOW: 1_000_000,
});

const frame = (attributeNames: string[], attributeTypes: string[], data: string[][]): DataFrame => ({ attributeNames, attributeTypes, data, errorHandling: 0 });

function view(summary: Summary, meta: sml.v1.IProjectMeta = {}): ProjectView {
  return { summary, bytes: summary.serialize(), meta: sml.v1.ProjectMeta.fromObject({ pid: 'p', user: 'alice', categorySeparator: '$', ...meta }) };
}

/** The project's attribute table, as the projects service answers it. */
function schemaOf(v: ProjectView): ProjectSchema {
  return { attributeNames: v.summary.attributeNames, attributeTypes: v.summary.attributeTypes, indexOf: (n) => v.summary.indexOf(n), meta: v.meta, etag: 'e' };
}

/** What the projects service answers, from a summary in memory; `asked` records the sub-summaries requested. */
function source(v: ProjectView, asked: number[][] = []): SummarySource {
  const schema = schemaOf(v);
  return {
    schema: () => Promise.resolve(schema),
    restricted: (indexes) => {
      asked.push([...indexes]);
      const summary = v.summary.restrict(indexes);
      return Promise.resolve({ summary, bytes: summary.serialize(), meta: v.meta, projectIndexes: [...indexes] });
    },
    project: () => Promise.resolve(v),
  };
}

function numbers(): Summary {
  const s = new Summary({ categorySeparator: '$' });
  s.learn(frame(['x', 'y', 'z'], ['C', 'C', 'C'], [['1', '2', '5'], ['2', '4', '1'], ['3', '7', '2'], ['4', '8', '9']]));
  return s;
}

function survival(): Summary {
  const s = new Summary({ km_time_column: 'time', km_event_column: 'event', km_group_column: 'arm' });
  s.learn(frame(['time', 'event', 'arm'], ['C', 'C', 'T'], [['1', '1', 'A'], ['2', '0', 'a'], ['3', '1', 'B'], ['4', '2', 'b']]));
  return s;
}

/** The catalogue code a call fails with. */
async function codeOf(fn: () => unknown): Promise<string> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof SmlError) return err.code;
    throw err;
  }
  return 'none';
}

describe('metrics', () => {
  it('an unknown metric is refused before anything else', async () => {
    expect(await codeOf(() => exploreMetric('median'))).toBe('BAD_METRIC');
    expect(exploreMetric('uni')).toBe('uni');
  });

  it('the one-sample metrics need their known value in every context', async () => {
    const context = { values: [{ inputAttributeNames: ['x'], extraParameters: { sml_explore_ztest_known_mu: '1' } }, { inputAttributeNames: ['y'] }] };
    expect(await codeOf(() => exploreContexts('ztestmu', context, bounds))).toBe('MISSING_KNOWN_VALUE');
    expect(exploreContexts('uni', context, bounds)).toHaveLength(2);
  });

  it('parameters over their bound are refused (400 naming them)', async () => {
    expect(await codeOf(() => exploreContexts('uni', { values: [{ extraParameters: { hist_bins: '10001' } }] }, bounds))).toBe('INVALID_PARAMETER');
  });

  it('one map per context; an unknown attribute is a 400 naming it', async () => {
    const asked: number[][] = [];
    const { maps } = await exploreMaps(source(view(numbers()), asked), 'uni', [{ inputAttributeNames: ['x'] }, { inputAttributeNames: ['z'] }], 'p', 500);
    expect(maps).toHaveLength(2);
    expect(maps[0]).toEqual(expect.objectContaining({ mean: 2.5 }));
    expect(maps[1]).toEqual(expect.objectContaining({ mean: 4.25 }));
    expect(asked).toEqual([[0, 2]]);
    expect(await codeOf(() => exploreMaps(source(view(numbers())), 'uni', [{ inputAttributeNames: ['nope'] }], 'p', 500))).toBe('UNKNOWN_ATTRIBUTE');
  });

  it('reads the sub-summary of the attributes used, with every level of a categorical named; chi2 names cells by project index', async () => {
    const s = new Summary({ categorySeparator: '$' });
    s.learn(frame(['x', 'color', 'b', 'c'], ['C', 'T', 'B', 'B'], [['1', 'red', '1', '0'], ['2', 'blue', '0', '1'], ['3', 'red', '1', '1'], ['4', 'green', '0', '0'], ['5', 'blue', '1', '0']]));
    const full = async (ctx: sml.v1.IMLContext, metric: 'chi2' | 'bi') => (await exploreMaps(source(view(s)), metric, [ctx], 'p', 0)).maps;
    const asked: number[][] = [];
    const sub = async (ctx: sml.v1.IMLContext, metric: 'chi2' | 'bi') => (await exploreMaps(source(view(s), asked), metric, [ctx], 'p', 500)).maps;
    const contingency = { inputAttributeNames: ['b', 'c'], targetAttributeNames: ['color$red', 'color$blue'] };
    expect(await sub(contingency, 'chi2')).toEqual(await full(contingency, 'chi2'));
    expect(Object.keys((await sub(contingency, 'chi2'))[0])).toContain(`obs$${s.indexOf('b')}:${s.indexOf('color$red')}`);
    // color$green is read too: a level's column is read whole.
    expect(asked[0]).toEqual(['color$red', 'color$blue', 'color$green', 'b', 'c'].map((n) => s.indexOf(n)).sort((a, b) => a - b));
    const pair = { inputAttributeNames: ['x', 'c'] };
    expect(await sub(pair, 'bi')).toEqual(await full(pair, 'bi'));
  });

  it('more attributes than a sub-summary may name are read from the whole summary', async () => {
    const asked: number[][] = [];
    const { maps } = await exploreMaps(source(view(numbers()), asked), 'bi', [{ inputAttributeNames: ['x', 'y'] }], 'p', 1);
    expect(asked).toEqual([]);
    expect(maps[0]).toEqual(expect.objectContaining({ covar: expect.any(Number) }));
  });
});

describe('summary cache', () => {
  /** A projects service answering from `s` under etag `etag.value`; counts what it was asked. */
  function projectsOf(s: Summary, etag: { value: string }) {
    const asked: string[] = [];
    const client = {
      request: (_service: string, _subject: string, _type: unknown, req: sml.v1.ISummaryRequest) => {
        const kind = req.schema ? 'schema' : req.restricted ? `sub ${(req.indexes ?? []).join(',')}` : 'full';
        const notModified = req.ifNoneMatch === etag.value;
        asked.push(`${kind}${notModified ? ' (not modified)' : ''}`);
        const reply: sml.v1.ISummaryReply = { etag: etag.value, meta: { categorySeparator: '$' }, notModified };
        if (!notModified && req.schema) Object.assign(reply, { attributeNames: s.attributeNames, attributeTypes: s.attributeTypes });
        if (!notModified && req.restricted) Object.assign(reply, { summary: s.restrict(req.indexes ?? []).serialize(), attributeIndexes: req.indexes });
        if (!notModified && req.full) reply.summary = s.serialize();
        return Promise.resolve(reply);
      },
    } as unknown as BusClient;
    return { client, asked };
  }
  const caller = { user: 'alice', root: false, requestId: 't' };

  it('a sub-summary read under the etag the attribute table was just revalidated with is not asked for again', async () => {
    const etag = { value: 'a' };
    const { client, asked } = projectsOf(numbers(), etag);
    const cache = new SummaryCache(client);
    const read = async () => (await cache.restricted(caller, 'p', [0, 2], await cache.schema(caller, 'p'))).summary.attributeNames;
    expect(await read()).toEqual(['x', 'z']);
    expect(await read()).toEqual(['x', 'z']);
    etag.value = 'b';
    await read();
    expect(asked).toEqual(['schema', 'sub 0,2', 'schema (not modified)', 'schema', 'sub 0,2']);
  });

  it('holds at most its byte budget, the least recently used going first', async () => {
    const s = numbers();
    const { client, asked } = projectsOf(s, { value: 'a' });
    // Room for two sub-summaries of one attribute (each counted twice: its bytes and the summary read from them) and the table.
    const one = s.restrict([0]).serialize().length;
    const cache = new SummaryCache(client, 5 * one);
    const schema = await cache.schema(caller, 'p');
    for (const i of [0, 1, 0, 2, 0, 1]) await cache.restricted(caller, 'p', [i], schema);
    expect(asked.filter((a) => a.startsWith('sub'))).toEqual(['sub 0', 'sub 1', 'sub 2', 'sub 1']);
  });
});

describe('density', () => {
  const where = { pid: 'p', user: 'alice' };

  it('needs histograms on', async () => {
    expect(await codeOf(() => densityTasks(schemaOf(view(numbers(), { histogramEnabled: false })), { values: [] }, 1, where, bounds))).toBe('HISTOGRAMS_DISABLED');
  });

  it('a density names one attribute, a conditional density [conditional, target]', async () => {
    const on = schemaOf(view(numbers(), { histogramEnabled: true }));
    expect(densityTasks(on, { values: [{ inputAttributeNames: ['y'] }] }, 1, where, bounds)).toEqual([{ attribute: 1, bins: 20, normalized: false }]);
    expect(densityTasks(on, { values: [{ inputAttributeNames: ['x', 'z'], extraParameters: { hist_bins: '5', hist_is_normalized: 'true' } }] }, 2, where, bounds))
      .toEqual([{ attribute: 2, given: 0, bins: 5, normalized: true }]);
    expect(await codeOf(() => densityTasks(on, { values: [{ inputAttributeNames: ['x', 'y'] }] }, 1, where, bounds))).toBe('GENERIC_EXCEPTION');
    expect(await codeOf(() => densityTasks(on, { values: [{ inputAttributeNames: ['x'], extraParameters: { hist_bins: '0' } }] }, 1, where, bounds))).toBe('INVALID_PARAMETER');
  });
});

describe('matrix', () => {
  it('checks inputs and the svdfs target before a job is created', async () => {
    expect(await codeOf(() => checkMatrixEntries('svdfs', [{ inputAttributeNames: ['x', 'y'] }]))).toBe('SVD_NO_TARGET');
    expect(await codeOf(() => checkMatrixEntries('pca', [{ inputAttributeNames: ['x'] }]))).toBe('EXPLORE_INPUT');
    expect(await codeOf(() => checkMatrixEntries('pca', [{ inputAttributeNames: ['x'], inputAttributes: ['1'] }]))).toBe('none');
  });

  /** What a matrix worker computes, its domain errors as the service answers them. */
  const matrixResult = (kind: string, v: ProjectView, ctx: sml.v1.IMLContext[], pid: string) =>
    answeringDomainErrors({ pid }, () => matrixJobResult(kind, v.summary, v.meta.categorySeparator || '$', ctx, pid));

  it('job types by kind; an unknown kind fails the job', async () => {
    expect(['svdfs', 'pca', 'svd', 'vif', 'qr'].map(matrixJobType)).toEqual(['exploreSvdFs', 'explorePca', 'exploreSvd', 'vif', 'qr']);
    expect(await codeOf(() => matrixResult('qr', view(numbers()), [{ inputAttributeNames: ['x', 'y'] }], 'p'))).toBe('INVALID_PARAMETER');
  });

  it('each kind answers its own message type', async () => {
    const ctx = [{ inputAttributeNames: ['x', 'y', 'z'] }];
    expect((await matrixResult('pca', view(numbers()), ctx, 'p')).typeName).toBe('sml.v1.PcaResult');
    expect((await matrixResult('svd', view(numbers()), ctx, 'p')).typeName).toBe('sml.v1.SvdResult');
    const vif = await matrixResult('vif', view(numbers()), ctx, 'p');
    expect(vif.typeName).toBe('sml.v1.VifResult');
    expect(Object.keys(sml.v1.VifResult.decode(vif.payload!).KSVDMap!.values![0].entries!)).toEqual(['x', 'y', 'z']);
  });

  it('svdfs resolves attributes only in the job, failing it with the seed\'s 500', async () => {
    expect(await codeOf(() => matrixResult('svdfs', view(numbers()), [{ inputAttributeNames: ['x', 'nope'], targetAttributeNames: ['z'] }], 'p'))).toBe('GENERIC_EXCEPTION');
    expect(await codeOf(() => matrixResult('pca', view(numbers()), [{ inputAttributeNames: ['x', 'nope'] }], 'p'))).toBe('UNKNOWN_ATTRIBUTE');
    expect(await codeOf(() => matrixAttributes('svdfs', schemaOf(view(numbers())), [{ inputAttributeNames: ['x', 'nope'], targetAttributeNames: ['z'] }], 'p'))).toBe('GENERIC_EXCEPTION');
    expect(await codeOf(() => matrixAttributes('pca', schemaOf(view(numbers())), [{ inputAttributeNames: ['x', 'nope'] }], 'p'))).toBe('UNKNOWN_ATTRIBUTE');
  });

  it('on the sub-summary of the attributes named (by index, name or categorical base), each kind answers as on the whole summary', async () => {
    const s = new Summary({ categorySeparator: '$' });
    s.learn(frame(['x', 'w', 'color', 'y', 'z'], ['C', 'C', 'T', 'C', 'C'], [
      ['1', '9', 'red', '2', '5'], ['2', '7', 'blue', '4', '1'], ['3', '3', 'red', '7', '2'], ['4', '1', 'green', '8', '9'], ['5', '2', 'blue', '3', '3'], ['6', '5', 'red', '1', '4'],
    ]));
    const whole = view(s);
    const ctx = [{ inputAttributes: [String(s.indexOf('z'))], inputAttributeNames: ['color', 'x'], targetAttributeNames: ['y'] }];
    const { needed, contexts } = matrixAttributes('svdfs', schemaOf(whole), ctx, 'p');
    expect(needed).toEqual(['x', 'color$red', 'color$blue', 'color$green', 'y', 'z'].map((n) => s.indexOf(n)).sort((a, b) => a - b));
    const restricted = s.restrict(needed);
    const sub: ProjectView = { summary: restricted, bytes: restricted.serialize(), meta: whole.meta };
    for (const kind of ['svdfs', 'pca', 'svd', 'vif']) {
      expect((await matrixResult(kind, sub, contexts, 'p')).payload).toEqual((await matrixResult(kind, whole, ctx, 'p')).payload);
    }
  });
});

describe('survival', () => {
  it('checks the queries before reading the project', async () => {
    expect(await codeOf(() => checkKmQueries([{ type: 'hazard' }]))).toBe('KM_TYPE');
    expect(await codeOf(() => checkKmQueries([{ type: 'survival', alpha: 1 }]))).toBe('KM_ALPHA');
    expect(await codeOf(() => checkKmQueries([{ type: 'survival', alpha: 0.1 }]))).toBe('none');
  });

  it('a project without survival counts is refused', async () => {
    expect(await codeOf(() => survivalCounts(view(numbers()), 'p'))).toBe('NOT_SURVIVAL');
  });

  it('Kaplan-Meier without a group: every group and Total; with one: that group, trimmed and lower-cased', async () => {
    const counts = survivalCounts(view(survival()), 'p');
    const [all, one] = await kaplanMeierResults(counts, [{ type: 'survival', times: [1, 3] }, { type: 'survival', group: ' B ', times: [3] }]);
    expect(Object.keys(all.entries!)).toEqual(['a', 'b', 'Total']);
    expect(all.entries!.Total.attributeNames).toEqual(['time', 'survival', 'lower', 'upper', 'atRisk', 'events']);
    expect(all.entries!.Total.data!.map((r) => r.entries![4])).toEqual(['4', '2']); // atRisk
    expect(Object.keys(one.entries!)).toEqual(['b']);
    expect(await codeOf(() => kaplanMeierResults(counts, [{ type: 'survival', group: 'c', times: [1] }]))).toBe('SURVIVAL_INPUT');
  });

  it('cumulative incidence names the pooled curve Total and its column after the event type', async () => {
    const counts = survivalCounts(view(survival()), 'p');
    const [pooled, group] = await cumulativeIncidenceResults(counts, [{ k: 2, times: [4] }, { group: 'A', times: [1] }]);
    expect(pooled.sdfmap!.Total.attributeNames).toEqual(['time', 'event_2']);
    expect(pooled.sdfmap!.Total.data![0].entries).toEqual(['4', '0.375']); // S(4−)·d₂/n = (3/4 · 1/2) · 1/1
    expect(Object.keys(group.sdfmap!)).toEqual(['a']);
  });
});

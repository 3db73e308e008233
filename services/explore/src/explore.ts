import { executorOf, JobRunner, jobResult, okStatus, subjects, type ServiceRuntime } from '@sml/bus';
import { checkName, checkParameters, parameterBounds, smlError } from '@sml/core';
import { sml } from '@sml/proto';
import {
  EXPLORE_METRICS, type ExploreMetric, cumulativeIncidence, explore,
  kaplanMeier, pca, svd, svdFeatureSelection, vif, type Summary,
} from '@sml/stats';
import { DensityPool } from './density-pool';
import type { DensityTask } from './density-task';
import { domain } from './errors';
import { numberFrame } from './frames';
import { resolveContext } from './resolve';
import { fetchInfo, SummaryCache, type ProjectView } from './summaries';

/** Metrics whose known value must be in extraParameters (API.md §6). */
const KNOWN_VALUE: Partial<Record<ExploreMetric, string>> = {
  ztestmu: 'sml_explore_ztest_known_mu',
  ttestmu: 'sml_explore_ttest_known_mu',
  ftestsigma: 'sml_explore_ftest_known_sigma',
};

const positiveInt = (name: string, value: string | undefined, fallback: number): number => {
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) throw smlError('INVALID_PARAMETER', { name, value, reason: 'expected an integer greater than 0' });
  return Number(value);
};

/**
 * The explore service (API.md §6 and §8): stateless; every request reads the project's
 * summary from `projects` and computes with packages/stats.
 */
export async function startExplore({ nc, service, client, config, log }: ServiceRuntime): Promise<{ onStop: () => Promise<void> }> {
  const densityPool = new DensityPool();
  const runner = new JobRunner(nc, client, executorOf('explore', config), 'explore', log);
  runner.start();
  const summaries = new SummaryCache(client);
  const project = (caller: sml.v1.ICaller, pid: string) => summaries.project(caller, pid);
  const bounds = parameterBounds(config);
  /** A request's MLContexts, their numeric extraParameters checked against their bounds. */
  const contexts = (c: sml.v1.IExploreContext | null | undefined) => {
    const values = c?.values ?? [];
    for (const ctx of values) checkParameters(ctx.extraParameters, bounds);
    return values;
  };
  const resolve = (view: ProjectView, ctx: sml.v1.IMLContext, pid: string) => resolveContext(view.summary, ctx, pid, view.meta.categorySeparator || '$');

  service.endpoint(subjects.explore.run, sml.v1.ExploreRequest, sml.v1.ExploreReply, async (req, { caller }) => {
    const metric = req.metric as ExploreMetric;
    if (!(EXPLORE_METRICS as readonly string[]).includes(metric)) throw smlError('BAD_METRIC', { metric: req.metric });
    const pid = checkName('project', req.pid);
    const key = KNOWN_VALUE[metric];
    for (const ctx of contexts(req.context)) if (key && !(key in (ctx.extraParameters ?? {}))) throw smlError('MISSING_KNOWN_VALUE', { metric, key });

    const run = async (): Promise<sml.v1.IExploreReply> => {
      const view = await project(caller, pid);
      const maps = await domain(() => contexts(req.context).flatMap((ctx) =>
        explore(view.summary, metric, { ...resolve(view, ctx, pid), extra: ctx.extraParameters ?? {} }, { histograms: view.meta.histogramEnabled })));
      return {
        KSVDMap: { values: maps.map((entries) => ({ entries })) },
        ...(req.returnProjectInfo ? { smlInfo: await fetchInfo(client, caller, pid) } : {}),
      };
    };
    if (!req.async) return run();
    const jobId = await runner.submit(caller, 'explore', { p_id: pid }, async () => jobResult(sml.v1.ExploreReply, { status: okStatus(), ...(await run()) }));
    return { status: okStatus('JOB_CREATED'), jobId };
  });

  const densityEndpoint = (op: 'density' | 'conditionalDensity', arity: 1 | 2) =>
    service.endpoint(subjects.explore[op], sml.v1.DensityRequest, sml.v1.DensityReply, async (req, { caller }) => {
      const pid = checkName('project', req.pid);
      if (req.noValues) return { densityList: { values: [] } };
      const view = await project(caller, pid);
      if (!view.meta.histogramEnabled) throw smlError('HISTOGRAMS_DISABLED', { pid, user: caller.user });
      const tasks = contexts(req.context).map((ctx): DensityTask => {
        const names = ctx.inputAttributeNames ?? [];
        if (names.length !== arity) {
          throw smlError('GENERIC_EXCEPTION', { detail: `There should be ${arity} and only ${arity} attribute${arity === 1 ? '' : 's'} specified [${names.length}]` });
        }
        const [a, b] = names.map((n) => indexOf(view.summary, n, pid));
        const extra = ctx.extraParameters ?? {};
        const opts = { bins: positiveInt('hist_bins', extra.hist_bins, 20), normalized: extra.hist_is_normalized === 'true' };
        return arity === 1 ? { attribute: a, ...opts } : { attribute: b, given: a, ...opts };
      });
      const values = await domain(() => densityPool.run(view.summary, view.bytes, tasks, req.tps || 10));
      return { densityList: { values } };
    });
  densityEndpoint('density', 1);
  densityEndpoint('conditionalDensity', 2);

  service.endpoint(subjects.explore.matrix, sml.v1.MatrixRequest, sml.v1.MatrixReply, async (req, { caller }) => {
    const pid = checkName('project', req.pid);
    const kind = req.kind ?? '';
    const entries = contexts(req.context);
    for (const ctx of entries) {
      const inputs = (ctx.inputAttributes?.length ?? 0) + (ctx.inputAttributeNames?.length ?? 0);
      const targets = (ctx.targets?.length ?? 0) + (ctx.targetAttributeNames?.length ?? 0);
      if (kind === 'svdfs' && targets < 1) throw smlError('SVD_NO_TARGET');
      if (inputs < 2) throw smlError('EXPLORE_INPUT', { detail: `${kind} needs at least 2 input attributes per entry, got ${inputs}` });
    }
    await project(caller, pid); // 400 now for an unknown project
    const jobType = { svdfs: 'exploreSvdFs', pca: 'explorePca', svd: 'exploreSvd', vif: 'vif' }[kind] ?? kind;
    const jobId = await runner.submit(caller, jobType, { p_id: pid }, async () => {
      const view = await project(caller, pid);
      return domain(() => matrixJob(kind, view, entries, pid));
    });
    return { status: okStatus('JOB_CREATED'), jobId };
  });

  service.endpoint(subjects.explore.kaplanMeier, sml.v1.KmRequest, sml.v1.KmReply, async (req, { caller }) => {
    const pid = checkName('project', req.pid);
    for (const q of req.values ?? []) {
      if ((q.type ?? '') !== 'survival') throw smlError('KM_TYPE', { type: q.type ?? '' });
      if (q.alpha !== undefined && q.alpha !== null && !(q.alpha > 0 && q.alpha < 1)) throw smlError('KM_ALPHA', { alpha: q.alpha });
    }
    const counts = survivalOf(await project(caller, pid), pid);
    const values = await domain(() => (req.values ?? []).map((q) => {
      const times = q.times ?? [];
      const groups = q.group?.trim() ? [q.group.trim().toLowerCase()] : [...counts.groups().filter((g) => g !== ''), 'Total'];
      const entries: Record<string, sml.v1.IDataFrame> = {};
      for (const g of groups) {
        const rows = kaplanMeier(counts, g === 'Total' && !q.group?.trim() ? null : g, times, q.alpha ?? 0.05);
        entries[g] = numberFrame(['time', 'survival', 'lower', 'upper', 'atRisk', 'events'], rows.map((r) => [r.time, r.survival, r.lower, r.upper, r.atRisk, r.events]));
      }
      return { entries };
    }));
    return { kmResultList: { values } };
  });

  service.endpoint(subjects.explore.cumulativeIncidence, sml.v1.CifRequest, sml.v1.CifReply, async (req, { caller }) => {
    const pid = checkName('project', req.pid);
    const counts = survivalOf(await project(caller, pid), pid);
    const values = await domain(() => (req.values ?? []).map((q) => {
      const group = q.group?.trim() ? q.group.trim().toLowerCase() : null;
      const times = q.times ?? [];
      const f = cumulativeIncidence(counts, group, q.k ?? 1, times);
      return { sdfmap: { [group ?? 'Total']: numberFrame(['time', `event_${q.k ?? 1}`], times.map((t, i) => [t, f[i]])) } };
    }));
    return { cifPredictionList: { values } };
  });

  function survivalOf(view: ProjectView, pid: string) {
    const counts = view.summary.survival;
    if (!counts) throw smlError('NOT_SURVIVAL', { pid });
    return counts;
  }

  function matrixJob(kind: string, view: ProjectView, entries: sml.v1.IMLContext[], pid: string): sml.v1.IJobResult {
    const resolved = entries.map((ctx) => {
      try {
        return resolve(view, ctx, pid);
      } catch (err) {
        // exploresvdfs checks attributes only when the job runs, and fails it with a 500 (seed).
        if (kind === 'svdfs') throw smlError('GENERIC_EXCEPTION', { detail: (err as Error).message });
        throw err;
      }
    });
    const summary = view.summary;
    switch (kind) {
      case 'svdfs':
        return jobResult(sml.v1.SvdFsResult, {
          status: okStatus(),
          KSVSMap: { values: resolved.map((r, k) => ({ entries: svdFeatureSelection(summary, r.inputs, r.targets, { tolerance: Number(entries[k].extraParameters?.svd_tolerance ?? 1e-8) }) })) },
        });
      case 'pca':
        return jobResult(sml.v1.PcaResult, {
          status: okStatus(),
          pcaList: resolved.map((r, k) => {
            const extra = entries[k].extraParameters ?? {};
            const p = pca(summary, r.inputs, { useCovariance: extra.pca_use_covariance === 'true', numDimension: positiveInt('pcaNumDimension', extra.pcaNumDimension, 100) });
            return { attributeNames: p.attributeNames, pcaVectors: p.pcaVectors.map((entries) => ({ entries })), pcaValues: p.pcaValues, pcaSumValues: p.pcaSumValues };
          }),
        });
      case 'svd':
        return jobResult(sml.v1.SvdResult, {
          status: okStatus(),
          svdList: resolved.map((r) => {
            const d = svd(summary, r.inputs);
            return { attributeNames: d.attributeNames, singularValues: d.singularValues, u: d.u.map((entries) => ({ entries })), v: d.v.map((entries) => ({ entries })) };
          }),
        });
      case 'vif':
        return jobResult(sml.v1.VifResult, { status: okStatus(), KSVDMap: { values: resolved.map((r) => ({ entries: vif(summary, r.inputs) })) } });
      default:
        throw smlError('INVALID_PARAMETER', { name: 'kind', value: kind, reason: 'expected svdfs, pca, svd or vif' });
    }
  }

  return {
    onStop: async () => {
      runner.stop();
      await densityPool.stop();
    },
  };
}

function indexOf(summary: Summary, name: string, pid: string): number {
  const i = summary.indexOf(name);
  if (i < 0) throw smlError('UNKNOWN_ATTRIBUTE', { name, pid });
  return i;
}


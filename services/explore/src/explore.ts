import { join } from 'node:path';
import { contracts, okStatus, type BusService } from '@sml/bus';
import { executorOf, JobRunner, JobWorkers, jobResult } from '@sml/jobs-client';
import { answeringDomainErrors, checkName, parameterBounds, type ParameterBound } from '@sml/core';
import { sml } from '@sml/proto';
import { densityIndexes, densityTasks, type DensityArity } from './density';
import { DensityPool } from './density-pool';
import { driftMap, driftQuery } from './drift';
import { checkMatrixEntries, matrixAttributes, matrixJobType } from './matrix';
import type { MatrixTask } from './matrix-worker';
import { approximateField, exploreContexts, exploreMaps, exploreMetric } from './metrics';
import { checkedContexts } from './resolve';
import { fetchInfo, readAttributes, SummaryCache, type SummarySource } from './summaries';
import { checkKmQueries, cumulativeIncidenceResults, kaplanMeierResults, survivalCounts } from './survival';
import type { ExploreRuntime } from './main';

const ops = contracts.explore;

/**
 * The explore service (API.md §6 and §8): stateless; every request reads the project's
 * summary from `projects` and computes with packages/stats. Wiring only: each endpoint
 * decodes, calls its domain module (metrics, density, matrix, survival) and encodes.
 */
export function startExplore({ nc, service, client, config, log }: ExploreRuntime): Promise<{ onStop: () => Promise<void> }> {
  const densityPool = new DensityPool();
  // PCA, SVD, SVD-FS and VIF run off this thread: a decomposition at 2000 attributes takes tens of seconds.
  const matrixWorkers = new JobWorkers<MatrixTask, sml.v1.IJobResult>(join(__dirname, 'matrix-worker.js'));
  const runner = new JobRunner(nc, client, executorOf('explore', config), 'explore', log, { heartbeatMs: config.SML_JOB_HEARTBEAT_MS });
  runner.start();
  const summaries = new SummaryCache(client);
  const project = (caller: sml.v1.ICaller, pid: string) => summaries.project(caller, pid);
  const sourceOf = (caller: sml.v1.ICaller, pid: string): SummarySource => ({
    schema: () => summaries.schema(caller, pid),
    restricted: (indexes, schema) => summaries.restricted(caller, pid, indexes, schema),
    project: () => project(caller, pid),
  });
  const bounds = parameterBounds(config);

  service.handle(ops.run, async (req, { caller }) => {
    const metric = exploreMetric(req.metric);
    const pid = checkName('project', req.pid);
    const contexts = exploreContexts(metric, req.context, bounds);
    const run = async (): Promise<sml.v1.IExploreReply> => {
      const { maps, approximate } = await exploreMaps(sourceOf(caller, pid), metric, contexts, pid, config.SML_MAX_SUMMARY_ATTRIBUTES);
      return {
        KSVDMap: { values: maps.map((entries) => ({ entries })) },
        ...approximateField(approximate),
        ...(req.returnProjectInfo ? { smlInfo: await fetchInfo(client, caller, pid) } : {}),
      };
    };
    if (!req.async) return run();
    const jobId = await runner.submit(caller, 'explore', { p_id: pid }, async () => jobResult(sml.v1.ExploreReply, { status: okStatus(), ...(await run()) }));
    return { status: okStatus('JOB_CREATED'), jobId };
  });

  const densityEndpoint = (op: 'density' | 'conditionalDensity', arity: DensityArity) =>
    service.handle(ops[op], async (req, { caller }) => {
      const pid = checkName('project', req.pid);
      if (req.noValues) return { densityList: { values: [] } };
      const source = sourceOf(caller, pid);
      const schema = await source.schema();
      const tasks = densityTasks(schema, req.context, arity, { pid, user: caller.user! }, bounds);
      // Only the histograms (and conditional histograms) of the attributes the entries name.
      const { view, toLocal } = await readAttributes(source, schema, densityIndexes(tasks), config.SML_MAX_SUMMARY_ATTRIBUTES);
      const local = tasks.map((t) => ({ ...t, attribute: toLocal(t.attribute), ...(t.given === undefined ? {} : { given: toLocal(t.given) }) }));
      const densities = await answeringDomainErrors({ pid }, () => densityPool.run(view.summary, view.bytes, local, req.tps || 10));
      const values = densities.map(({ approximate, ...d }) => ({ ...d, ...(approximate ? { approximate: { entries: approximate } } : {}) }));
      return { densityList: { values } };
    });
  densityEndpoint('density', 1);
  densityEndpoint('conditionalDensity', 2);

  service.handle(ops.matrix, async (req, { caller }) => {
    const pid = checkName('project', req.pid);
    const kind = req.kind ?? '';
    const contexts = checkedContexts(req.context, bounds);
    checkMatrixEntries(kind, contexts);
    await summaries.schema(caller, pid); // 400 now for an unknown project
    const jobId = await runner.submit(caller, matrixJobType(kind), { p_id: pid }, async ({ signal }) => {
      // Only the attributes the entries name, unless they are more than a sub-summary may name.
      const source = sourceOf(caller, pid);
      const schema = await source.schema();
      const { needed, contexts: named } = matrixAttributes(kind, schema, contexts, pid);
      const { view } = await readAttributes(source, schema, needed, config.SML_MAX_SUMMARY_ATTRIBUTES);
      return matrixWorkers.run({ bytes: view.bytes, kind, separator: schema.meta.categorySeparator || '$', contexts: named, pid }, signal);
    });
    return { status: okStatus('JOB_CREATED'), jobId };
  });

  registerSurvival(service, summaries);
  registerDrift(service, sourceOf, bounds, config.SML_MAX_SUMMARY_ATTRIBUTES);

  return Promise.resolve({
    onStop: async () => {
      runner.stop();
      await densityPool.stop();
      await matrixWorkers.stop();
    },
  });
}

/** dataDrift, answered at once from both projects' statistics of the compared attributes: one map. */
function registerDrift(service: BusService, sourceOf: (caller: sml.v1.ICaller, pid: string) => SummarySource, bounds: Readonly<Record<string, ParameterBound>>, maxAttributes: number): void {
  service.handle(ops.dataDrift, async (req, { caller }) => {
    const query = driftQuery(req.context, bounds);
    const { map, approximate } = await driftMap(sourceOf(caller, query.baseline), sourceOf(caller, query.analysis), query, maxAttributes);
    return { KSVDMap: { values: [{ entries: map }] }, ...approximateField([approximate]) };
  });
}

/** Kaplan-Meier and cumulative incidence (API.md §8), answered at once from the survival counts. */
function registerSurvival(service: BusService, summaries: SummaryCache): void {
  // Survival counts belong to no attribute: the sub-summary of none carries them (Summary.restrict).
  const survivalView = (caller: sml.v1.ICaller, pid: string) => summaries.restricted(caller, pid, []);

  service.handle(ops.kaplanMeier, async (req, { caller }) => {
    const pid = checkName('project', req.pid);
    const queries = req.values ?? [];
    checkKmQueries(queries);
    const counts = survivalCounts(await survivalView(caller, pid), pid);
    return { kmResultList: { values: await kaplanMeierResults(counts, queries) } };
  });

  service.handle(ops.cumulativeIncidence, async (req, { caller }) => {
    const pid = checkName('project', req.pid);
    const counts = survivalCounts(await survivalView(caller, pid), pid);
    return { cifPredictionList: { values: await cumulativeIncidenceResults(counts, req.values ?? []) } };
  });
}

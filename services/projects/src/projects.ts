import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { BusService, contracts, kvBucket, Leases, okStatus, Presence, SHARD_PROBE_OP, shardOf, subjectOf } from '@sml/bus';
import { executorOf, JobRunner, JobWorkers, jobResult } from '@sml/jobs-client';
import { type NatsConnection } from 'nats';
import { checkName, parameterBounds, SmlError, smlError, type Logger } from '@sml/core';
import { readLimitsOf, type SourceContext } from '@sml/sources';
import { sml } from '@sml/proto';
import { KMEANS_SCORE_APPROXIMATE } from '@sml/stats';
import type { BuildResult, BuildTask } from './models/build-worker';
import { DataSources, redacted } from './datasources/datasources';
import { readScoringFrame, type FrameBounds } from './datasources/frame';
import { DsPredictions } from './datasources/predict';
import { ProjectEncoders } from './learning/encoding';
import { EvtWrappers } from './models/evt';
import { KvIdempotencyKeys } from './learning/idempotency';
import { Learning, type LearnOp } from './learning/learning';
import { learnPredict } from './predict/learn-predict';
import { Lifecycle } from './lifecycle/lifecycle';
import { ModelStore } from './store/model-store';
import { jobModelInfo, Models } from './models/models';
import { ProjectsOwnership } from './replicas/ownership';
import { predictor, type PredictFn } from './predict/predict';
import { OnlinePool } from './predict/online-pool';
import { PredictPool } from './predict/predict-pool';
import { ProjectRegistry } from './lifecycle/registry';
import { Shards } from './replicas/shards';
import { ProjectStore } from './store/store';
import { registerTransfers, Transfers } from './lifecycle/transfer';
import { cellSummary } from './fusion/cell-summary';
import { CellFetchers } from './fusion/fetchers';
import { Fusion } from './fusion/fusion';
import { SecretSeal } from './fusion/seal';
import type { ProjectsRuntime } from './main';

type ProjectsConfig = ProjectsRuntime['config'];

/** A model state object younger than this is never swept: a record's write may be in progress. */
const ORPHAN_GRACE_MS = 10 * 60_000;
const ORPHAN_SWEEP_EVERY_MS = 60 * 60_000;

const ops = contracts.projects;
const projectOf = (pid: string | null | undefined) => checkName('project', pid);
const modelOf = (model: string | null | undefined) => checkName('model', model);

/**
 * The projects service (API.md §4, §7). Wiring only: each endpoint decodes, calls its domain
 * module (lifecycle, learning, models, evt) and encodes. Durability rules live in the
 * registry and the store.
 */
export async function startProjects({ nc, service, client, config, log }: ProjectsRuntime): Promise<{ onStop: () => Promise<void> }> {
  // Each shard is answered by its own micro-service instance, subscribed only while this
  // replica holds the shard's lease (ownership.ts). The runtime's instance answers nothing.
  await service.suspend();
  const shards = config.SML_PROJECT_SHARDS;
  const shardServices = await startShardServices(nc, log, shards);
  const store = await ProjectStore.open(nc);
  const bounds = parameterBounds(config);
  const limits = projectLimits(config, bounds);
  // Projects' online models (rf_* forests, cluster_* micro-clusters) learn off this thread.
  const onlinePool = new OnlinePool(undefined, config.SML_ONLINE_MODEL_THREADS);
  const registry = new ProjectRegistry(store, log, {
    online: onlinePool.learn,
    snapshotEveryBatches: config.SML_SNAPSHOT_EVERY_BATCHES,
    snapshotEveryMs: config.SML_SNAPSHOT_EVERY_MS,
    limits,
    maxProjectsPerCustomer: config.SML_MAX_PROJECTS_PER_CUSTOMER,
    holdsLease: (user: string, pid: string): boolean => ownership.holds(shardOf(user, pid, shards)),
    shardOf: (user, pid) => shardOf(user, pid, shards),
  });
  const owner = config.SML_REPLICA_ID ?? randomUUID();
  const ownership = new ProjectsOwnership({
    leases: new Leases(await kvBucket(nc, 'sml_project_leases'), owner, config.SML_PROJECT_LEASE_MS),
    presence: new Presence(await kvBucket(nc, 'sml_project_replicas', { ttl: config.SML_PROJECT_LEASE_MS }), owner),
    services: shardServices, registry, log, leaseMs: config.SML_PROJECT_LEASE_MS,
  });
  registry.start();
  const idempotency = await KvIdempotencyKeys.open(nc);
  const dss = await kvBucket(nc, 'sml_dss');
  const models = await ModelStore.open(nc);
  const sweeper = sweepOrphans(models, log);
  const runner = new JobRunner(nc, client, executorOf('projects', config), 'projects', log, { heartbeatMs: config.SML_JOB_HEARTBEAT_MS });
  runner.start();
  // Model builds run off this thread: seconds at 500 attributes, minutes at 2000.
  const buildWorkers = new JobWorkers<BuildTask, BuildResult>(join(__dirname, 'models', 'build-worker.js'));
  // Predicts far costlier than reading their rows (covariance models, hmm, kmeans) too.
  const predictPool = new PredictPool(undefined, config.SML_PREDICT_THREADS);

  const encoders = new ProjectEncoders(client, registry);
  const dataSources = new DataSources({
    kv: dss, registry, store, limits, filesRoot: config.SML_FILES_ROOT, timeoutMs: config.SML_SOURCE_TIMEOUT_MS, allowPrivate: config.SML_SOURCES_ALLOW_PRIVATE, log,
    readLimits: { job: readLimitsOf(config, 'job'), request: readLimitsOf(config, 'request') },
    maxPerCustomer: config.SML_MAX_DATA_SOURCES_PER_CUSTOMER, encoders, online: onlinePool.learn,
  });
  const sharding = shards > 1 ? new Shards(shards, (shard) => ownership.holds(shard), client) : undefined;
  const lifecycle = new Lifecycle({ registry, store, models, bounds, maxSummaryAttributes: config.SML_MAX_SUMMARY_ATTRIBUTES, log, shards: sharding });
  const learning = new Learning(registry, store, idempotency, log, encoders);
  const modelDomain = new Models({
    registry, store: models, bounds, selectionBudgetMs: config.SML_SELECTION_TIME_BUDGET_MS, maxSelectionCandidates: config.SML_MAX_SELECTION_CANDIDATES, workers: buildWorkers,
    maxPredictReplyChars: config.SML_MAX_PREDICT_REPLY_CHARS, maxPredictSteps: config.SML_MAX_PREDICT_STEPS,
    predictThread: { pool: predictPool, threadSteps: config.SML_PREDICT_THREAD_STEPS },
  });
  const predict = predictor({ registry, encoders, models: modelDomain });
  const dsModels = dsModelsOf(config, modelDomain, dataSources, predict);
  const evt = new EvtWrappers({ registry, store: models, bounds });
  const transfers = new Transfers({
    registry, store, models, encoders, limits, bounds, maxProjectsPerCustomer: config.SML_MAX_PROJECTS_PER_CUSTOMER, maxDocumentBytes: config.SML_MAX_EXPORT_BYTES,
    shards: sharding,
  });
  const fusion = await fusionOf({ nc, client, config }, { registry, store, models, limits });
  for (const [shard, svc] of shardServices.entries()) {
    registerShard(svc, shard, { runner, lifecycle, dataSources, encoders, learning, models: modelDomain, predict, dsModels, registry, store, log, evt, transfers, fusion });
  }

  // Serves the shards it holds; keeps trying for its share every third of a lease.
  await ownership.start();
  return {
    onStop: async () => {
      clearInterval(sweeper);
      runner.stop();
      await buildWorkers.stop();
      await predictPool.stop();
      await dataSources.stop();
      // The last snapshots are written under the leases, which are then given up.
      await registry.stop();
      await onlinePool.stop();
      await ownership.stop();
    },
  };
}

/** What bounds a project's state (ProjectRegistry, DataSources, Transfers). */
function projectLimits(config: ProjectsConfig, bounds: ReturnType<typeof parameterBounds>) {
  return {
    maxAttributes: config.SML_MAX_ATTRIBUTES,
    state: { maxSequenceEntries: config.SML_MAX_SEQUENCE_NGRAMS, maxPartitions: config.SML_MAX_PARTITIONS, maxNameLength: config.SML_MAX_NAME_LENGTH },
    bounds,
  };
}

/** Fusion projects (fusion/): their cells fetched over signed REST or the bus, their secrets sealed with the key in KV sml_fusion. */
async function fusionOf({ nc, client, config }: Pick<ProjectsRuntime, 'nc' | 'client' | 'config'>, deps: Pick<ConstructorParameters<typeof Fusion>[0], 'registry' | 'store' | 'models' | 'limits'>): Promise<Fusion> {
  return new Fusion({
    ...deps, seal: await SecretSeal.open(await kvBucket(nc, 'sml_fusion')),
    fetcher: new CellFetchers({ client, allowPrivate: config.SML_SOURCES_ALLOW_PRIVATE, timeoutMs: config.SML_FUSION_CELL_TIMEOUT_MS }),
    minRefreshMs: config.SML_FUSION_MIN_REFRESH_MS, cellTimeoutMs: config.SML_FUSION_CELL_TIMEOUT_MS, allowPrivate: config.SML_SOURCES_ALLOW_PRIVATE,
  });
}

/** Models with data sources: their reads, batch predictions and the bounds of a scoring frame. */
function dsModelsOf(config: ProjectsConfig, models: Models, dataSources: DataSources, predict: PredictFn) {
  // With a job's signal: a job's read, under the job bounds (deadline, least rate); without, only checked.
  const sourceContext = (user: string, signal?: AbortSignal): SourceContext => ({
    user, filesRoot: config.SML_FILES_ROOT, timeoutMs: config.SML_SOURCE_TIMEOUT_MS, allowPrivate: config.SML_SOURCES_ALLOW_PRIVATE,
    ...(signal ? { signal, limits: readLimitsOf(config, 'job') } : {}),
  });
  return {
    models, dataSources, sourceContext,
    predictions: new DsPredictions({ dataSources, models, predict, sourceContext }),
    frameBounds: { maxRows: config.SML_MAX_SELECT_DS_ROWS, maxCost: config.SML_MAX_BODY_BYTES },
  };
}

/** One micro-service instance per shard, suspended until ownership.ts takes its lease. */
async function startShardServices(nc: NatsConnection, log: Logger, shards: number): Promise<BusService[]> {
  const services: BusService[] = [];
  for (let shard = 0; shard < shards; shard++) {
    const svc = await BusService.start(nc, { name: 'projects', log, shard: { from: 'sml.projects.0.', to: `sml.projects.${shard}.` } });
    await svc.suspend();
    services.push(svc);
  }
  return services;
}

/** Model state objects a crash left without a record (ModelStore.sweepOrphans): at start, then hourly. */
function sweepOrphans(models: ModelStore, log: Logger): NodeJS.Timeout {
  const sweep = () => void models.sweepOrphans(ORPHAN_GRACE_MS)
    .then((gone) => gone.length > 0 && log.info({ objects: gone.length }, 'orphaned model state objects deleted'))
    .catch((err: unknown) => log.warn({ err }, 'model state objects not swept'));
  sweep();
  return setInterval(sweep, ORPHAN_SWEEP_EVERY_MS).unref();
}

/** Every operation of the projects service, on one shard's instance. */
function registerShard(svc: BusService, shard: number, deps: {
  runner: JobRunner; lifecycle: Lifecycle; dataSources: DataSources; encoders: ProjectEncoders; learning: Learning; models: Models; predict: PredictFn;
  dsModels: ReturnType<typeof dsModelsOf>; registry: ProjectRegistry; store: ProjectStore; log: Logger; evt: EvtWrappers; transfers: Transfers; fusion: Fusion;
}): void {
  const { runner, fusion } = deps;
  registerLifecycle(svc, runner, deps.lifecycle, deps.encoders, fusion);
  registerFusion(svc, fusion, deps.registry);
  registerCustomerData(svc, deps.lifecycle, deps.dataSources, shard);
  registerDataSources(svc, runner, deps.dataSources, fusion);
  registerLearning(svc, runner, deps.learning, fusion);
  registerModels(svc, runner, deps.models, deps.predict, deps.learning, fusion);
  registerDsModels(svc, runner, fusion, deps.dsModels);
  registerEncoders(svc, { registry: deps.registry, store: deps.store, encoders: deps.encoders, log: deps.log });
  registerEvt(svc, deps.evt);
  registerTransfers(svc, runner, deps.transfers, (user, pid) => fusion.refresh(user, pid));
}

/** Fusion projects and the cell side of their protocol. */
function registerFusion(service: BusService, fusion: Fusion, registry: ProjectRegistry): void {
  service.handle(ops.fusionCreate, async (req, { caller }) => {
    const pid = await fusion.create(caller.user!, req);
    return { status: okStatus('PROJECT_CREATED', { pid }) };
  });
  service.handle(ops.fusionCellsStatus, async (req, { caller }) =>
    ({ cells: await fusion.cellsStatus(caller.user!, projectOf(req.pid), req.cells) }));
  service.handle(ops.fusionUpdateCells, async (req, { caller }) => {
    await fusion.updateCells(caller.user!, projectOf(req.pid), req.cells);
    return { status: okStatus() };
  });
  service.handle(ops.cellSummary, (req, { caller }) => cellSummary(registry, caller.user!, projectOf(req.pid), req.ifVersion ?? ''));
}

function registerLifecycle(service: BusService, runner: JobRunner, lifecycle: Lifecycle, encoders: ProjectEncoders, fusion: Fusion): void {
  // The failover probe (BusClient): answered, with the holding's instance header, exactly while this replica serves the shard.
  service.handle(ops[SHARD_PROBE_OP], () => ({}));

  service.handle(ops.create, async (req, { caller }) => {
    const pid = await lifecycle.create(caller.user!, req);
    const recipe = req.askSummaryRecipe ? await lifecycle.batchRecipe(caller.user!, pid) : null;
    return { status: okStatus('PROJECT_CREATED', { pid }), ...(recipe !== null ? { summaryRecipe: recipe } : {}) };
  });

  service.handle(ops.info, async (req, { caller }) => {
    const pid = projectOf(req.pid);
    const user = caller.user!;
    const hash = req.hash === true;
    const info = async () => {
      await fusion.refresh(user, pid);
      return fusion.decorate(user, pid, await lifecycle.info(user, pid, hash));
    };
    if (!req.async) return { smlInfo: await info() };
    await lifecycle.require(user, pid);
    const jobId = await runner.submit(caller, 'projectInfo', { p_id: pid }, async () =>
      jobResult(sml.v1.ProjectInfoReply, { status: okStatus(), smlInfo: await info() }));
    return { status: okStatus('JOB_CREATED'), jobId };
  });

  service.handle(ops.list, async (_req, { caller }) => ({
    stringList: { values: await lifecycle.list(caller.user!) },
  }));

  service.handle(ops.delete, async (req, { caller }) => {
    const pid = projectOf(req.pid);
    // The encoder stays listed until the project is gone (its delete answers 409 meanwhile).
    const encoder = await encoders.encoderOf(caller.user!, pid);
    await lifecycle.delete(caller.user!, pid);
    if (encoder) await encoders.assign(caller.user!, pid, encoder, true);
    return { status: okStatus('PROJECT_DELETED', { pid }) };
  });

  service.handle(ops.save, async (req, { caller }) => {
    const pid = projectOf(req.pid);
    await lifecycle.save(caller.user!, pid);
    return { status: okStatus('PROJECT_SAVED', { pid }) };
  });

  service.handle(ops.unload, async (req, { caller }) => {
    const pid = projectOf(req.pid);
    await lifecycle.unload(caller.user!, pid);
    return { status: okStatus('PROJECT_UNLOADED', { pid }) };
  });

  for (const [op, frozen] of [['freeze', true], ['unfreeze', false]] as const) {
    service.handle(ops[op], async (req, { caller }) => {
      const pid = projectOf(req.pid);
      await lifecycle.freeze(caller.user!, pid, frozen);
      return { status: okStatus(frozen ? 'PROJECT_FROZEN_OK' : 'PROJECT_UNFROZEN', { pid }) };
    });
  }

  service.handle(ops.histogramEnable, async (req, { caller }) => {
    const pid = projectOf(req.pid);
    await lifecycle.enableHistograms(caller.user!, pid, req.enable === true);
    return { status: okStatus('HISTOGRAMS_SWITCHED', { pid, state: req.enable ? 'enabled' : 'disabled' }) };
  });

  service.handle(ops.merge, async (req, { caller }) => {
    const pid = projectOf(req.pid);
    const other = projectOf(req.otherProjectName);
    await fusion.refuseData(caller.user!, pid);
    await lifecycle.merge(caller.user!, pid, other);
    return { status: okStatus('PROJECT_MERGED', { pid, other }) };
  });

  service.handle(ops.summary, async (req, { caller }) => {
    await fusion.refresh(caller.user!, projectOf(req.pid));
    return lifecycle.summary(caller.user!, projectOf(req.pid), req);
  });
}

/** A customer's purge (root) and a project's log: what also spans its data sources. */
function registerCustomerData(service: BusService, lifecycle: Lifecycle, dataSources: DataSources, shard: number): void {
  // Root only (the users service, when a customer is deleted).
  service.handle(ops.purgeCustomer, async (req, { caller }) => {
    if (!caller.root) throw smlError('ROOT_ONLY', { action: 'purge customers' });
    const user = checkName('customer', req.cid);
    // Asked of every shard: each deletes its own projects; the customer's data sources once.
    await lifecycle.purgeCustomer(user, shard);
    if (shard === 0) await dataSources.purge(user);
    return {};
  });

  service.handle(ops.log, async (req, { caller }) => ({
    quarantined: await lifecycle.quarantined(caller.user!, projectOf(req.pid)),
    dsLog: await dataSources.dsLog(caller.user!, projectOf(req.pid)),
  }));
  service.reportStats(subjectOf(ops.log), () => ({ quarantinedBatches: lifecycle.quarantinedTotal }));
}

function registerDataSources(service: BusService, runner: JobRunner, dss: DataSources, fusion: Fusion): void {
  service.handle(ops.dssCreate, async (req, { caller }) =>
    ({ status: okStatus('DS_CREATED', { ds: await dss.create(caller.user!, req) }) }));
  service.handle(ops.dssUpdate, async (req, { caller }) =>
    ({ status: okStatus('DS_UPDATED', { ds: await dss.update(caller.user!, req.ds ?? '', req) }) }));
  service.handle(ops.dssList, async (_req, { caller }) =>
    ({ stringList: { values: await dss.list(caller.user!) } }));
  service.handle(ops.dssGet, async (req, { caller }) =>
    ({ dsInfo: redacted(await dss.info(caller.user!, req.ds ?? '')) }));
  service.handle(ops.dssDelete, async (req, { caller }) => {
    await dss.delete(caller.user!, req.ds ?? '');
    return { status: okStatus('DS_DELETED', { ds: req.ds }) };
  });
  service.handle(ops.dssSample, async (req, { caller }) =>
    ({ dataframe: await dss.sampleOf(caller.user!, req.ds ?? '') }));
  service.handle(ops.dssPreview, async (req, { caller }) =>
    ({ dataframe: await dss.preview(caller.user!, req) }));
  service.handle(ops.dssBrowse, async (req, { caller }) =>
    ({ dsdirectoryListing: await dss.browse(caller.user!, req) }));
  for (const [op, attach] of [['addds', true], ['detachds', false]] as const) {
    service.handle(ops[op], async (req, { caller }) => {
      const pid = projectOf(req.pid);
      await fusion.refuseData(caller.user!, pid);
      await dss.attach(caller.user!, pid, req.ds ?? '', attach);
      return { status: okStatus(attach ? 'DS_ATTACHED' : 'DS_DETACHED', { ds: req.ds, pid }) };
    });
  }
  service.handle(ops.lfStats, async (req, { caller }) =>
    ({ lfStats: await dss.stats(caller.user!, projectOf(req.pid)) }));
  service.handle(ops.dsLearn, async (req, { caller }) => {
    const user = caller.user!;
    const pid = projectOf(req.pid);
    await fusion.refuseData(user, pid);
    const { ds, info } = await dss.prepareLearn(user, pid, req.ds);
    const op = req.forget ? 'forget' : 'learn';
    const jobId = await runner.submit(caller, 'learn', { p_id: pid, update_type: op, ds_name: ds }, async (job) =>
      jobResult(sml.v1.LearnReply, { status: okStatus(), learnReport: await dss.learn(user, pid, ds, info, req.frame ?? {}, op, job) }));
    return { status: okStatus('JOB_CREATED'), jobId };
  });
}

function registerLearning(service: BusService, runner: JobRunner, learning: Learning, fusion: Fusion): void {
  // The streams service, once it deleted a stream: the stream's marks leave the project.
  service.handle(ops.dropStreamMarks, async (req, { caller }) => {
    await learning.dropStreamMarks(caller.user!, projectOf(req.pid), req.stream ?? '');
    return { status: okStatus() };
  });
  for (const op of ['learn', 'forget'] as const satisfies readonly LearnOp[]) {
    service.handle(ops[op], async (req, { caller }) => {
      const user = caller.user!;
      const pid = projectOf(req.pid);
      await fusion.refuseData(user, pid);
      if (!req.async) return learning.batch(user, pid, req, op);
      // 400 now for an unknown project; the JSON now if the job would need it.
      if (await learning.needsJson(user, pid, req)) return { needsJson: true };
      const jobId = await runner.submit(caller, 'learn', { p_id: pid, update_type: op }, async () =>
        jobResult(sml.v1.LearnReply, { status: okStatus(), ...(await learning.batch(user, pid, req, op)) }));
      return { status: okStatus('JOB_CREATED'), jobId };
    });
  }
}

function registerModels(service: BusService, runner: JobRunner, models: Models, predict: PredictFn, learning: Learning, fusion: Fusion): void {
  service.handle(ops.selectModel, async (req, { caller }) => {
    await fusion.refuseAlgorithm(caller.user!, projectOf(req.pid), req.algo);
    await fusion.refresh(caller.user!, projectOf(req.pid));
    const plan = await models.plan(caller.user!, projectOf(req.pid), modelOf(req.modelId), req);
    const jobId = await runner.submit(caller, req.buildOnly ? 'build' : 'selectModel', { p_id: plan.pid, model_id: plan.modelId }, async ({ signal }) =>
      jobResult(sml.v1.ModelReply, { status: okStatus(), modelInfo: jobModelInfo(await plan.run(signal)) }));
    return { status: okStatus(req.buildOnly ? 'JOB_CREATED' : 'SELECT_MODEL_JOB_CREATED'), jobId };
  });

  service.handle(ops.autoSelect, async (req, { caller }) => {
    await fusion.refresh(caller.user!, projectOf(req.pid));
    const plan = await models.planAutoSelect(caller.user!, projectOf(req.pid), modelOf(req.modelId), req);
    const jobId = await runner.submit(caller, 'autoSelect', { p_id: plan.pid, model_id: plan.modelId }, async ({ signal }) =>
      jobResult(sml.v1.ModelReply, { status: okStatus(), modelInfo: jobModelInfo(await plan.run(signal)) }));
    return { status: okStatus('JOB_CREATED'), jobId };
  });

  // reduce: always a job; a full queue answers SymetryML's 500 for it rather than EXECUTOR_FULL.
  service.handle(ops.reduce, async (req, { caller }) => {
    await fusion.refresh(caller.user!, projectOf(req.pid));
    const plan = await models.planReduce(caller.user!, projectOf(req.pid), modelOf(req.modelId), req);
    const jobId = await runner.submit(caller, 'reduce', { p_id: plan.pid, model_id: plan.modelId }, async ({ signal }) =>
      jobResult(sml.v1.ModelReply, { status: okStatus(), modelInfo: jobModelInfo(await plan.run(signal)) }))
      .catch((err: unknown) => {
        throw err instanceof SmlError && err.code === 'EXECUTOR_FULL' ? smlError('REDUCE_REFUSED') : err;
      });
    return { status: okStatus('REDUCE_JOB_CREATED'), jobId };
  });

  service.handle(ops.learnPredict, async (req, { caller }) => {
    await fusion.refuseData(caller.user!, projectOf(req.pid));
    const predictions = await learnPredict({ learning, models, predict }, caller.user!, projectOf(req.pid), modelOf(req.modelId), req);
    return { predictionsJson: Buffer.from(JSON.stringify(predictions)) };
  });

  // kmeansOptimize (API.md §12): a job whose result is one KSVDMap entry per k (k, wssse, silhouette),
  // each marked with its approximate keys (the silhouette, from the micro-clusters).
  service.handle(ops.kmeansOptimize, async (req, { caller }) => {
    const pid = projectOf(req.pid);
    await fusion.refuseAlgorithm(caller.user!, pid, 'kmeans');
    const run = await models.optimize(caller.user!, pid, req.mlcontext ?? {});
    const jobId = await runner.submit(caller, 'kmeansOptimize', { p_id: pid }, async ({ signal }) => {
      const scores = await run(signal);
      return jobResult(sml.v1.ExploreReply, {
        status: okStatus(),
        KSVDMap: { values: scores.map((score) => ({ entries: { ...score } })) },
        approximate: { entries: scores.map(() => ({ entries: [...KMEANS_SCORE_APPROXIMATE] })) },
      });
    });
    return { status: okStatus('JOB_CREATED'), jobId };
  });

  service.handle(ops.modelInfo, async (req, { caller }) => {
    const pid = projectOf(req.pid);
    return { modelInfo: await models.info(caller.user!, pid, req.modelId) };
  });

  service.handle(ops.modelDelete, async (req, { caller }) => {
    const pid = projectOf(req.pid);
    const model = modelOf(req.modelId);
    await models.delete(caller.user!, pid, model);
    return { status: okStatus('MODEL_DELETED', { model }) };
  });

  service.handle(ops.predict, async (req, { caller }) => {
    const predictions = await predict(caller.user!, projectOf(req.pid), modelOf(req.modelId), req.frame, req.columns);
    // Every value is a string: JSON.stringify needs no replacer for non-finite numbers.
    return { predictionsJson: Buffer.from(JSON.stringify(predictions)) };
  });
}

/** Models with data sources (API.md §12): batch scoring (dss/predict) and selectModel scored on a data source. */
function registerDsModels(service: BusService, runner: JobRunner, fusion: Fusion, deps: {
  models: Models; dataSources: DataSources; predictions: DsPredictions; frameBounds: FrameBounds;
  sourceContext: (user: string, signal?: AbortSignal) => SourceContext;
}): void {
  service.handle(ops.dsPredict, async (req, { caller }) => {
    const user = caller.user!;
    const pid = projectOf(req.pid);
    const modelId = modelOf(req.modelId);
    const { input, output } = await deps.predictions.prepare(user, pid, modelId, req.indsname, req.outdsname);
    const details = { p_id: pid, model_id: modelId, ds_name: input.name, out_ds_name: output.name };
    const jobId = await runner.submit(caller, 'dsPredict', details, async (job) =>
      jobResult(sml.v1.DsPredictReply, { status: okStatus(), predictReport: await deps.predictions.run(user, pid, modelId, input, output, req.frame ?? {}, job) }));
    return { status: okStatus('JOB_CREATED'), jobId };
  });

  // selectModel/{dsid} and autoSelect/{dsid}: the scoring frame is read from the data source when the job runs.
  for (const [op, auto] of [['dsSelectModel', false], ['dsAutoSelect', true]] as const) {
    service.handle(ops[op], async (req, { caller }) => {
      const user = caller.user!;
      const pid = projectOf(req.pid);
      const modelId = modelOf(req.modelId);
      if (!auto) await fusion.refuseAlgorithm(user, pid, req.algo);
      await fusion.refresh(user, pid);
      const info = await deps.dataSources.info(user, req.ds ?? '');
      const scoring = (signal: AbortSignal) => readScoringFrame(info, deps.sourceContext(user, signal), deps.frameBounds);
      const request = { ...req, buildOnly: false, dataframe: null };
      const plan = auto ? await deps.models.planAutoSelect(user, pid, modelId, request, scoring) : await deps.models.plan(user, pid, modelId, request, scoring);
      const jobId = await runner.submit(caller, auto ? 'autoSelect' : 'selectModel', { p_id: plan.pid, model_id: plan.modelId, ds_name: info.name }, async ({ signal }) =>
        jobResult(sml.v1.ModelReply, { status: okStatus(), modelInfo: jobModelInfo(await plan.run(signal)) }));
      return { status: okStatus(auto ? 'JOB_CREATED' : 'SELECT_MODEL_JOB_CREATED'), jobId };
    });
  }
}

function registerEvt(service: BusService, evt: EvtWrappers): void {
  service.handle(ops.evtWrapper, async (req, { caller }) => {
    const pid = projectOf(req.pid);
    const model = modelOf(req.modelId);
    await evt.create(caller.user!, pid, model, req.params ?? {});
    return { status: okStatus('EVT_CREATED', { model }) };
  });

  service.handle(ops.evtDelete, async (req, { caller }) => {
    const pid = projectOf(req.pid);
    const model = modelOf(req.modelId);
    await evt.delete(caller.user!, pid, model);
    return { status: okStatus('EVT_DELETED', { model }) };
  });
}

function registerEncoders(service: BusService, deps: { registry: ProjectRegistry; store: ProjectStore; encoders: ProjectEncoders; log: Logger }): void {
  // encoderAssign (API.md §3): the encoders service lists the project first (400 for an unknown encoder).
  service.handle(ops.encoderAssign, async (req, { caller }) => {
    const user = caller.user!;
    const pid = projectOf(req.pid);
    const encoder = checkName('encoder', req.encoderName);
    await deps.registry.with(user, pid, async (p) => {
      const previous = p.meta.encoder;
      await deps.encoders.assign(user, pid, encoder);
      p.meta.encoder = encoder;
      if (!p.memoryOnly) await deps.store.putMeta(p.meta);
      if (previous && previous !== encoder) {
        await deps.encoders.assign(user, pid, previous, true).catch((err) => deps.log.warn({ err, pid, encoder: previous }, 'previous encoder not released'));
      }
    });
    return { status: okStatus('ENCODER_ASSIGNED', { encoder, pid }) };
  });
}

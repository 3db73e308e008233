import { checkName, checkParameters, dataFrameFromProto, smlError, toSmlError, type ParameterBound, type SmlError } from '@sml/core';
import { sml } from '@sml/proto';
import {
  ALGORITHM_NAMES, ALGORITHMS, AUTOSELECT_DEFAULT_SELECTOR, AUTOSELECT_TASKS, REDUCE_ALGORITHMS, REDUCE_HEURISTICS, RESTRICTABLE_ALGORITHMS, SELECTOR_TYPES, checkAutoSelect, checkReduce, checkSelection,
  frameRowCount, resolveAttributes, restrictedBuild, rowsFromColumns, type Algorithm, type KmeansScore, type Model, type Prediction, type PredictFrame, type ReduceAlgorithm, type SelectionOptions, type SelectorType,
} from '@sml/stats';
import type { JobWorkers } from '@sml/jobs-client';
import type { BuildResult, BuildTask, AutoSelectSearch } from './build-worker';
import type { PredictPool } from '../predict/predict-pool';
import type { ModelStorage } from '../ports';
import type { ProjectRegistry } from '../lifecycle/registry';

/**
 * A build (no selection) of one of these algorithms on at most INLINE_BUILD_MAX_ATTRIBUTES
 * attributes of its sub-summary runs on the service's thread, from the sub-summary itself:
 * its closed-form build takes ≤ ≈ 8 ms there (mlr, ridge, lda, covest at 64 attributes,
 * 3.5 ms at 50, on the 2-core EPYC of bench/RESULTS.md), not much more than a worker thread
 * costs in hops, copies and serializing (≈ 3 ms, measured at 50 attributes on the same
 * machine); cancelling it stops nothing, it is that short.
 */
export const INLINE_BUILD_ALGORITHMS: ReadonlySet<string> = new Set(['mlr', 'ridge', 'lda', 'bayes', 'covest', 'pcr']);
export const INLINE_BUILD_MAX_ATTRIBUTES = 64;

/** The algorithm a selectModel request names: 400 for a name API.md §7 does not know, or one this build does not implement. */
export function algorithmOf(algo: string): Algorithm {
  if (!(ALGORITHM_NAMES as readonly string[]).includes(algo)) throw smlError('UNKNOWN_ALGORITHM', { algo });
  const algorithm = ALGORITHMS[algo];
  if (!algorithm) throw smlError('ALGORITHM_NOT_AVAILABLE', { algo });
  return algorithm;
}

/** mc: `variable` = the input's name; hmm: `observed` = the input's, `hidden` = the target's. */
export function sequenceParams(algo: string, ctx: sml.v1.IMLContext): Record<string, string> {
  const input = ctx.inputAttributeNames?.[0];
  const target = ctx.targetAttributeNames?.[0];
  if (algo === 'mc') return input ? { variable: input } : {};
  return { ...(input ? { observed: input } : {}), ...(target ? { hidden: target } : {}) };
}

export function frameOf(df: sml.v1.IDataFrame | null | undefined): PredictFrame {
  const f = dataFrameFromProto(df ?? {});
  return { names: f.attributeNames, rows: f.data };
}

/** An integer extraParameter, or undefined when absent; INVALID_PARAMETER when it is not an integer (≥ `min`). */
export function integerParam(params: Record<string, string>, name: string, min?: number): number | undefined {
  const text = params[name]?.trim();
  if (text === undefined || text === '') return undefined;
  const v = Number(text);
  if (!Number.isSafeInteger(v) || (min !== undefined && v < min)) {
    throw smlError('INVALID_PARAMETER', { name, value: params[name], reason: min === undefined ? 'expected an integer' : `expected an integer ≥ ${min}` });
  }
  return v;
}

/**
 * selectModel's feature selection from the MLContext's extraParameters (STATS.md §4):
 * `selector_type` (default `selector`), `sml_model_assessment_type`, `selector_iterations`
 * and `selector_seed` (default `rnd_seed`, the randomizer's seed in SymetryML's documents).
 */
export function selectionOptions(params: Record<string, string>, selector: SelectorType = 'selector_type_none'): SelectionOptions {
  const chosen = params.selector_type?.trim() || selector;
  if (!(SELECTOR_TYPES as readonly string[]).includes(chosen)) {
    throw smlError('INVALID_PARAMETER', { name: 'selector_type', value: chosen, reason: `expected one of ${SELECTOR_TYPES.join(', ')}` });
  }
  return {
    selector: chosen as SelectorType,
    criterion: params.sml_model_assessment_type,
    iterations: integerParam(params, 'selector_iterations', 1),
    seed: integerParam(params, 'selector_seed') ?? integerParam(params, 'rnd_seed'),
  };
}

/** A checked selectModel/build request: what its job runs. */
export interface ModelPlan {
  pid: string;
  modelId: string;
  /** Builds (and, for selectModel, selects and assesses) the model and stores it; `signal` cancels. */
  run(signal: AbortSignal): Promise<sml.v1.IModelInfo>;
}

/**
 * The extra tables a build job's result carries at most. The result travels in the job's finish
 * event and record, each one NATS message; a wide model's tables (a 1 000-input covest's
 * covariance: ≈ 20 MB) would not fit, and the job would never be reported finished.
 */
export const MAX_JOB_EXTRA_BYTES = 1024 * 1024;

/** The modelInfo a build job answers: without its extra tables when they are over MAX_JOB_EXTRA_BYTES (GET models/{m} has them). */
export function jobModelInfo(info: sml.v1.IModelInfo): sml.v1.IModelInfo {
  const bytes = sml.v1.ModelInfo.encode({ extra: info.extra ?? {} }).finish().length;
  if (bytes <= MAX_JOB_EXTRA_BYTES) return info;
  return { ...info, extra: { extraOmitted: `modelInfo.extra is ${bytes} bytes, more than a job result carries (${MAX_JOB_EXTRA_BYTES}): GET models/${info.modelId ?? ''} answers it whole` } };
}

/** A build on this thread (INLINE_BUILD_ALGORITHMS), answered as a build worker answers it. */
async function buildInline(algo: string, { summary, spec }: ReturnType<typeof restrictedBuild>, pid: string, signal: AbortSignal): Promise<BuildResult> {
  // What is ready to go out first (the reply that created this job, its client's polls): the
  // build holds this thread for its few milliseconds.
  await new Promise((resolve) => setImmediate(resolve));
  if (signal.aborted) throw smlError('JOB_CANCELLED');
  try {
    return { state: ALGORITHMS[algo].build(summary, spec).state(), assessment: {}, tried: 1 };
  } catch (err) {
    throw toSmlError(err, { pid });
  }
}

/** What a checked request's job does: build `algo`, select its features, or search (autoSelect). */
export type JobKind =
  | { kind: 'build'; algo: string }
  | { kind: 'select'; algo: string; selection: SelectionOptions }
  | { kind: 'autoSelect'; selection: SelectionOptions; search: AutoSelectSearch }
  | { kind: 'reduce'; algo: ReduceAlgorithm; delta: number; numIterations: number };

/** The worker's task for a job of `how` on `base`'s summary; `frame` is what a selection scores on. */
export function taskOf(how: JobKind, base: Pick<BuildTask, 'bytes' | 'pid' | 'spec'>, frame: () => PredictFrame, budgetMs: number): BuildTask {
  switch (how.kind) {
    case 'build':
      return { ...base, kind: 'build', algo: how.algo };
    case 'select':
      return { ...base, kind: 'select', algo: how.algo, selection: { options: how.selection, frame: frame(), budgetMs } };
    case 'autoSelect':
      return { ...base, kind: 'autoSelect', selection: { options: how.selection, frame: frame(), budgetMs }, search: how.search };
    case 'reduce':
      return { ...base, kind: 'reduce', reduce: { algo: how.algo, delta: how.delta, numIterations: how.numIterations, budgetMs } };
    default: {
      const unknown: never = how;
      throw new Error(`unknown job ${JSON.stringify((unknown as { kind?: unknown }).kind)}`);
    }
  }
}

/**
 * Models (API.md §7): built on a worker thread (a small closed-form build on the service's
 * own: INLINE_BUILD_ALGORITHMS) from the project's summary as it was when the job started,
 * and stored with the project (ModelStore); info, delete, predict. selectModel runs its
 * feature selection within SML_SELECTION_TIME_BUDGET_MS; cancelling the job stops it.
 */
export class Models {
  constructor(private readonly deps: {
    registry: ProjectRegistry; store: ModelStorage;
    bounds: Readonly<Record<string, ParameterBound>>;
    /** Wall-clock budget of one feature selection or autoSelect (SML_SELECTION_TIME_BUDGET_MS). */
    selectionBudgetMs: number;
    /** Input subsets one autoSelect may build in all (SML_MAX_SELECTION_CANDIDATES). */
    maxSelectionCandidates: number;
    /** Build worker threads (build-worker.ts). */
    workers: JobWorkers<BuildTask, BuildResult>;
    /** Characters a predict may answer when its model's answer outgrows its rows (SML_MAX_PREDICT_REPLY_CHARS). */
    maxPredictReplyChars: number;
    /** Steps a predict may take when its model costs far more per row than reading it (SML_MAX_PREDICT_STEPS). */
    maxPredictSteps: number;
    /** The thread for predicts of at least `threadSteps` steps (SML_PREDICT_THREAD_STEPS); none: every predict on this thread. */
    predictThread?: { pool: PredictPool; threadSteps: number };
  }) {}

  /**
   * Checks a selectModel (`buildOnly` false: select features and assess) or build request
   * before its job is created: algorithm, parameter bounds, selection options, the project.
   * `scoring` (selectModel/{dsid}) reads the selection's frame when the job runs, in place of
   * the request's dataframe.
   */
  async plan(user: string, pid: string, modelId: string, req: sml.v1.ISelectModelRequest, scoring?: (signal: AbortSignal) => Promise<PredictFrame>): Promise<ModelPlan> {
    const { registry, bounds } = this.deps;
    const algo = req.algo ?? '';
    const algorithm = algorithmOf(algo);
    const params = { ...(req.mlcontext?.extraParameters ?? {}) };
    checkParameters(params, bounds);
    // build takes the given inputs and scores nothing; selectModel selects and assesses.
    const selection = req.buildOnly ? undefined : selectionOptions(params);
    if (selection) {
      try {
        checkSelection(algorithm, selection);
      } catch (err) {
        throw toSmlError(err);
      }
    }
    await registry.with(user, pid, () => undefined); // 400 now for an unknown project

    return this.job(user, pid, modelId, req, params, selection ? { kind: 'select', algo, selection } : { kind: 'build', algo }, scoring);
  }

  /**
   * Checks an autoSelect request (SymetryML's auto-select-with-symetryml.md) before its job is
   * created: the task (400 AUTOSELECT_TASK), parameter bounds, the selector (default fw_bw),
   * the grid and the criterion, the project. The job tries every algorithm of the task × the
   * grid on a build worker thread (build-worker.ts), within SML_SELECTION_TIME_BUDGET_MS and
   * SML_MAX_SELECTION_CANDIDATES in all, and stores the winner as `modelId`; its modelInfo
   * names the winning algorithm (`algo`, `params` with the grid point) and carries the
   * leaderboard (`extra.leaderboard`, JSON, the best AUTOSELECT_LEADERBOARD_SIZE candidates).
   */
  async planAutoSelect(user: string, pid: string, modelId: string, req: sml.v1.ISelectModelRequest, scoring?: (signal: AbortSignal) => Promise<PredictFrame>): Promise<ModelPlan> {
    const task = req.task ?? '';
    if (AUTOSELECT_TASKS[task] === undefined) throw smlError('AUTOSELECT_TASK', { task });
    const params = { ...(req.mlcontext?.extraParameters ?? {}) };
    checkParameters(params, this.deps.bounds);
    const selection = selectionOptions(params, AUTOSELECT_DEFAULT_SELECTOR);
    const gridType = params.autoselect_grid_type;
    try {
      checkAutoSelect({ task, gridType, selection });
    } catch (err) {
      throw toSmlError(err);
    }
    await this.deps.registry.with(user, pid, () => undefined); // 400 now for an unknown project
    return this.job(user, pid, modelId, req, params, {
      kind: 'autoSelect', selection, search: { task, gridType, maxCandidates: this.deps.maxSelectionCandidates },
    }, scoring);
  }

  /**
   * Checks a reduce request (SymetryML's POST projects/{p}/reduce) before its job is created:
   * the heuristic (only `default`), the algorithm (`lda`, `mlr`), `delta` and `numIterations`
   * against the parameter bounds, the project. The job reduces the inputs from the summary on
   * a build worker thread, within SML_SELECTION_TIME_BUDGET_MS, and stores the model on the
   * surviving inputs as `modelId`: info `reduce_criterion`, `reduce_delta`,
   * `reduce_num_iterations`, `selector_tried`; extra `reduce_dropped` (JSON array of names).
   */
  async planReduce(user: string, pid: string, modelId: string, req: sml.v1.IReduceRequest): Promise<ModelPlan> {
    const heuristic = req.heuristic || REDUCE_HEURISTICS[0];
    if (!(REDUCE_HEURISTICS as readonly string[]).includes(heuristic)) throw smlError('REDUCE_HEURISTIC', { heuristic });
    const algo = req.algo ?? '';
    if (!(REDUCE_ALGORITHMS as readonly string[]).includes(algo)) throw smlError('REDUCE_ALGORITHM', { algo });
    const params = { ...(req.mlcontext?.extraParameters ?? {}) };
    checkParameters(params, this.deps.bounds);
    const query = { ...(req.delta ? { delta: req.delta } : {}), ...(req.numIterations ? { numIterations: req.numIterations } : {}) };
    checkParameters(query, this.deps.bounds);
    let checked: ReturnType<typeof checkReduce>;
    try {
      const number = (text: string | undefined) => (text === undefined ? undefined : Number(text));
      checked = checkReduce({ algo: algo as ReduceAlgorithm, delta: number(query.delta), numIterations: number(query.numIterations) });
    } catch (err) {
      throw toSmlError(err);
    }
    await this.deps.registry.with(user, pid, () => undefined); // 400 now for an unknown project
    return this.job(user, pid, modelId, { mlcontext: req.mlcontext }, params, { kind: 'reduce', ...checked });
  }

  /** The job of a checked selectModel, build, autoSelect or reduce request. */
  private job(
    user: string, pid: string, modelId: string, req: sml.v1.ISelectModelRequest, params: Record<string, string>, how: JobKind,
    scoring?: (signal: AbortSignal) => Promise<PredictFrame>,
  ): ModelPlan {
    const { registry, store, selectionBudgetMs, workers } = this.deps;
    // autoSelect names no algorithm: the search chooses it.
    const algo = how.kind === 'autoSelect' ? '' : how.algo;
    const selection = how.kind === 'select' || how.kind === 'autoSelect' ? how.selection : undefined;
    const run = async (signal: AbortSignal): Promise<sml.v1.IModelInfo> => {
      const scored = selection && scoring ? await scoring(signal) : undefined;
      // The summary as it is now, under the project's lock (every candidate is built from
      // it); the builds themselves run on a worker thread, so neither this customer's learns
      // nor anyone else's wait for them (seconds at 500 attributes, minutes at 2000), except
      // a small closed-form build (INLINE_BUILD_ALGORITHMS), built here after the lock.
      const task = await registry.with(user, pid, (p): BuildTask | { kind: 'inline'; restricted: ReturnType<typeof restrictedBuild> } => {
        try {
          const ctx = req.mlcontext ?? {};
          const separator = p.meta.categorySeparator || '$';
          const inputRefs = [...(ctx.inputAttributes ?? []), ...(ctx.inputAttributeNames ?? [])];
          const targetRefs = [...(ctx.targets ?? []), ...(ctx.targetAttributeNames ?? [])];
          // Sequence models name sequence variables, which are not summary attributes.
          const sequence = algo === 'mc' || algo === 'hmm';
          const spec = sequence
            ? { algo, inputs: [], targets: [], params: { ...sequenceParams(algo, ctx), ...params } }
            : { algo, inputs: resolveAttributes(p.summary, inputRefs, separator), targets: resolveAttributes(p.summary, targetRefs, separator), params };
          // The worker gets only the model's attributes when its algorithm reads no more
          // (an mlr on 50 of 2000 attributes: ≈ 130 KB, not ≈ 200 MB serialized and copied).
          const restricted = how.kind !== 'autoSelect' && RESTRICTABLE_ALGORITHMS.has(algo) ? restrictedBuild(p.summary, spec) : null;
          if (restricted && how.kind === 'build' && INLINE_BUILD_ALGORITHMS.has(algo) && restricted.summary.attributeNames.length <= INLINE_BUILD_MAX_ATTRIBUTES) {
            return { kind: 'inline', restricted };
          }
          const base = { bytes: restricted ? restricted.summary.serialize() : p.summaryBytes(), pid, spec: restricted?.spec ?? spec };
          return taskOf(how, base, () => scored ?? frameOf(req.dataframe), selectionBudgetMs);
        } catch (err) {
          throw toSmlError(err, { pid });
        }
      });
      const built = task.kind === 'inline' ? await buildInline(algo, task.restricted, pid, signal) : await workers.run(task, signal);
      const auto = built.autoSelect;
      const chosen = auto?.algo ?? algo;
      const model = ALGORITHMS[chosen].restore(built.state);
      const { assessment, tried, criterion } = built;
      const selected: Record<string, string> = selection
        ? { selector_type: auto?.selector ?? selection.selector, selector_tried: String(tried), ...(criterion ? { sml_model_assessment_type: criterion } : {}) }
        : {};
      const searched: Record<string, string> = auto && how.kind === 'autoSelect'
        ? { autoselect_task: how.search.task, autoselect_grid_type: auto.gridType, autoselect_candidates: String(auto.candidates), autoselect_failed: String(auto.failed) }
        : {};
      const reduced: Record<string, string> = built.reduce && how.kind === 'reduce'
        ? { reduce_criterion: String(built.reduce.criterion), reduce_delta: String(how.delta), reduce_num_iterations: String(how.numIterations), selector_tried: String(tried) }
        : {};
      const info: sml.v1.IModelInfo = {
        modelId,
        algo: chosen,
        inputAttributeNames: [...model.inputNames],
        targetAttributeNames: [...model.targetNames],
        info: { ...model.info(), ...selected, ...searched, ...reduced },
        extra: { ...model.extra(), ...(auto ? { leaderboard: JSON.stringify(auto.leaderboard) } : {}), ...(built.reduce ? { reduce_dropped: JSON.stringify(built.reduce.dropped) } : {}) },
        assessment,
        params: auto?.params ?? params,
        creationDate: Date.now(),
      };
      await store.put(user, pid, info, model);
      return info;
    };
    return { pid, modelId, run };
  }

  /**
   * kmeansOptimize (API.md §12): k-means over k ∈ [kmeans_k_min, kmeans_k_max] (extraParameters,
   * default 2 and 10, capped at the micro-centroids − 1) on the project's micro-centroids, on a
   * build worker; per k `k`, `wssse` and `silhouette` (one KSVDMap entry each). Inputs: a
   * subset of cluster_features (default all); `rnd_seed`, `kmeans_n_init`, `max_iter` as kmeans.
   */
  async optimize(user: string, pid: string, ctx: sml.v1.IMLContext): Promise<(signal: AbortSignal) => Promise<KmeansScore[]>> {
    const { registry, bounds, workers } = this.deps;
    const params = { ...(ctx.extraParameters ?? {}) };
    checkParameters(params, bounds);
    const kMin = integerParam(params, 'kmeans_k_min', 2) ?? 2;
    const kMax = integerParam(params, 'kmeans_k_max', 2);
    await registry.with(user, pid, () => undefined); // 400 now for an unknown project
    return async (signal) => {
      const task = await registry.with(user, pid, (p): BuildTask => {
        try {
          const separator = p.meta.categorySeparator || '$';
          const inputs = resolveAttributes(p.summary, [...(ctx.inputAttributes ?? []), ...(ctx.inputAttributeNames ?? [])], separator);
          const size = p.summary.clusters?.isSeeded ? p.summary.clusters.size : p.summary.clusters?.rowCount ?? 0;
          const top = kMax ?? Math.max(kMin, Math.min(10, size - 1));
          return { kind: 'kmeansOptimize', bytes: p.summaryBytes(), pid, spec: { algo: 'kmeansOptimize', inputs, targets: [], params }, kMin, kMax: top };
        } catch (err) {
          throw toSmlError(err, { pid });
        }
      });
      return (await workers.run(task, signal)).scores ?? [];
    };
  }

  /** A model's info; the project is loaded (400 when unknown) before the model's name is checked. */
  async info(user: string, pid: string, modelId: string | null | undefined): Promise<sml.v1.IModelInfo> {
    await this.deps.registry.with(user, pid, () => undefined);
    return this.deps.store.info(user, pid, checkName('model', modelId));
  }

  async delete(user: string, pid: string, modelId: string): Promise<void> {
    await this.deps.registry.with(user, pid, () => undefined);
    await this.deps.store.delete(user, pid, modelId);
  }

  /** Refuses (400) a predict of `rows` rows over SML_MAX_PREDICT_STEPS or SML_MAX_PREDICT_REPLY_CHARS: what learnpredict asks before it learns. */
  async checkPredictCost(user: string, pid: string, modelId: string, rows: number): Promise<void> {
    this.checkCost(await this.deps.store.model(user, pid, modelId), modelId, rows);
  }

  /**
   * The most rows, up to `upTo`, one predict of the model may take within SML_MAX_PREDICT_STEPS
   * and SML_MAX_PREDICT_REPLY_CHARS (0 when even one row is over): what a dss/predict job hands
   * it at a time, so that a wide covariance model is predicted in smaller pieces rather than
   * refused. Both bounds grow with the rows, so the largest is found by bisection.
   */
  async rowsPerPredict(user: string, pid: string, modelId: string, upTo: number): Promise<number> {
    const model = await this.deps.store.model(user, pid, modelId);
    const fits = (rows: number) => this.costError(model, modelId, rows) === undefined;
    if (fits(upTo)) return upTo;
    let lo = 0;
    let hi = upTo;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (fits(mid)) lo = mid;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Before predicting: a model whose work or answer outgrows its rows (hmm; covariance models
   * at hundreds of inputs) is bounded. A predict runs on this process's event loop, and its
   * reply is encoded there: unbounded, one request would hold every project of the process
   * for minutes.
   */
  private checkCost(model: Model, modelId: string, rows: number): void {
    const err = this.costError(model, modelId, rows);
    if (err) throw err;
  }

  /** Why a predict of `rows` rows of the model is over SML_MAX_PREDICT_STEPS or SML_MAX_PREDICT_REPLY_CHARS; undefined when it is not. */
  private costError(model: Model, modelId: string, rows: number): SmlError | undefined {
    const steps = model.predictionSteps?.(rows);
    if (steps !== undefined && steps > this.deps.maxPredictSteps) return smlError('PREDICT_TOO_COSTLY', { model: modelId, steps, rows, limit: this.deps.maxPredictSteps });
    const chars = model.predictionChars?.(rows);
    if (chars !== undefined && chars > this.deps.maxPredictReplyChars) return smlError('PREDICT_REPLY_TOO_LARGE', { model: modelId, chars, rows, limit: this.deps.maxPredictReplyChars });
    return undefined;
  }

  /**
   * Predictions for each row of `frame`, under the project lock: stateful models and EVT
   * wrappers must see predictions in order, and store their new state.
   */
  predict(user: string, pid: string, modelId: string, frame: PredictFrame): Promise<Prediction[]> {
    const { registry, store } = this.deps;
    return registry.with(user, pid, async () => {
      const { model, key, revision } = await store.modelAt(user, pid, modelId);
      const rows = frameRowCount(frame);
      this.checkCost(model, modelId, rows);
      const steps = model.predictionSteps?.(rows);
      // Numeric columns go to the models that read them; the others read rows of text.
      const input = frame.columns && !model.readsColumns ? rowsFromColumns(frame) : frame;
      const thread = this.deps.predictThread;
      let out;
      try {
        // A stateful model's state changes as it predicts: it stays here, with the stored one.
        out = thread && !model.stateful && steps !== undefined && steps >= thread.threadSteps ? await thread.pool.predict(key, revision, model, input) : model.predict(input);
      } catch (err) {
        throw toSmlError(err);
      }
      if (model.stateful) await store.saveState(user, pid, modelId, model);
      await store.applyEvt(user, pid, modelId, out);
      return out;
    });
  }
}

import { smlError, toSmlError, STATS_KERNEL_CONFIG, loadConfig, statsKernels } from '@sml/core';
import { serveJobTasks } from '@sml/jobs-client';
import {
  ALGORITHMS, Summary, kmeansOptimize, autoSelect, reduceInputs, selectFeatures, selectKernels,
  type LeaderboardEntry, type KmeansScore, type ModelSpec, type PredictFrame, type ReduceAlgorithm, type SelectionOptions,
} from '@sml/stats';

// A thread entry point: the statistics kernels its configuration selects (as the main thread's).
selectKernels(statsKernels(loadConfig(process.env, STATS_KERNEL_CONFIG)));

/** The frame a selection scores candidates on, its options and its wall-clock budget. */
export interface BuildSelection { options: Omit<SelectionOptions, 'checkpoint'>; frame: PredictFrame; budgetMs: number }

/** reduce's options (checked by the service) and its wall-clock budget (SML_SELECTION_TIME_BUDGET_MS). */
export interface BuildReduce { algo: ReduceAlgorithm; delta: number; numIterations: number; budgetMs: number }

/** autoSelect's search: every algorithm of `task` × the grid's points. */
export interface AutoSelectSearch { task: string; gridType?: string; maxCandidates: number }

interface TaskBase {
  /**
   * The project's summary as it was when the job started (Summary.serialize), or its
   * restriction to the model's attributes (restrictedBuild; `spec` then numbers them in it).
   */
  bytes: Uint8Array;
  pid: string;
  spec: ModelSpec;
}

/** What a build worker thread is sent: one job's model build, selection, search or k-means range. */
export type BuildTask = TaskBase & (
  /** build: the model on the given inputs, nothing scored. */
  | { kind: 'build'; algo: string }
  /** selectModel: feature selection of `algo`, candidates scored on `selection.frame`. */
  | { kind: 'select'; algo: string; selection: BuildSelection }
  /**
   * autoSelect: every algorithm of `search.task` × the grid's points, each with `selection`'s
   * feature selection; at most `search.maxCandidates` subsets in all
   * (SML_MAX_SELECTION_CANDIDATES), within `selection.budgetMs` in all.
   */
  | { kind: 'autoSelect'; selection: BuildSelection; search: AutoSelectSearch }
  /** reduce: the inputs kept by backward elimination + swap passes on the summary, `reduce.algo`'s model on them. */
  | { kind: 'reduce'; reduce: BuildReduce }
  /** kmeansOptimize (API.md §12): k-means for each k of [kMin, kMax] instead of a model. */
  | { kind: 'kmeansOptimize'; kMin: number; kMax: number }
);

export interface BuildResult {
  /** Model.state(): what ALGORITHMS[algo].restore takes back. */
  state: unknown;
  assessment: Record<string, number>;
  tried: number;
  criterion?: string;
  /** kmeansOptimize: WSSSE and silhouette per k. */
  scores?: KmeansScore[];
  /** reduce: the inputs left out (names), the kept model's criterion. */
  reduce?: { dropped: string[]; criterion: number };
  /** autoSelect: the winner, the parameters it was built with, the leaderboard and the search's facts. */
  autoSelect?: {
    algo: string; params: Record<string, string>; leaderboard: LeaderboardEntry[];
    gridType: string; selector: string; candidates: number; failed: number;
  };
}

/** Stops a selection or reduce (cancelling terminates this thread; the budgets are checked between candidates). */
function checkpoint(selection: Pick<BuildSelection, 'budgetMs'>, search?: AutoSelectSearch): (tried: number) => void {
  const { budgetMs } = selection;
  const deadline = Date.now() + budgetMs;
  return (tried) => {
    if (Date.now() > deadline) throw smlError(search ? 'AUTOSELECT_BUDGET' : 'SELECTION_BUDGET', { tried, budgetMs });
    if (search && tried > search.maxCandidates) throw smlError('AUTOSELECT_CANDIDATES', { tried, limit: search.maxCandidates });
  };
}

async function build(task: BuildTask): Promise<BuildResult> {
  const summary = Summary.deserialize(task.bytes);
  switch (task.kind) {
    case 'build':
      return { state: ALGORITHMS[task.algo].build(summary, task.spec).state(), assessment: {}, tried: 1 };
    case 'select': {
      const { options, frame } = task.selection;
      const selected = await selectFeatures(ALGORITHMS[task.algo], summary, task.spec, frame, { ...options, checkpoint: checkpoint(task.selection) });
      return { state: selected.model.state(), assessment: selected.assessment, tried: selected.tried, criterion: selected.criterion };
    }
    case 'autoSelect': {
      const { inputs, targets, params } = task.spec;
      const { task: kind, gridType } = task.search;
      const { options, frame } = task.selection;
      const won = await autoSelect(summary, { inputs, targets, params }, frame, { task: kind, gridType, selection: options, checkpoint: checkpoint(task.selection, task.search) });
      return {
        state: won.model.state(), assessment: won.assessment, tried: won.tried, criterion: won.criterion,
        autoSelect: { algo: won.algo, params: won.params, leaderboard: won.leaderboard, gridType: won.gridType, selector: won.selector, candidates: won.candidates, failed: won.failed },
      };
    }
    case 'reduce': {
      const { algo, delta, numIterations } = task.reduce;
      const reduced = await reduceInputs(summary, task.spec, { algo, delta, numIterations, checkpoint: checkpoint(task.reduce) });
      const dropped = reduced.dropped.map((i) => summary.attributeNames[i]);
      return { state: reduced.model.state(), assessment: {}, tried: reduced.tried, reduce: { dropped, criterion: reduced.criterion } };
    }
    case 'kmeansOptimize':
      return { state: null, assessment: {}, tried: 0, scores: kmeansOptimize(summary, task.spec, task.kMin, task.kMax) };
    default: {
      const unknown: never = task;
      throw new Error(`unknown build task ${JSON.stringify((unknown as { kind?: unknown }).kind)}`);
    }
  }
}

let pid = '';
serveJobTasks((task: BuildTask) => {
  pid = task.pid;
  return build(task);
}, (err) => toSmlError(err, { pid }));

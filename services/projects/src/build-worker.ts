import { smlError, toSmlError, STATS_KERNEL_CONFIG, loadConfig, statsKernels } from '@sml/core';
import { serveJobTasks } from '@sml/jobs-client';
import {
  ALGORITHMS, Summary, kmeansOptimize, autoSelect, selectFeatures, selectKernels, type LeaderboardEntry, type KmeansScore, type ModelSpec, type PredictFrame, type SelectionOptions,
} from '@sml/stats';

// A thread entry point: the statistics kernels its configuration selects (as the main thread's).
selectKernels(statsKernels(loadConfig(process.env, STATS_KERNEL_CONFIG)));

/** One model build (and, for selectModel, feature selection; for autoSelect, the search), as sent to a build worker thread. */
export interface BuildTask {
  /**
   * The project's summary as it was when the job started (Summary.serialize), or its
   * restriction to the model's attributes (restrictedBuild; `spec` then numbers them in it).
   */
  bytes: Uint8Array;
  pid: string;
  algo: string;
  spec: ModelSpec;
  /** selectModel and autoSelect: the selection and the frame it scores candidates on; build: null. */
  selection: { options: Omit<SelectionOptions, 'checkpoint'>; frame: PredictFrame; budgetMs: number } | null;
  /** kmeansOptimize (API.md §12): k-means for each k of the range instead of a model. */
  optimize?: { kMin: number; kMax: number };
  /**
   * autoSelect: every algorithm of `task` × the grid's points, each with `selection`'s feature
   * selection (`algo` and `spec.algo` are not used); at most `maxCandidates` subsets in all
   * (SML_MAX_SELECTION_CANDIDATES), within `selection.budgetMs` in all.
   */
  autoSelect?: { task: string; gridType?: string; maxCandidates: number };
}

export interface BuildResult {
  /** Model.state(): what ALGORITHMS[algo].restore takes back. */
  state: unknown;
  assessment: Record<string, number>;
  tried: number;
  criterion?: string;
  /** kmeansOptimize: WSSSE and silhouette per k. */
  scores?: KmeansScore[];
  /** autoSelect: the winner, the parameters it was built with, the leaderboard and the search's facts. */
  autoSelect?: {
    algo: string; params: Record<string, string>; leaderboard: LeaderboardEntry[];
    gridType: string; selector: string; candidates: number; failed: number;
  };
}

async function build(task: BuildTask): Promise<BuildResult> {
  const summary = Summary.deserialize(task.bytes);
  if (task.optimize) return { state: null, assessment: {}, tried: 0, scores: kmeansOptimize(summary, task.spec, task.optimize.kMin, task.optimize.kMax) };
  if (!task.selection) return { state: ALGORITHMS[task.algo].build(summary, task.spec).state(), assessment: {}, tried: 1 };
  const { options, frame, budgetMs } = task.selection;
  const deadline = Date.now() + budgetMs;
  const auto = task.autoSelect;
  // Cancelling terminates this thread; the budgets are checked between candidates.
  const checkpoint = (tried: number) => {
    if (Date.now() > deadline) throw smlError(auto ? 'AUTOSELECT_BUDGET' : 'SELECTION_BUDGET', { tried, budgetMs });
    if (auto && tried > auto.maxCandidates) throw smlError('AUTOSELECT_CANDIDATES', { tried, limit: auto.maxCandidates });
  };
  if (auto) {
    const { inputs, targets, params } = task.spec;
    const won = await autoSelect(summary, { inputs, targets, params }, frame, { task: auto.task, gridType: auto.gridType, selection: options, checkpoint });
    return {
      state: won.model.state(), assessment: won.assessment, tried: won.tried, criterion: won.criterion,
      autoSelect: { algo: won.algo, params: won.params, leaderboard: won.leaderboard, gridType: won.gridType, selector: won.selector, candidates: won.candidates, failed: won.failed },
    };
  }
  const selected = await selectFeatures(ALGORITHMS[task.algo], summary, task.spec, frame, { ...options, checkpoint });
  return { state: selected.model.state(), assessment: selected.assessment, tried: selected.tried, criterion: selected.criterion };
}

let pid = '';
serveJobTasks((task: BuildTask) => {
  pid = task.pid;
  return build(task);
}, (err) => toSmlError(err, { pid }));

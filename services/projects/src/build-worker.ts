import { smlError } from '@sml/core';
import { serveJobTasks } from '@sml/jobs-client';
import { ALGORITHMS, Summary, kmeansOptimize, selectFeatures, type KmeansScore, type ModelSpec, type PredictFrame, type SelectionOptions } from '@sml/stats';
import { modelError } from './model-errors';

/** One model build (and, for selectModel, feature selection), as sent to a build worker thread. */
export interface BuildTask {
  /** The project's summary as it was when the job started (Summary.serialize). */
  bytes: Uint8Array;
  pid: string;
  algo: string;
  spec: ModelSpec;
  /** selectModel: the selection and the frame it scores candidates on; build: null. */
  selection: { options: Omit<SelectionOptions, 'checkpoint'>; frame: PredictFrame; budgetMs: number } | null;
  /** kmeansOptimize (API.md §12): k-means for each k of the range instead of a model. */
  optimize?: { kMin: number; kMax: number };
}

export interface BuildResult {
  /** Model.state(): what ALGORITHMS[algo].restore takes back. */
  state: unknown;
  assessment: Record<string, number>;
  tried: number;
  criterion?: string;
  /** kmeansOptimize: WSSSE and silhouette per k. */
  scores?: KmeansScore[];
}

async function build(task: BuildTask): Promise<BuildResult> {
  const summary = Summary.deserialize(task.bytes);
  if (task.optimize) return { state: null, assessment: {}, tried: 0, scores: kmeansOptimize(summary, task.spec, task.optimize.kMin, task.optimize.kMax) };
  const algorithm = ALGORITHMS[task.algo];
  if (!task.selection) return { state: algorithm.build(summary, task.spec).state(), assessment: {}, tried: 1 };
  const { options, frame, budgetMs } = task.selection;
  const deadline = Date.now() + budgetMs;
  const selected = await selectFeatures(algorithm, summary, task.spec, frame, {
    ...options,
    // Cancelling terminates this thread; the budget is checked between candidates.
    checkpoint: (tried) => {
      if (Date.now() > deadline) throw smlError('SELECTION_BUDGET', { tried, budgetMs });
    },
  });
  return { state: selected.model.state(), assessment: selected.assessment, tried: selected.tried, criterion: selected.criterion };
}

let pid = '';
serveJobTasks((task: BuildTask) => {
  pid = task.pid;
  return build(task);
}, (err) => modelError(err, pid));

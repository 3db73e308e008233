import { conditionalDensityEstimate, densityEstimate, type DensityResult, type Summary } from '@sml/stats';

/** One density estimate, validated and resolved to summary indexes by the service. */
export interface DensityTask {
  attribute: number;
  /** Conditional density: the binary attribute the target's rows are restricted to. */
  given?: number;
  bins: number;
  normalized: boolean;
}

export function computeDensity(summary: Summary, task: DensityTask): DensityResult {
  const opts = { bins: task.bins, normalized: task.normalized };
  return task.given === undefined ? densityEstimate(summary, task.attribute, opts) : conditionalDensityEstimate(summary, task.given, task.attribute, opts);
}

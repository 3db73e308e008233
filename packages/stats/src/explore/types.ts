/** One exploration result: key → value (STATS.md §3). NaN where the statistic is undefined (n < 2, zero variance, …). */
export type MetricMap = Record<string, number>;

/** An MLContext's attributes as summary attribute indexes, and its `extraParameters`. */
export interface MetricInput {
  inputs: number[];
  targets: number[];
  extra: Record<string, string>;
}

export const EXPLORE_METRICS = ['uni', 'bi', 'gain', 'anova', 'ztest', 'ztestp', 'ztestmu', 'ttest', 'ttestmu', 'ftest', 'ftestsigma', 'chi2'] as const;
export type ExploreMetric = (typeof EXPLORE_METRICS)[number];

export interface ExploreOptions {
  /** The project keeps histograms: `uni` reads min/median/max from them, `gain` can bin a continuous X. */
  histograms: boolean;
  /**
   * When the summary is a sub-summary (Summary.restrict): the project index of each of its
   * attributes, which `chi2` names its cells by (`obs$<i>:<j>`). Default: its own indexes.
   */
  projectIndexes?: readonly number[];
}

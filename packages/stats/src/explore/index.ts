/**
 * Exploration metrics and density estimates (STATS.md §3), computed from a Summary, never
 * from rows. One file per metric family; `explore` dispatches by metric name.
 */
export { CHI2_EXPECTED_PREFIX } from './chi2';
export { conditionalDensityEstimate, DEFAULT_DENSITY_BINS, DENSITY_APPROXIMATE, type DensityOptions, type DensityResult, densityEstimate } from './density';
export { dataDrift, driftApproximateKeys, DRIFT_METRICS, DRIFT_PCA_VARIANCE, type DriftMetric, type DriftOptions, type DriftSide, jensenShannon, kolmogorovSmirnov, kolmogorovSurvival, normalHellinger } from './drift';
export { ExploreInputError } from './errors';
export { approximateKeys, explore } from './explore';
export { FTEST_KNOWN_SIGMA } from './ftest';
export { TTEST_KNOWN_MU } from './ttest';
export { EXPLORE_METRICS, type ExploreMetric, type ExploreOptions, type MetricInput, type MetricMap } from './types';
export { ZTEST_KNOWN_MU } from './ztest';

export * from './types';
export { numericRows, targetValues } from './rows';
export { LinearModel, regressionMoments, type LinearState, type RegressionMoments } from './linear';
export { mlr } from './mlr';
export { linearFamily } from './linear-family';
export { classifiers } from './classifiers';
export { anomalyDetectors } from './anomaly';
export { assess } from './assessment';
export { ALGORITHM_NAMES, ALGORITHMS } from './registry';

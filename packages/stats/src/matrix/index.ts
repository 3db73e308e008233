/**
 * Matrix explorations (STATS.md §3, API.md §6): PCA, SVD, VIF and SVD feature selection,
 * computed from a Summary's pairwise-complete correlation (or covariance) matrix, never rows.
 */
export { MatrixInputError } from './errors';
export { DEFAULT_PCA_DIMENSIONS, type PcaOptions, type PcaResult, pca } from './pca';
export { type SvdResult, svd } from './svd';
export { DEFAULT_SVD_TOLERANCE, type SvdFeatureSelectionOptions, svdFeatureSelection } from './svd-feature-selection';
export { VIF_EIGENVALUE_FLOOR, vif } from './vif';
export { ZERO_VARIANCE } from './matrices';

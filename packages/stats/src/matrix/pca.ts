import type { Summary } from '../summary';
import { MatrixInputError } from './errors';
import { checkedMatrix, namesOf, requireAttributes, symmetricEigen } from './matrices';

/** `pcaNumDimension` default: at most this many components. */
export const DEFAULT_PCA_DIMENSIONS = 100;

export interface PcaOptions {
  /** `pca_use_covariance`: decompose the population covariance matrix instead of the correlation matrix. */
  readonly useCovariance?: boolean;
  /** `pcaNumDimension`: at most this many components (default DEFAULT_PCA_DIMENSIONS). */
  readonly numDimension?: number;
}

export interface PcaResult {
  /** Rows = attributes, columns = components; each column's largest |loading| is positive. */
  pcaVectors: number[][];
  /** Eigenvalues of the components, decreasing. */
  pcaValues: number[];
  /** pcaSumValues[k] = (pcaValues[0] + … + pcaValues[k]) / trace: cumulative fraction of the total variance explained. */
  pcaSumValues: number[];
  attributeNames: string[];
}

/**
 * Principal components (STATS.md §3, `explorepca`): eigen-decomposition of the
 * pairwise-complete correlation matrix (or population covariance matrix) of `attributes`.
 * The fractions in pcaSumValues are of the trace (all components, also those cut off by
 * numDimension). A pairwise-complete matrix of data with missing cells may be indefinite:
 * its negative eigenvalues are reported as they are.
 */
export function pca(summary: Summary, attributes: readonly number[], options: PcaOptions = {}): PcaResult {
  requireAttributes(attributes, 2);
  const dimensions = options.numDimension ?? DEFAULT_PCA_DIMENSIONS;
  if (!Number.isInteger(dimensions) || dimensions < 1) throw new MatrixInputError(`pcaNumDimension must be an integer ≥ 1, got ${dimensions}`);
  const m = checkedMatrix(summary, attributes, options.useCovariance === true ? 'covariance' : 'correlation');
  const { values, vectors } = symmetricEigen(m);
  const kept = Math.min(dimensions, values.length);
  const trace = m.diag().reduce((a, b) => a + b, 0);
  let cumulative = 0;
  return {
    pcaVectors: vectors.subMatrix(0, vectors.rows - 1, 0, kept - 1).to2DArray(),
    pcaValues: values.slice(0, kept),
    pcaSumValues: values.slice(0, kept).map((v) => (cumulative += v) / trace),
    attributeNames: namesOf(summary, attributes),
  };
}

/**
 * A matrix exploration that cannot be computed from its input: fewer attributes than it
 * needs, an unknown attribute index, no target for SVD feature selection, no values, or a
 * correlation that is undefined (zero variance, no co-present rows). The explore service
 * answers it with the message (`Less than 1 target for svd` → 400; a failed job → 500).
 */
export class MatrixInputError extends Error {
  override readonly name = 'MatrixInputError';
  readonly kind = 'matrix-input';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * A survival query that cannot be answered: alpha outside (0, 1), a negative or non-numeric
 * time, an event type that is not an integer ≥ 1, or a group the counts do not have. The
 * survival endpoints answer it with a 400 carrying the message.
 */
export class SurvivalInputError extends Error {
  override readonly name = 'SurvivalInputError';
  readonly kind = 'survival-input';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * A request for an exploration that cannot be answered from its input: too few or too many
 * attributes, a continuous attribute where a binary one is required, a missing or
 * non-numeric known value (the message names the parameter, e.g.
 * `sml_explore_ztest_known_mu`), histograms needed but not enabled. The explore service
 * answers it with a 400 carrying `message`. Degenerate data (n < 2, zero variance) is not
 * an input error: those statistics are NaN.
 */
export class ExploreInputError extends Error {
  override readonly name = 'ExploreInputError';
  readonly kind = 'explore-input';
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(reason, options);
  }
}

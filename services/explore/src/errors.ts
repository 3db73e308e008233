import { ExploreInputError, MatrixInputError, SummaryError, SurvivalInputError } from '@sml/stats';
import { SmlError, smlError } from '@sml/core';

/** Input errors of packages/stats as REST errors (400, message from the domain). */
export function toSmlError(err: unknown): unknown {
  if (err instanceof SmlError) return err;
  if (err instanceof ExploreInputError || err instanceof MatrixInputError) return smlError('EXPLORE_INPUT', { detail: err.message }, err);
  if (err instanceof SurvivalInputError) return smlError('SURVIVAL_INPUT', { detail: err.message }, err);
  if (err instanceof SummaryError) return smlError('EXPLORE_INPUT', { detail: err.message }, err);
  return err;
}

/** Runs `fn`, turning domain input errors into SmlErrors. */
export async function domain<T>(fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toSmlError(err);
  }
}

import { smlError } from '@sml/core';
import { ModelInputError, SingularSystemError, SummaryError } from '@sml/stats';

/** packages/stats' model errors as REST errors (a singular system is the seed's 500). */
export function modelError(err: unknown, pid: string): unknown {
  if (err instanceof SingularSystemError) return smlError('SINGULAR_SYSTEM', { detail: err.message }, err);
  if (err instanceof ModelInputError) return smlError('MODEL_INPUT', { detail: err.message }, err);
  if (err instanceof SummaryError) return smlError('UNKNOWN_ATTRIBUTE', { name: err.attribute, pid }, err);
  return err;
}

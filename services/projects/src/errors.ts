import { FrameError, SummaryError } from '@sml/stats';
import { SmlError, smlError } from '@sml/core';

/** Domain errors of packages/stats as REST errors: both mean bad input (400). */
export function toSmlError(err: unknown): SmlError {
  if (err instanceof SmlError) return err;
  if (err instanceof FrameError) return smlError('INVALID_FRAME', { detail: err.message }, err);
  if (err instanceof SummaryError) return smlError('FORGET_NOT_LEARNED', { detail: err.message }, err);
  if (err instanceof SyntaxError) return smlError('MALFORMED_JSON', { detail: err.message }, err);
  throw err;
}

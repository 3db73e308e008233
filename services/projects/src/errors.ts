import { CapacityError, FrameError, SummaryError } from '@sml/stats';
import { SmlError, smlError } from '@sml/core';

/** Which config variable bounds each kind of state a CapacityError names. */
const CAPACITY_VARIABLE: Record<string, string> = { sequence: 'SML_MAX_SEQUENCE_NGRAMS', partitions: 'SML_MAX_PARTITIONS' };

/** Domain errors of packages/stats as REST errors: all mean bad input (400). */
export function toSmlError(err: unknown, pid = ''): SmlError {
  if (err instanceof SmlError) return err;
  if (err instanceof CapacityError) {
    const variable = CAPACITY_VARIABLE[err.what.split(' ')[0]] ?? 'a resource limit';
    return smlError('STATE_LIMIT', { pid, detail: err.message, variable }, err);
  }
  if (err instanceof FrameError) return smlError('INVALID_FRAME', { detail: err.message }, err);
  if (err instanceof SummaryError) return smlError('FORGET_NOT_LEARNED', { detail: err.message }, err);
  if (err instanceof SyntaxError) return smlError('MALFORMED_JSON', { detail: err.message }, err);
  throw err;
}

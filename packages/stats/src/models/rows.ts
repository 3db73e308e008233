import { cellText, parseDecimal } from '../frame';
import type { PredictFrame } from './types';

/**
 * The model's inputs of each row as numbers, in `inputNames` order. Missing inputs — absent
 * columns, missing cells, or text that is not a number — are imputed with the mean the
 * model was built with (API.md §7).
 */
export function numericRows(frame: PredictFrame, inputNames: readonly string[], means: readonly number[]): Float64Array[] {
  const where = inputNames.map((n) => frame.names.indexOf(n));
  return frame.rows.map((cells) => {
    const x = new Float64Array(inputNames.length);
    for (let k = 0; k < inputNames.length; k++) {
      const text = where[k] < 0 ? null : cellText(cells[where[k]]);
      const v = text === null ? NaN : parseDecimal(text);
      x[k] = Number.isNaN(v) ? means[k] : v;
    }
    return x;
  });
}

/** The target column of each row (NaN when absent or missing), for assessment. */
export function targetValues(frame: PredictFrame, target: string): Float64Array {
  const c = frame.names.indexOf(target);
  return Float64Array.from(frame.rows, (cells) => {
    const text = c < 0 ? null : cellText(cells[c]);
    return text === null ? NaN : parseDecimal(text);
  });
}

export const num = (v: number): string => String(v);

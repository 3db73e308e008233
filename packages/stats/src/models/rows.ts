import { categoryOf, cellText, parseDecimal } from '../frame';
import type { PredictFrame } from './types';

/** Rows of a frame, whichever way it came (rows of text, or numeric columns). */
export function frameRowCount(frame: PredictFrame): number {
  return frame.columns ? frame.columns.rowCount : frame.rows.length;
}

/**
 * A frame that came as columns, as rows of text for the models that read cells: each value as
 * the shortest text that parses back to it, a missing cell (NaN) as ''. A frame of rows as it is.
 */
export function rowsFromColumns(frame: PredictFrame): PredictFrame {
  const columns = frame.columns;
  if (!columns) return frame;
  const values = frame.names.map((n) => columns.values.get(n));
  const rows = Array.from({ length: columns.rowCount }, (_, r) => values.map((v) => {
    const x = v === undefined ? NaN : v[r];
    return x !== x ? '' : String(x);
  }));
  return { names: frame.names, rows };
}

/**
 * Where a frame holds each input: its own column, or (when there is none) the categorical
 * column it is a level of — the summary learned column `color` as `color$red`, `color$blue`…,
 * so a frame that sends `color` itself is read as its expansions: 1 for the row's level, 0
 * for the others. The longest column name wins (`a$b` of `a$b$c` before `a`'s).
 */
interface InputSource { column: number; level?: string }

function inputSources(names: readonly string[], inputNames: readonly string[]): InputSource[] {
  return inputNames.map((input) => {
    const column = names.indexOf(input);
    if (column >= 0) return { column };
    let best: InputSource = { column: -1 };
    let bestLength = -1;
    names.forEach((name, c) => {
      if (name.length > bestLength && input.length > name.length + 1 && input.startsWith(`${name}$`)) {
        best = { column: c, level: input.slice(name.length + 1) };
        bestLength = name.length;
      }
    });
    return best;
  });
}

/**
 * The model's inputs of each row as numbers, in `inputNames` order. Missing inputs — absent
 * columns, missing cells, or text that is not a number — are imputed with the mean the
 * model was built with (API.md §7). An expansion `color$red` absent from the frame is read
 * from its column `color` when the frame has it (inputSources).
 */
export function numericRows(frame: PredictFrame, inputNames: readonly string[], means: readonly number[]): Float64Array[] {
  if (frame.columns) return numericColumnRows(frame.columns.rowCount, inputNames.map((n) => frame.columns!.values.get(n)), means);
  const sources = inputSources(frame.names, inputNames);
  return frame.rows.map((cells) => {
    const x = new Float64Array(inputNames.length);
    for (let k = 0; k < inputNames.length; k++) {
      const { column, level } = sources[k];
      if (level !== undefined) {
        const category = categoryOf(cells[column]);
        x[k] = category === null ? means[k] : category === level ? 1 : 0;
        continue;
      }
      const text = column < 0 ? null : cellText(cells[column]);
      const v = text === null ? NaN : parseDecimal(text);
      x[k] = Number.isNaN(v) ? means[k] : v;
    }
    return x;
  });
}

function numericColumnRows(rowCount: number, columns: (Float64Array | undefined)[], means: readonly number[]): Float64Array[] {
  const out = new Array<Float64Array>(rowCount);
  for (let r = 0; r < rowCount; r++) {
    const x = new Float64Array(columns.length);
    for (let k = 0; k < columns.length; k++) {
      const v = columns[k] === undefined ? NaN : columns[k]![r];
      x[k] = v !== v ? means[k] : v;
    }
    out[r] = x;
  }
  return out;
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

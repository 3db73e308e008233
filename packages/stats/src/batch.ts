/**
 * `@sml/stats/batch`: a learn batch summarised where it is read (the gateway), so that the
 * project's owner is sent, and logs, the batch's summary instead of its rows: for the common
 * batch of thousands of rows by tens of columns a twentieth of the bytes on the bus, and the
 * project never holds the rows even in its log. The project says which options the summary
 * must be built with (Summary.batchRecipe); adding the batch's summary is the same as
 * learning its rows (summary.ts, prepareBatchSummary).
 */
import { type FrameColumnsData, frameFromColumns } from './frame-columns';
import { ATTR, PAIR } from './moments';
import { resolveOptions, type SummaryOptions } from './options';
import { Summary } from './summary';

/** Bytes a serialized histogram bin may take (its key and its count). */
const BIN_BYTES = 16;

/**
 * The serialized summary of the frame's rows alone, built with `recipe` (a project's
 * Summary.batchRecipe), or null when it is not worth sending: when it would be larger than
 * half the columns (wide frames of few rows: the co-moments grow with the square of the
 * attributes, so such a summary is refused before it is built, which also bounds the memory
 * it takes by the body's), or when the frame cannot be summarised as it is (a limit, a name,
 * a magnitude): the project then reads the columns and reports what is wrong in its words.
 */
export function summarizeBatch(recipe: string, columns: FrameColumnsData): Uint8Array | null {
  let options: SummaryOptions;
  try {
    options = resolveOptions(JSON.parse(recipe) as SummaryOptions);
  } catch {
    return null;
  }
  if (estimatedBytes(options, columns) > columnBytes(columns) / 2) return null;
  try {
    return batchSummaryOf(options, columns);
  } catch {
    return null;
  }
}

/** The serialized summary of the frame's rows alone, built with `options`; throws what learning them throws. */
export function batchSummaryOf(options: SummaryOptions, columns: FrameColumnsData): Uint8Array {
  const batch = new Summary(options);
  batch.prepare('learn', { columns: frameFromColumns(columns) }).commit();
  return batch.serialize();
}

/** An upper bound of the serialized summary's size, from the frame's shape alone. */
function estimatedBytes(options: SummaryOptions, columns: FrameColumnsData): number {
  const levels = columns.categorical.reduce((n, c) => n + c.levels.length, 0);
  const continuous = columns.numeric.filter((c) => c.kind !== 'B').length;
  const binary = columns.numeric.length - continuous + levels;
  const attributes = continuous + binary;
  const moments = 8 * (attributes * ATTR.STRIDE + ((attributes * (attributes + 1)) / 2) * PAIR.STRIDE);
  if (options.histogram === undefined) return moments + 4096;
  // A binary attribute's histogram has two bins (0 and 1); a continuous one's at most the bins
  // (streaming) or its distinct values (exact). With conditional histograms each is kept again per binary attribute.
  const bins = options.histogram === 'exact' ? Math.min(columns.rowCount, options.exactHistogramCap ?? Infinity) : options.histogramBins ?? 0;
  const perCopy = (continuous * bins + binary * 2) * BIN_BYTES;
  return moments + perCopy * (options.conditionalHistograms === false ? 1 : 1 + binary) + 4096;
}

function columnBytes(columns: FrameColumnsData): number {
  let n = 0;
  for (const c of columns.numeric) n += c.values.byteLength;
  for (const c of columns.categorical) n += c.codes.byteLength;
  return n;
}

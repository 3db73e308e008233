import { smlError, SmlError, toSmlError } from '@sml/core';
import type { sml } from '@sml/proto';
import { csvBatches, csvOptionsOf, sourceOf, SourceError, type SourceContext } from '@sml/sources';

/** Rows per batch read from a data source by dss/predict and selectModel/{dsid}. */
export const DS_BATCH_ROWS = 2000;

/** One batch of a registered data source's rows, whatever its type. */
export interface DsBatch {
  /** Column names (the CSV header, the table's columns), the same in every batch. */
  header: string[];
  /** Cells as text; SQL NULL is '' (a missing cell). */
  rows: string[][];
  /** Where each row is, for messages: `line 12` (files) or `row 12` (tables). */
  where(k: number): string;
  /** Bytes read so far (files), or rows read so far (tables). */
  read: number;
  /** The total `read` goes to, when the source knows it. */
  total: number | undefined;
  /** Bytes read so far (files only, 0 for tables). */
  bytesRead: number;
}

/**
 * A data-source failure as the 4xx the DS endpoints answer: a SourceError by its kind
 * (DS_INVALID, DS_UNREADABLE); anything else that fails reading a source (a socket's or a
 * driver's error) leaves it unreadable.
 */
export function dsFailure(err: unknown, ds: string): never {
  if (err instanceof SmlError || err instanceof SourceError) throw toSmlError(err, { ds });
  throw smlError('DS_UNREADABLE', { ds, detail: err instanceof Error ? err.message : String(err) }, err);
}

/**
 * The rows of a registered data source in batches of about DS_BATCH_ROWS, read as a
 * data-source learn reads them (CSV files through the streaming parser, tables through a
 * cursor): memory is bounded by one batch. Errors are SourceErrors naming the source.
 */
export async function* dsBatches(info: sml.v1.IDsInfo, ctx: SourceContext): AsyncGenerator<DsBatch> {
  const source = sourceOf(info.type ?? '', info.info ?? {}, ctx);
  const name = source.describe();
  if (source.kind === 'rows') {
    const [header, total] = [await source.columns(), await source.size()];
    let read = 0;
    for await (const rows of source.open(DS_BATCH_ROWS)) {
      const first = read;
      read += rows.length;
      yield { header, rows: rows.map((r) => r.map((c) => c ?? '')), where: (k) => `[${name}] row ${first + k + 1}`, read, total, bytesRead: 0 };
    }
    return;
  }
  const total = await source.size();
  for await (const batch of csvBatches(source.open(), { ...csvOptionsOf(info.info ?? {}, name), batchRows: DS_BATCH_ROWS })) {
    const lines = batch.lines;
    yield { header: batch.header, rows: batch.rows, where: (k) => `[${name}] line ${lines[k]}`, read: batch.bytesRead, total, bytesRead: batch.bytesRead };
  }
}

import { smlError } from '@sml/core';
import type { sml } from '@sml/proto';
import type { SourceContext } from '@sml/sources';
import type { PredictFrame } from '@sml/stats';
import { dsBatches, dsFailure } from './ds-rows';

/** What a scoring frame read from a data source may hold: selection keeps it in memory. */
export interface FrameBounds {
  /** SML_MAX_SELECT_DS_ROWS */
  maxRows: number;
  /** Characters of cells + 16 per cell; SML_MAX_BODY_BYTES, the bound of the inline dataframe it replaces. */
  maxCost: number;
}

/**
 * Every row of a registered data source as the frame selectModel scores candidates on
 * (selectModel/{dsid}): the frame an inline `dataframe` would be, read in batches and refused
 * (400 naming the bound and its variable) as soon as it passes a bound. A row of the wrong
 * length fails, naming file and line.
 */
export async function readScoringFrame(info: sml.v1.IDsInfo, ctx: SourceContext, bounds: FrameBounds): Promise<PredictFrame> {
  const ds = info.name ?? '';
  let names: string[] = [];
  const rows: string[][] = [];
  let cost = 0;
  try {
    for await (const batch of dsBatches(info, ctx)) {
      // A table's row count is known before its rows are read.
      if (batch.bytesRead === 0 && batch.total !== undefined && batch.total > bounds.maxRows) {
        throw smlError('DS_SELECT_TOO_LARGE', { ds, limit: bounds.maxRows, unit: 'rows', variable: 'SML_MAX_SELECT_DS_ROWS' });
      }
      names = batch.header;
      for (const [k, r] of batch.rows.entries()) {
        if (r.length !== names.length) throw smlError('DS_INVALID', { ds, detail: `${batch.where(k)}: ${r.length} fields, the header has ${names.length}` });
        if (rows.length >= bounds.maxRows) throw smlError('DS_SELECT_TOO_LARGE', { ds, limit: bounds.maxRows, unit: 'rows', variable: 'SML_MAX_SELECT_DS_ROWS' });
        cost += 16 * r.length + r.reduce((a, c) => a + c.length, 0);
        if (cost > bounds.maxCost) throw smlError('DS_SELECT_TOO_LARGE', { ds, limit: bounds.maxCost, unit: 'bytes of cells', variable: 'SML_BODY_LIMIT' });
        rows.push(r);
      }
      ctx.signal?.throwIfAborted();
    }
  } catch (err) {
    if (ctx.signal?.aborted) throw err;
    return dsFailure(err, ds);
  }
  return { names, rows };
}

import { isDomainError, smlError } from '@sml/core';
import { csvBatches, csvOptionsOf, sourceOf, type SourceContext } from '@sml/sources';
import type { Encoder } from '@sml/stats';
import { checkKeyLength } from './encoders';

/** A decrypted DSInfo (API.md §2.4, §5). */
export interface DsInfo {
  type: string;
  name: string;
  info: Record<string, string>;
  /** Attribute type codes, one per column of the file. */
  extra: string[];
}

/**
 * The DSInfo a learnds body decrypted to: 500 (the seed's generic exception) when it is no
 * DSInfo at all, 400 for a malformed one.
 */
export function dsInfoOf(json: string): DsInfo {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    value = null;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw smlError('DS_NULL');
  const o = value as Record<string, unknown>;
  const info = o.info && typeof o.info === 'object' && !Array.isArray(o.info) ? o.info as Record<string, unknown> : {};
  return {
    type: typeof o.type === 'string' ? o.type : '',
    name: typeof o.name === 'string' ? o.name : '',
    info: Object.fromEntries(Object.entries(info).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])),
    extra: Array.isArray(o.extra) ? o.extra.map(String) : [],
  };
}

/** Spark DSInfos name their columns in `info.sparkdf` (comma-separated); Spark itself is not available here. */
export function isSpark(ds: DsInfo): boolean {
  return ds.type.toLowerCase() === 'spark' || ds.info.sparkdf !== undefined;
}

/** The checks done before a Spark learnds is scheduled: the columns name the target and are not too many. */
export function checkSpark(ds: DsInfo, target: string, maxColumns: number): void {
  const columns = (ds.info.sparkdf ?? '').split(',').map((c) => c.trim()).filter((c) => c !== '');
  if (!columns.includes(target)) throw smlError('ENCODER_SPARK', { detail: `info.sparkdf does not name the target column [${target}]` });
  if (columns.length > maxColumns) throw smlError('ENCODER_SPARK', { detail: `info.sparkdf names ${columns.length} columns, more than ${maxColumns} (SML_MAX_ATTRIBUTES)` });
}

/**
 * Reads a data source into `staging` (types from `extra`, one per column), batch by batch,
 * reporting bytes read (CSV sources) or rows read (redshift / PostgreSQL). Any failure is
 * the job's failure (500, naming the cause).
 */
export async function learnDataSource(ds: DsInfo, staging: Encoder, ctx: SourceContext, limits: { maxValues: number; maxKeyLength: number }, progress: (current: number, maximum: number) => void): Promise<number> {
  const { maxValues, maxKeyLength } = limits;
  const fail = (detail: string, cause?: unknown) => smlError('GENERIC_EXCEPTION', { detail: `Data source [${ds.name}]: ${detail}` }, cause);
  try {
    const source = sourceOf(ds.type, ds.info, ctx);
    const total = (await source.size()) ?? 0;
    let rows = 0;
    if (source.kind === 'rows') {
      // redshift / PostgreSQL: rows already split; progress counts rows.
      const header = await source.columns();
      if (ds.extra.length !== header.length) throw fail(`extra has ${ds.extra.length} attribute types for ${header.length} columns`);
      checkKeyLength(header, maxKeyLength);
      for await (const batch of source.open(2000)) {
        if (ctx.signal?.aborted) throw smlError('JOB_CANCELLED');
        rows += staging.learn({ attributeNames: header, attributeTypes: ds.extra, data: batch.map((r) => r.map((c) => c ?? '')) }, maxValues);
        progress(rows, Math.max(total, rows));
      }
      return rows;
    }
    for await (const batch of csvBatches(source.open(), csvOptionsOf(ds.info, ds.info.path ?? ''))) {
      if (ds.extra.length !== batch.header.length) throw fail(`extra has ${ds.extra.length} attribute types for ${batch.header.length} columns`);
      checkKeyLength(batch.header, maxKeyLength);
      rows += staging.learn({ attributeNames: batch.header, attributeTypes: ds.extra, data: batch.rows }, maxValues);
      progress(batch.bytesRead, Math.max(total, batch.bytesRead));
    }
    return rows;
  } catch (err) {
    // The source's, the frame's or a limit's own words (a failed job: the seed's 500).
    if (isDomainError(err)) throw fail(err.message, err);
    throw err;
  }
}

/**
 * Writers of data sources (a batch prediction's output, API.md §12 `dss/predict`): rows go
 * to a sink in batches and become visible only when the sink commits, so a failed or
 * cancelled job leaves nothing behind. `localfile`: a CSV file written to a temporary file in
 * the target's directory and renamed over the target at the end. `s3`: a CSV object written
 * as a multipart upload, completed at the end. `redshift` (PostgreSQL): rows inserted into a
 * table (created when absent) inside one transaction. `http` is not writable: `sinkOf`
 * (registry.ts) refuses it.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateMultipartUploadCommand, UploadPartCommand } from '@aws-sdk/client-s3';
import { escapeIdentifier, type Client } from 'pg';
import { csvOptionsOf } from './csv';
import { checkLocalPathText, resolveLocalOutputPath } from './localfile';
import { connection, guardedClient, pgFailure, quoteTable } from './postgres';
import { rethrowS3, s3ObjectKey, s3Target } from './s3';
import { SourceError, type SourceContext, type SourceInfo } from './types';

export interface SinkReport {
  rowsWritten: number;
  /** Bytes of the file written (localfile); 0 for a table. */
  bytesWritten: number;
}

/** Where rows go: `begin` once with the columns, `write` per batch, then `commit` or `abort`. */
export interface RowSink {
  /** What messages name: a relative path, `host:port/db/table`. */
  describe(): string;
  /**
   * Called once before the first rows. `numeric[c]`: column c holds numbers (a table's
   * column is then `double precision`; a file ignores it).
   */
  begin(columns: string[], numeric: boolean[]): Promise<void>;
  /** Cells as text; '' is a missing cell. */
  write(rows: string[][]): Promise<void>;
  /** Makes everything written visible at once. */
  commit(): Promise<SinkReport>;
  /** Drops everything written; never throws. */
  abort(): Promise<void>;
}

/** A number as PostgreSQL's double precision reads it (NaN and ±Infinity included). */
const NUMBER = /^\s*(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?Infinity|NaN)\s*$/;

/** One CSV field: quoted when it holds the separator, the quote or a line break. */
function csvField(cell: string, sep: string, quote: string): string {
  if (!cell.includes(sep) && !cell.includes(quote) && !cell.includes('\n') && !cell.includes('\r')) return cell;
  return quote + cell.split(quote).join(quote + quote) + quote;
}

/**
 * The bytes of a CSV output: a header row then rows, with the DSInfo's separator and quote;
 * gzipped when the path ends in .gz, one gzip member per call (gunzip reads them as one stream).
 */
function csvWriter(info: SourceInfo, path: string): (rows: string[][]) => Buffer {
  const { separator = ',', quote = '"', gzip = false } = csvOptionsOf(info, path);
  return (rows) => {
    let text = '';
    for (const r of rows) text += r.map((c) => csvField(c, separator, quote)).join(separator) + '\n';
    return gzip ? gzipSync(text) : Buffer.from(text, 'utf8');
  };
}

/** `localfile` output: CSV with a header row (`.gz` paths gzipped), the DSInfo's separator and quote. */
export function localFileSink(info: SourceInfo, ctx: SourceContext): RowSink {
  const path = info.path;
  checkLocalPathText(path);
  const csv = csvWriter(info, path);
  let handle: FileHandle | undefined;
  let temp = '';
  let target = '';
  let rowsWritten = 0;
  let bytesWritten = 0;
  const put = async (rows: string[][]) => {
    ctx.signal?.throwIfAborted();
    const bytes = csv(rows);
    await handle!.write(bytes);
    bytesWritten += bytes.length;
  };
  return {
    describe: () => path,
    async begin(columns) {
      const { full, dir } = await resolveLocalOutputPath(path, ctx);
      target = full;
      temp = join(dir, `.${basename(full)}.${randomBytes(6).toString('hex')}.tmp`);
      try {
        handle = await open(temp, 'wx', 0o640);
      } catch (err) {
        throw new SourceError('denied', `File [${path.slice(0, 200)}] cannot be written`, { cause: err });
      }
      await put([columns]);
    },
    async write(rows) {
      if (rows.length === 0) return;
      await put(rows);
      rowsWritten += rows.length;
    },
    async commit() {
      ctx.signal?.throwIfAborted();
      await handle!.sync();
      await handle!.close();
      handle = undefined;
      await rename(temp, target);
      return { rowsWritten, bytesWritten };
    },
    async abort() {
      await handle?.close().catch(() => undefined);
      handle = undefined;
      if (temp) await unlink(temp).catch(() => undefined);
    },
  };
}

/**
 * An S3 multipart upload's part: S3 takes 5 MiB to 5 GiB a part (the last one may be smaller)
 * and at most 10 000 parts, so an output may reach 80 GiB. A job holds one part in memory.
 */
export const S3_PART_BYTES = 8 * 2 ** 20;
const S3_MAX_PARTS = 10_000;

/**
 * `s3` output: the same CSV as localfile, as one object written by a multipart upload (parts
 * of `partBytes`; tests write smaller ones) that is completed at commit: the object appears
 * whole or not at all. abort aborts the upload (S3 then drops its parts).
 */
export function s3Sink(info: SourceInfo, ctx: SourceContext, partBytes = S3_PART_BYTES): RowSink {
  const key = s3ObjectKey(info);
  const { client, bucket, guard, describe } = s3Target(info, ctx);
  const what = describe(key);
  const csv = csvWriter(info, key);
  let uploadId: string | undefined;
  const parts: { ETag: string; PartNumber: number }[] = [];
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let rowsWritten = 0;
  let bytesWritten = 0;
  const call = async <T>(send: () => Promise<T>): Promise<T> => {
    try {
      guard();
      return await send();
    } catch (error) {
      rethrowS3(error, what, ctx.signal);
    }
  };
  /** Uploads what is pending as the next part (the last one may be small, or empty when it is the only one). */
  const flush = async () => {
    if (parts.length >= S3_MAX_PARTS) throw new SourceError('invalid', `${what}: the output is larger than ${S3_MAX_PARTS} parts of ${partBytes} bytes`);
    const body = Buffer.concat(pending);
    pending = [];
    pendingBytes = 0;
    const PartNumber = parts.length + 1;
    const part = await call(() => client.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: uploadId, PartNumber, Body: body }), { abortSignal: ctx.signal }));
    if (!part.ETag) throw new SourceError('unreachable', `${what}: S3 answered part ${PartNumber} without an ETag`);
    parts.push({ ETag: part.ETag, PartNumber });
  };
  const put = async (rows: string[][]) => {
    ctx.signal?.throwIfAborted();
    const bytes = csv(rows);
    pending.push(bytes);
    pendingBytes += bytes.length;
    bytesWritten += bytes.length;
    if (pendingBytes >= partBytes) await flush();
  };
  return {
    describe: () => what,
    async begin(columns) {
      const created = await call(() => client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: 'text/csv' }), { abortSignal: ctx.signal }));
      uploadId = created.UploadId;
      if (!uploadId) throw new SourceError('unreachable', `${what}: S3 answered the upload's creation without an UploadId`);
      await put([columns]);
    },
    async write(rows) {
      if (rows.length === 0) return;
      await put(rows);
      rowsWritten += rows.length;
    },
    async commit() {
      ctx.signal?.throwIfAborted();
      if (pendingBytes > 0 || parts.length === 0) await flush();
      await call(() => client.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: parts } }), { abortSignal: ctx.signal }));
      uploadId = undefined;
      client.destroy();
      return { rowsWritten, bytesWritten };
    },
    async abort() {
      pending = [];
      const id = uploadId;
      uploadId = undefined;
      // Best effort, without the job's signal (a cancel is what brings most aborts here).
      if (id) await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: id })).catch(() => undefined);
      client.destroy();
    },
  };
}

/** Rows per INSERT statement: PostgreSQL takes at most 65 535 parameters. */
const MAX_PARAMETERS = 60_000;

/**
 * `redshift` output: `info.path` names a table (`schema.table`, not a query). One
 * transaction: the table is created when absent (text columns, `double precision` for
 * numeric ones), rows are inserted by column name, and the whole is committed at the end or
 * rolled back (a failure, a cancel: nothing is written, not even the table).
 */
export function postgresSink(info: SourceInfo, ctx: SourceContext): RowSink {
  // The reader's connection: the same URL forms, credentials, TLS and SSRF guard.
  const conn = connection(info, ctx);
  const { where } = conn;
  const path = info.path?.trim() ?? '';
  if (!path) throw new SourceError('invalid', 'redshift data source: info.path (a table) is required');
  if (/^\s*(select|with)\b/i.test(path)) throw new SourceError('invalid', `redshift data source: info.path [${path.slice(0, 200)}] is a query; an output must name a table`);
  const table = quoteTable(path);
  const what = `redshift ${where}/${path}`;
  let client: Client | undefined;
  let insert = '';
  let width = 0;
  let numericCols: boolean[] = [];
  let rowsWritten = 0;
  const failure = (error: unknown): unknown => (ctx.signal?.aborted ? ctx.signal.reason : error instanceof SourceError ? error : pgFailure(error, what));
  const onAbort = () => { void client?.end().catch(() => undefined); };
  return {
    describe: () => what,
    async begin(columns, numeric) {
      ctx.signal?.throwIfAborted();
      const c = guardedClient(conn, ctx);
      c.on('error', () => undefined);
      client = c;
      ctx.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        await c.connect();
        await c.query('BEGIN');
        const defs = columns.map((name, i) => `${escapeIdentifier(name)} ${numeric[i] ? 'double precision' : 'text'}`);
        await c.query(`CREATE TABLE IF NOT EXISTS ${table} (${defs.join(', ')})`);
      } catch (error) {
        throw failure(error);
      }
      width = columns.length;
      numericCols = numeric;
      insert = `INSERT INTO ${table} (${columns.map((n) => escapeIdentifier(n)).join(', ')}) VALUES `;
    },
    async write(rows) {
      const per = Math.max(1, Math.floor(MAX_PARAMETERS / Math.max(1, width)));
      for (let start = 0; start < rows.length; start += per) {
        ctx.signal?.throwIfAborted();
        const chunk = rows.slice(start, start + per);
        const values: (string | null)[] = [];
        const tuples = chunk.map((r, k) => {
          const marks: string[] = [];
          for (let c = 0; c < width; c++) {
            const cell = r[c] ?? '';
            if (cell === '') values.push(null);
            else if (numericCols[c] && !NUMBER.test(cell)) throw new SourceError('invalid', `${what}: value [${cell.slice(0, 100)}] of row ${rowsWritten + start + k + 1} is not a number`);
            else values.push(cell);
            marks.push(`$${values.length}`);
          }
          return `(${marks.join(', ')})`;
        });
        try {
          await client!.query(insert + tuples.join(', '), values);
        } catch (error) {
          throw failure(error);
        }
      }
      rowsWritten += rows.length;
    },
    async commit() {
      ctx.signal?.throwIfAborted();
      try {
        await client!.query('COMMIT');
      } catch (error) {
        throw failure(error);
      } finally {
        ctx.signal?.removeEventListener('abort', onAbort);
        await client?.end().catch(() => undefined);
        client = undefined;
      }
      return { rowsWritten, bytesWritten: 0 };
    },
    async abort() {
      ctx.signal?.removeEventListener('abort', onAbort);
      // Ending the connection inside the transaction rolls it back.
      await client?.query('ROLLBACK').catch(() => undefined);
      await client?.end().catch(() => undefined);
      client = undefined;
    },
  };
}

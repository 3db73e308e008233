/**
 * Writers of data sources (a batch prediction's output, API.md §12 `dss/predict`): rows go
 * to a sink in batches and become visible only when the sink commits, so a failed or
 * cancelled job leaves nothing behind. `localfile`: a CSV file written to a temporary file in
 * the target's directory and renamed over the target at the end. `redshift` (PostgreSQL):
 * rows inserted into a table (created when absent) inside one transaction.
 * `s3` and `http` are not writable (yet): `sinkOf` (registry.ts) refuses them.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { escapeIdentifier, type Client } from 'pg';
import { csvOptionsOf } from './csv';
import { checkLocalPathText, resolveLocalOutputPath } from './localfile';
import { connection, guardedClient, pgFailure, quoteTable } from './postgres';
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

/** `localfile` output: CSV with a header row (`.gz` paths gzipped), the DSInfo's separator and quote. */
export function localFileSink(info: SourceInfo, ctx: SourceContext): RowSink {
  const path = info.path;
  checkLocalPathText(path);
  const { separator = ',', quote = '"', gzip = false } = csvOptionsOf(info, path);
  let handle: FileHandle | undefined;
  let temp = '';
  let target = '';
  let rowsWritten = 0;
  let bytesWritten = 0;
  const put = async (text: string) => {
    ctx.signal?.throwIfAborted();
    // A .gz file is a sequence of gzip members, one per batch: gunzip reads them as one stream.
    const bytes = gzip ? gzipSync(text) : Buffer.from(text, 'utf8');
    await handle!.write(bytes);
    bytesWritten += bytes.length;
  };
  const line = (cells: string[]) => cells.map((c) => csvField(c, separator, quote)).join(separator) + '\n';
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
      await put(line(columns));
    },
    async write(rows) {
      if (rows.length === 0) return;
      let text = '';
      for (const r of rows) text += line(r);
      await put(text);
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

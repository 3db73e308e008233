/**
 * `redshift`: rows of a table or of a read-only query over the PostgreSQL wire protocol
 * (Amazon Redshift speaks it too). info: `rsurl` (`postgres[ql]://`, `redshift://` or the
 * same after `jdbc:`; host, port, database, `?sslmode=`), `rsuser`, `rspasswd`, `path` (a
 * table, optionally schema-qualified, or a query starting with SELECT or WITH).
 *
 * Rows come through a server-side cursor (pg-cursor), `batchRows` at a time, so memory is
 * bounded by one batch; every read runs in a READ ONLY transaction, which is what keeps a
 * customer's query from writing (a WITH … DELETE is refused by the server).
 *
 * The connection goes through the SSRF guard (ssrf.ts): pg's socket resolves the host with
 * the guarded lookup, so the address connected to is the address checked (no window for DNS
 * rebinding); an IP-literal host, which Node connects to without a lookup, is checked before
 * the client is made.
 */
import { Socket, type LookupFunction } from 'node:net';
import { Client, escapeIdentifier, type ClientConfig, type CustomTypesConfig } from 'pg';
import Cursor from 'pg-cursor';
import { checkLiteral, guardedLookup } from './ssrf';
import { SourceError, type RowSource, type SourceContext, type SourceFactory, type SourceInfo } from './types';

export interface Connection {
  config: ClientConfig;
  /** The host as given (no brackets): what the guard checks. */
  host: string;
  /** `host:port/database`, no credentials. */
  where: string;
}

/** Cells as the server's text, as a CSV file would hold them (no Date, number or JSON parsing). */
const AS_TEXT = { getTypeParser: () => (value: string) => value } as unknown as CustomTypesConfig;

const SCHEMES: Record<string, number> = { 'postgres:': 5432, 'postgresql:': 5432, 'redshift:': 5439 };

export function connection(info: SourceInfo, ctx: SourceContext): Connection {
  const raw = info.rsurl?.trim();
  if (!raw) throw new SourceError('invalid', 'redshift data source: info.rsurl is required');
  let url: URL;
  try {
    url = new URL(raw.replace(/^jdbc:/i, ''));
  } catch {
    throw new SourceError('invalid', 'redshift data source: info.rsurl is not a postgres:// or redshift:// URL');
  }
  const defaultPort = SCHEMES[url.protocol.toLowerCase()];
  if (defaultPort === undefined || url.hostname === '') throw new SourceError('invalid', 'redshift data source: info.rsurl is not a postgres:// or redshift:// URL');
  const user = info.rsuser?.trim() || decodeURIComponent(url.username);
  if (!user) throw new SourceError('invalid', 'redshift data source: info.rsuser is required');
  const password = info.rspasswd ?? decodeURIComponent(url.password);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port === '' ? defaultPort : Number(url.port);
  const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || user;
  const sslmode = url.searchParams.get('sslmode') ?? (url.searchParams.get('ssl') === 'true' ? 'require' : 'disable');
  const ssl = ['require', 'verify-ca', 'verify-full'].includes(sslmode) ? { rejectUnauthorized: sslmode !== 'require' } : undefined;
  return {
    config: { host, port, database, user, password, ssl, connectionTimeoutMillis: ctx.timeoutMs, types: AS_TEXT },
    host,
    where: `${url.hostname}:${port}/${database}`,
  };
}

/** The socket pg connects with `connect(port, host)`, resolving `host` through `lookup`. */
function socketWith(lookup: LookupFunction): Socket {
  const socket = new Socket();
  const connect = socket.connect.bind(socket);
  return Object.assign(socket, { connect: (port: number, host: string) => connect({ port, host, lookup }) });
}

/** A client of the connection whose socket goes through the SSRF guard (the reader's and the writer's, sinks.ts). */
export function guardedClient({ config, host, where }: Connection, ctx: SourceContext): Client {
  checkLiteral(ctx, `redshift ${where}`, host);
  const lookup = guardedLookup(ctx, `redshift ${where}`);
  return new Client({ ...config, stream: () => socketWith(lookup) });
}

const IDENTIFIER = /^(?:"((?:[^"]|"")+)"|([A-Za-z_][A-Za-z0-9_$]*))$/;

/**
 * A table name as PostgreSQL reads it (an unquoted part folds to lower case, a quoted one
 * is kept), re-quoted so that nothing but a name reaches the SQL text.
 */
export function quoteTable(path: string): string {
  const parts = path.trim().match(/"(?:[^"]|"")+"|[^.]+/g) ?? [];
  if (parts.length === 0 || parts.length > 2 || parts.join('.') !== path.trim()) throw new SourceError('invalid', `redshift data source: info.path [${path.slice(0, 200)}] is neither a table name nor a SELECT query`);
  return parts.map((part) => {
    const m = IDENTIFIER.exec(part);
    if (!m) throw new SourceError('invalid', `redshift data source: info.path [${path.slice(0, 200)}] is neither a table name nor a SELECT query`);
    return escapeIdentifier(m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2].toLowerCase());
  }).join('.');
}

const QUERY = /^\s*(select|with)\b/i;

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE']);

/** The customer's reason for a pg failure (SQLSTATE or socket error); pg's messages carry no password. */
export function pgFailure(error: unknown, what: string): SourceError {
  // Duck-typed: socket errors may come from another realm (jest's), where instanceof fails.
  const { code, message: raw } = (error ?? {}) as { code?: unknown; message?: unknown };
  const message = typeof raw === 'string' ? raw : String(error);
  const as = (reason: SourceError['reason'], text: string) => new SourceError(reason, `${what}: ${text}`, { cause: error });
  if (typeof code === 'string') {
    if (code === '28P01' || code === '28000') return as('denied', `authentication failed (${message})`);
    if (code === '42501') return as('denied', message);
    if (code === '42P01' || code === '3F000' || code === '3D000') return as('not-found', message);
    if (code === '25006') return as('invalid', `the query must only read (${message})`);
    if (code.startsWith('42') || code.startsWith('22') || code === '0A000') return as('invalid', message);
    if (UNREACHABLE_CODES.has(code)) return as('unreachable', `server unreachable (${code})`);
  }
  if (/timeout/i.test(message)) return as('unreachable', 'server unreachable (connection timeout)');
  return as('unreachable', message);
}

export const postgresSource: SourceFactory = (info, ctx): RowSource => {
  const { config, host, where } = connection(info, ctx);
  const path = info.path?.trim();
  if (!path) throw new SourceError('invalid', 'redshift data source: info.path (a table or a SELECT query) is required');
  const isQuery = QUERY.test(path);
  const text = path.replace(/[\s;]+$/, '');
  const relation = isQuery ? `(${text}) AS sml_query` : quoteTable(path);
  // The query itself, not wrapped: PostgreSQL allows a data-modifying WITH only at the top
  // level, where the READ ONLY transaction is what refuses it, naming why.
  const rowsSql = isQuery ? text : `SELECT * FROM ${relation}`;
  const what = isQuery ? `redshift ${where} query` : `redshift ${where}/${path}`;

  const failure = (error: unknown): unknown => {
    if (ctx.signal?.aborted) return ctx.signal.reason;
    return error instanceof SourceError ? error : pgFailure(error, what);
  };

  /**
   * A connection in a READ ONLY transaction, ended by closing the connection (nothing to
   * commit); aborting the context closes it too.
   */
  async function connect(): Promise<{ client: Client; close: () => Promise<void> }> {
    ctx.signal?.throwIfAborted();
    const client = guardedClient({ config, host, where }, ctx);
    // A connection lost later is also reported by the pending query, which is where it is handled.
    client.on('error', () => undefined);
    const onAbort = () => { void client.end(); };
    ctx.signal?.addEventListener('abort', onAbort, { once: true });
    const close = async () => {
      ctx.signal?.removeEventListener('abort', onAbort);
      await client.end().catch(() => undefined);
    };
    try {
      await client.connect();
      await client.query('BEGIN READ ONLY');
      return { client, close };
    } catch (error) {
      await close();
      throw failure(error);
    }
  }

  async function query<T>(work: (client: Client) => Promise<T>): Promise<T> {
    const { client, close } = await connect();
    try {
      return await work(client);
    } catch (error) {
      throw failure(error);
    } finally {
      await close();
    }
  }

  return {
    kind: 'rows',
    describe: () => what,
    columns: () => query(async (client) => (await client.query(`SELECT * FROM ${relation} LIMIT 0`)).fields.map((f) => f.name)),
    size: () => isQuery
      ? Promise.resolve(undefined)
      : query(async (client) => Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${relation}`)).rows[0].n)),
    async *open(batchRows: number) {
      if (!Number.isInteger(batchRows) || batchRows < 1) throw new RangeError(`batchRows must be a positive integer, got ${batchRows}`);
      const { client, close } = await connect();
      const cursor = client.query(new Cursor<(string | null)[]>(rowsSql, [], { rowMode: 'array', types: AS_TEXT }));
      try {
        for (;;) {
          const rows = await cursor.read(batchRows);
          if (rows.length === 0) break;
          yield rows;
          ctx.signal?.throwIfAborted();
        }
      } catch (error) {
        throw failure(error);
      } finally {
        // Ending the connection drops the cursor with it (and an aborted one is already ending).
        await close();
      }
    },
  };
};

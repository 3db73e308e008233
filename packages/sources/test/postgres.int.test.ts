// Reference: a real PostgreSQL server (Debian's), started by the testkit in a temp directory.
import { Client } from 'pg';
import { freePort, RssAfterWarmUp, startPostgres, type Postgres } from '@sml/testkit';
import { pgFailure, postgresSource } from '../src/postgres';
import { SourceError, type RowSource, type SourceContext, type SourceInfo } from '../src/types';

const ctx: SourceContext = { user: 'alice', filesRoot: '/nonexistent', timeoutMs: 5_000, allowPrivate: true };
const BIG_ROWS = 300_000;

let pg: Postgres;

async function sql(text: string): Promise<void> {
  const client = new Client({ connectionString: pg.url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  pg = await startPostgres();
  await sql(`
    CREATE TABLE measures (id int, x double precision, label text, at date);
    INSERT INTO measures VALUES (1, 1.5, 'a', '2024-01-31'), (2, NULL, 'b,c', NULL), (3, -2.25, NULL, '2024-02-29');
    CREATE SCHEMA lab;
    CREATE TABLE lab."Mixed Case" ("Weight" numeric, n bigint);
    INSERT INTO lab."Mixed Case" VALUES (0.1, 9007199254740993);
    CREATE TABLE big AS SELECT g AS id, g * 1.5 AS x, md5(g::text) AS h FROM generate_series(1, ${BIG_ROWS}) g;
    CREATE ROLE reader LOGIN;
    CREATE ROLE nologin NOLOGIN;
  `);
}, 120_000);

afterAll(() => pg.stop());

function info(extra: Record<string, string> = {}): SourceInfo {
  return { rsurl: `postgresql://127.0.0.1:${pg.port}/postgres`, rsuser: 'postgres', rspasswd: 'the-password', path: 'measures', ...extra };
}

function rows(source: ReturnType<typeof postgresSource>): RowSource {
  if (source.kind !== 'rows') throw new Error('a redshift source reads rows');
  return source;
}

async function readAll(source: RowSource, batchRows = 2): Promise<(string | null)[][][]> {
  const batches: (string | null)[][][] = [];
  for await (const batch of source.open(batchRows)) batches.push(batch);
  return batches;
}

async function failure(promise: Promise<unknown>): Promise<SourceError> {
  const error: unknown = await promise.then(() => undefined, (e: unknown) => e);
  if (!(error instanceof SourceError)) throw new Error(`expected a SourceError, got ${String(error)}`);
  return error;
}

function invalid(extra: Record<string, string>): unknown {
  try {
    postgresSource(info(extra), ctx);
  } catch (error) {
    return error instanceof SourceError ? error.reason : error;
  }
  return 'accepted';
}

describe('redshift (PostgreSQL) source', () => {
  it('reads a table in batches of at most batchRows, cells as the server\'s text and NULL as null', async () => {
    const source = rows(postgresSource(info(), ctx));
    expect(source.describe()).toBe(`redshift 127.0.0.1:${pg.port}/postgres/measures`);
    expect(await source.columns()).toEqual(['id', 'x', 'label', 'at']);
    expect(await source.size()).toBe(3);
    expect(await readAll(source, 2)).toEqual([
      [['1', '1.5', 'a', '2024-01-31'], ['2', null, 'b,c', null]],
      [['3', '-2.25', null, '2024-02-29']],
    ]);
  });

  it('names a table as PostgreSQL does: unquoted parts fold to lower case, quoted parts are kept, schema-qualified', async () => {
    expect((await readAll(rows(postgresSource(info({ path: 'Public.MEASURES' }), ctx)), 10)).flat()).toHaveLength(3);
    const mixed = rows(postgresSource(info({ path: 'lab."Mixed Case"' }), ctx));
    expect(await mixed.columns()).toEqual(['Weight', 'n']);
    expect(await readAll(mixed)).toEqual([[['0.1', '9007199254740993']]]);
    expect(invalid({ path: 'measures; DROP TABLE measures' })).toBe('invalid');
    expect(invalid({ path: 'a.b.c' })).toBe('invalid');
    expect(invalid({ path: '"unterminated' })).toBe('invalid');
  });

  it('reads a SELECT or WITH query, with no size', async () => {
    const source = rows(postgresSource(info({ path: 'SELECT id, label AS name FROM measures WHERE id > 1 ORDER BY id;' }), ctx));
    expect(source.describe()).toBe(`redshift 127.0.0.1:${pg.port}/postgres query`);
    expect(await source.columns()).toEqual(['id', 'name']);
    expect(await source.size()).toBeUndefined();
    expect(await readAll(source, 10)).toEqual([[['2', 'b,c'], ['3', null]]]);
    const cte = rows(postgresSource(info({ path: 'with t as (select count(*) as n from measures) select n from t' }), ctx));
    expect(await readAll(cte)).toEqual([[['3']]]);
  });

  it('a query that writes, or more than one statement, is refused and changes nothing', async () => {
    const writes = rows(postgresSource(info({ path: 'WITH gone AS (DELETE FROM measures RETURNING id) SELECT id FROM gone' }), ctx));
    const refused = await failure(readAll(writes));
    expect(refused.reason).toBe('invalid');
    expect(refused.message).toMatch(/must only read/);
    expect((await failure(writes.columns())).reason).toBe('invalid');
    expect((await failure(readAll(rows(postgresSource(info({ path: 'SELECT 1; DROP TABLE measures' }), ctx))))).reason).toBe('invalid');
    expect(await rows(postgresSource(info(), ctx)).size()).toBe(3);
  });

  it('a missing table or database is not-found', async () => {
    const table = await failure(readAll(rows(postgresSource(info({ path: 'nope' }), ctx))));
    expect(table.reason).toBe('not-found');
    expect(table.message).toMatch(/relation "nope" does not exist/);
    expect((await failure(rows(postgresSource(info({ path: 'lab.nope' }), ctx)).size())).reason).toBe('not-found');
    const database = rows(postgresSource(info({ rsurl: `postgres://127.0.0.1:${pg.port}/nodb` }), ctx));
    expect((await failure(database.columns())).reason).toBe('not-found');
  });

  it('an unknown role, a role that may not log in and a role without SELECT are denied, and no message holds the password', async () => {
    for (const user of ['ghost', 'nologin', 'reader']) {
      const error = await failure(readAll(rows(postgresSource(info({ rsuser: user }), ctx))));
      expect(error.reason).toBe('denied');
      expect(error.message).not.toMatch(/the-password/);
    }
    expect(pgFailure(Object.assign(new Error('password authentication failed for user "x"'), { code: '28P01' }), 'redshift h').reason).toBe('denied');
  });

  it('a server nobody listens on is unreachable', async () => {
    const port = await freePort();
    const error = await failure(readAll(rows(postgresSource(info({ rsurl: `redshift://127.0.0.1:${port}/dev` }), ctx))));
    expect(error.reason).toBe('unreachable');
    expect(error.message).toMatch(/ECONNREFUSED/);
  });

  it('bad info is invalid before connecting; jdbc: URLs and URL credentials are accepted', () => {
    expect(invalid({ rsurl: '' })).toBe('invalid');
    expect(invalid({ rsurl: 'mysql://127.0.0.1/db' })).toBe('invalid');
    expect(invalid({ rsurl: 'not a url' })).toBe('invalid');
    expect(invalid({ path: ' ' })).toBe('invalid');
    expect(invalid({ rsuser: '', rsurl: 'postgres://127.0.0.1/db' })).toBe('invalid');
    expect(invalid({ rsurl: 'jdbc:redshift://cluster.example.com:5439/dev' })).toBe('accepted');
    expect(rows(postgresSource(info({ rsuser: '', rsurl: 'postgres://bob:pw@127.0.0.1/db' }), ctx)).describe()).toBe('redshift 127.0.0.1:5432/db/measures');
  });

  it(`streams ${BIG_ROWS} rows through a cursor while memory grows far less than the rows`, async () => {
    const source = rows(postgresSource(info({ path: 'big' }), ctx));
    expect(await source.size()).toBe(BIG_ROWS);
    const rss = new RssAfterWarmUp(50_000);
    let longest = 0;
    let last = 0;
    for await (const batch of source.open(1000)) {
      longest = Math.max(longest, batch.length);
      last = Number(batch[batch.length - 1][0]);
      rss.read(batch.length);
    }
    expect(rss.total).toBe(BIG_ROWS);
    expect(longest).toBe(1000);
    expect(last).toBe(BIG_ROWS);
    // Keeping the 250 000 rows read after the warm-up would take some 40 MB of heap; half of
    // that is the bound, so a loaded machine's allocator slack cannot fail a streaming reader.
    expect(rss.growth).toBeLessThan(20 * 1024 * 1024);
  });

  it('aborting the context signal stops a read in progress with the abort reason', async () => {
    const controller = new AbortController();
    const source = rows(postgresSource(info({ path: 'big' }), { ...ctx, signal: controller.signal }));
    const reason = new Error('job cancelled');
    let count = 0;
    const reading = (async () => {
      for await (const batch of source.open(1000)) {
        count += batch.length;
        if (count >= 5000) controller.abort(reason);
      }
    })();
    await expect(reading).rejects.toBe(reason);
    expect(count).toBe(5000);
  });
});

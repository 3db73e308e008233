import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { startPostgres, type Postgres } from '../src/postgres';

const psql = (url: string, sql: string) => spawnSync('psql', [url, '-XAtqc', sql], { encoding: 'utf8', timeout: 10_000 });

describe('startPostgres', () => {
  let pg: Postgres | undefined;
  afterEach(() => pg?.stop());

  it('serves a fresh database on a loopback port with trust auth, and stop() removes it', async () => {
    pg = await startPostgres();
    expect(pg.url).toBe(`postgresql://postgres@127.0.0.1:${pg.port}/postgres`);

    const created = psql(pg.url, 'create table t (x int); insert into t values (1), (2); select sum(x) from t');
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe('3');
    expect(psql(pg.url, "select current_setting('listen_addresses')").stdout.trim()).toBe('127.0.0.1');

    const dataDir = psql(pg.url, 'show data_directory').stdout.trim();
    expect(existsSync(dataDir)).toBe(true);
    await pg.stop();
    expect(existsSync(dataDir)).toBe(false);
    expect(psql(pg.url, 'select 1').status).not.toBe(0);
  });

  it('two servers run side by side, each with its own data', async () => {
    const [a, b] = await Promise.all([startPostgres(), startPostgres()]);
    try {
      expect(a.port).not.toBe(b.port);
      psql(a.url, 'create table only_in_a (x int)');
      expect(psql(b.url, "select count(*) from pg_tables where tablename = 'only_in_a'").stdout.trim()).toBe('0');
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});

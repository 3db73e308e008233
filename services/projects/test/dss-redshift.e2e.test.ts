import { Client } from 'pg';
import { SmlClient } from '@sml/sdk';
import { newCustomer, sharedSystem, startPostgres, type Postgres, type SharedSystem } from '@sml/testkit';
import { SummaryReader } from './helpers';

// Issue 11: a redshift (PostgreSQL) data source learned through the gateway: the rows of a
// table arrive already split into cells (RowSource), are learned as a job like a file's,
// and the password is never answered.

describe('data sources (redshift / PostgreSQL) end to end', () => {
  let sys: SharedSystem;
  let pg: Postgres;
  let alice: SmlClient;
  let reader: SummaryReader;
  const ROWS = 5000;

  beforeAll(async () => {
    [pg, sys] = await Promise.all([startPostgres(), sharedSystem()]);
    const client = new Client({ connectionString: pg.url });
    await client.connect();
    try {
      await client.query(`CREATE TABLE m AS SELECT g AS id, (g % 17) * 0.5 AS x, (g % 2) AS b FROM generate_series(1, ${ROWS}) g;
        CREATE TABLE bad (x text); INSERT INTO bad VALUES ('1'), ('2'), ('oops'), ('4');`);
    } finally {
      await client.end();
    }
    alice = (await newCustomer(sys, 'alice')).sdk;
    reader = await SummaryReader.open(sys.nats);
  }, 120_000);
  afterAll(async () => {
    await reader?.close();
    alice?.close();
    await pg?.stop();
  });

  const info = (path: string) => ({ rsurl: `postgresql://127.0.0.1:${pg.port}/postgres`, rsuser: 'postgres', rspasswd: 'pg-secret-word', path });

  it('learns a table as a job; the DSInfo is answered without rspasswd', async () => {
    expect((await alice.createDataSource({ type: 'redshift', name: 'm', info: info('m') })).status).toBe(201);
    const got = await alice.request('GET', '/dss/m');
    expect(JSON.stringify(got.body)).not.toContain('pg-secret-word');
    await alice.createProject('p');
    const done = await alice.waitForJob(await alice.learnDataSource('p', 'm', { attributeNames: ['x', 'b'], attributeTypes: ['C', 'B'] }));
    expect(done.status).toBe(200);
    const s = await reader.full(alice.user, 'p');
    expect(s.rowCount).toBe(ROWS);
    expect(s.attributeNames).toEqual(['x', 'b']);
    // Mean of (g mod 17) / 2 over g = 1..5000, and of g mod 2.
    let sx = 0;
    let sb = 0;
    for (let g = 1; g <= ROWS; g++) {
      sx += (g % 17) * 0.5;
      sb += g % 2;
    }
    expect(s.mean('x')).toBeCloseTo(sx / ROWS, 10);
    expect(s.mean('b')).toBeCloseTo(sb / ROWS, 10);
    const sample = await alice.request<{ dataframe: { attributeNames: string[]; data: string[][] } }>('GET', '/dss/m/sample');
    expect(sample.body.values!.dataframe.attributeNames).toEqual(['id', 'x', 'b']);
    expect(sample.body.values!.dataframe.data).toHaveLength(128);
  });

  it('strict: a bad cell fails the job naming the row; nothing learned', async () => {
    await alice.createDataSource({ type: 'redshift', name: 'bad', info: info('bad') });
    await alice.createProject('q');
    const failed = await alice.waitForJob(await alice.learnDataSource('q', 'bad', { attributeNames: ['x'], attributeTypes: ['C'] }));
    expect(failed.status).toBe(500);
    expect(failed.body.statusString).toMatch(/row 3/);
    expect((await reader.full(alice.user, 'q')).rowCount).toBe(0);
    const wrong = await alice.waitForJob(await alice.learnDataSource('q', 'm', { attributeNames: ['nope'], attributeTypes: ['C'] }));
    expect(wrong.status).toBe(500);
    expect(wrong.body.statusString).toMatch(/has no column \[nope\]/);
  });
});

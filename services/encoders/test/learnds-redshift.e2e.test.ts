import { Client } from 'pg';
import { encryptDsInfo } from '@sml/core';
import { SmlClient } from '@sml/sdk';
import { newCustomer, sharedSystem, startPostgres, type Postgres, type SharedSystem } from '@sml/testkit';

// Issue 11: an encoder learns a redshift (PostgreSQL) data source as a job: the table's rows
// give the same key statistics as the same rows sent inline; an unknown database user fails
// the job without naming the password, and changes nothing.

describe('encoder learnds from redshift / PostgreSQL', () => {
  let sys: SharedSystem;
  let pg: Postgres;
  let alice: SmlClient;
  let secret: string;

  beforeAll(async () => {
    [pg, sys] = await Promise.all([startPostgres(), sharedSystem()]);
    const client = new Client({ connectionString: pg.url });
    await client.connect();
    try {
      await client.query(`CREATE TABLE clicks AS SELECT 's' || (g % 7) AS site, (g % 3 = 0)::int AS clicked FROM generate_series(1, 3000) g`);
    } finally {
      await client.end();
    }
    ({ sdk: alice, secret } = await newCustomer(sys, 'alice'));
  }, 120_000);
  afterAll(async () => {
    alice?.close();
    await pg?.stop();
  });

  const job = async (r: { headers: Record<string, string> }) => {
    for (;;) {
      const j = await alice.request('GET', `/jobs/${r.headers['sym-job-id']}`);
      if (j.status !== 202) return j;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const ds = (user: string) => ({ raw: encryptDsInfo({ type: 'redshift', name: 'c', info: { rsurl: `postgresql://127.0.0.1:${pg.port}/postgres`, rsuser: user, rspasswd: 'pg-secret-word', path: 'clicks' }, extra: ['S', 'B'] }, secret) });
  const keyvals = async (encoder: string) => ((await alice.request('GET', `/encoders/${encoder}/keyvals/site`)).body.values as { dataframe: { data: string[][] } }).dataframe.data;

  it('learns the table as the same rows inline; an unknown database user fails the job, learning nothing', async () => {
    for (const e of ['fromdb', 'inline']) expect((await alice.request('POST', '/encoders/create', { query: `encodername=${e}&targetName=clicked` })).status).toBe(201);
    const r = await alice.request('POST', '/encoders/fromdb/learnds', ds('postgres'));
    expect(r.status).toBe(202);
    expect((await job(r)).status).toBe(200);
    const data = Array.from({ length: 3000 }, (_, k) => [`s${(k + 1) % 7}`, String((k + 1) % 3 === 0 ? 1 : 0)]);
    expect((await alice.request('POST', '/encoders/inline/learn', { json: { attributeNames: ['site', 'clicked'], attributeTypes: ['S', 'B'], data } })).status).toBe(200);
    const learned = await keyvals('fromdb');
    expect(learned).toHaveLength(7);
    expect(learned).toEqual(await keyvals('inline'));

    const bad = await alice.request('POST', '/encoders/fromdb/learnds', ds('nobody'));
    const failed = await job(bad);
    expect(failed.status).toBe(500);
    expect(JSON.stringify(failed.body)).not.toContain('pg-secret-word');
    expect(await keyvals('fromdb')).toEqual(learned);
  });
});

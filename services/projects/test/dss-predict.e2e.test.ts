import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { nameToken } from '@sml/core';
import { SmlClient } from '@sml/sdk';
import { newCustomer, sharedSystem, startPostgres, type Postgres, type SharedSystem } from '@sml/testkit';

// API.md §12: batch scoring from a data source into another (dss/predict) and selectModel
// scored on a data source, end to end through the gateway. Every value written is checked
// against the inline predict endpoint's answer for the same rows: an independent check of
// the batch path.

type Predictions = { KSVSMap: { values: Record<string, string>[] } };
type Report = { predictReport: { rowsRead: number; rowsPredicted: number; rowsSkipped: number; bytesRead: number; bytesWritten: number; attributeNames: string[]; errors: string[] } };
type ModelInfo = { modelInfo: { algo: string; inputAttributeNames: string[]; assessment: Record<string, number>; info: Record<string, string> } };

/** Deterministic rows: x1, x2, y = 2·x1 − x2 + noise, c = 1 when y > 1, id text. */
function rows(n: number, seed: number): string[][] {
  const out: string[][] = [];
  let s = seed;
  const rnd = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  for (let i = 0; i < n; i++) {
    const x1 = Math.round(rnd() * 1000) / 100;
    const x2 = Math.round(rnd() * 1000) / 100;
    const y = Math.round((2 * x1 - x2 + (rnd() - 0.5) * 3) * 1000) / 1000;
    out.push([String(x1), String(x2), String(y), y > 1 ? '1' : '0', `r${i}`]);
  }
  return out;
}
const HEADER = ['x1', 'x2', 'y', 'c', 'id'];
// A covest on two inputs costs 2² steps a row: at most 150 rows per predict, fewer than score.csv's 250.
const PREDICT_STEPS = 600;
const csv = (header: string[], data: string[][]) => [header.join(','), ...data.map((r) => r.join(','))].join('\n') + '\n';

/** A CSV written by dss/predict (no field here needs quoting). */
function readOutput(path: string): { header: string[]; data: string[][] } {
  const lines = readFileSync(path, 'utf8').split('\n').filter((l) => l !== '');
  return { header: lines[0].split(','), data: lines.slice(1).map((l) => l.split(',')) };
}

describe('dss/predict and selectModel/{dsid} end to end', () => {
  let sys: SharedSystem;
  let pg: Postgres;
  let alice: SmlClient;
  let files: string;
  const score = rows(250, 7);
  // Missing cells are imputed by predict: the batch path must do the same.
  score[3][0] = '';
  score[10][1] = 'NA';

  const inline = async (model: string, data: string[][]) => {
    const r = await alice.request<Predictions>('POST', '/projects/p/predict/' + model, {
      json: { attributeNames: HEADER, attributeTypes: ['C', 'C', 'C', 'B', 'X'], data, errorHandling: 0 },
    });
    expect(r.status).toBe(200);
    return r.body.values!.KSVSMap.values;
  };
  const build = async (modelid: string, algo: string, target?: string) => {
    const r = await alice.request('POST', '/projects/p/build', { query: { modelid, algo }, json: { inputAttributeNames: ['x1', 'x2'], targetAttributeNames: target ? [target] : [] } });
    expect((await alice.waitForJob(r)).status).toBe(200);
  };
  const pgInfo = (path: string) => ({ rsurl: `postgresql://127.0.0.1:${pg.port}/postgres`, rsuser: 'postgres', rspasswd: 'pw', path });

  beforeAll(async () => {
    [pg, sys] = await Promise.all([startPostgres(), sharedSystem('limits')]);
    alice = (await newCustomer(sys, 'alice')).sdk;
    files = join(sys.dataDir, 'files', nameToken(alice.user));
    mkdirSync(files, { recursive: true });
    writeFileSync(join(files, 'train.csv'), csv(HEADER, rows(400, 1)));
    writeFileSync(join(files, 'score.csv'), csv(HEADER, score));
    writeFileSync(join(files, 'short.csv'), 'x1,x2,y,c,id\n1,2,3,1,a\n4,5,6,1,b\n7,8\n9,1,2,0,d\n');
    // A short row near the end (the reader yields a batch per 256 KiB chunk at most): earlier
    // batches were already inserted when it is met.
    const late = rows(40_000, 5).map((r) => r.join(','));
    late[39_998] = '1,2';
    writeFileSync(join(files, 'late.csv'), [HEADER.join(','), ...late].join('\n') + '\n');
    const big = rows(300_000, 3);
    writeFileSync(join(files, 'big.csv'), csv(HEADER, big));
    const outside = join(tmpdir(), `sml-outside-${process.pid}`);
    mkdirSync(outside, { recursive: true });
    symlinkSync(outside, join(files, 'escape'));

    for (const [name, path] of [['train', 'train.csv'], ['score', 'score.csv'], ['short', 'short.csv'], ['late', 'late.csv'], ['big', 'big.csv'], ['out', 'preds/out.csv'],
      ['out2', 'out2.csv'], ['bigout', 'bigout.csv'], ['shortout', 'shortout.csv'], ['anomout', 'anomout.csv'], ['escaped', 'escape/out.csv']] as const) {
      expect((await alice.createDataSource({ type: 'localfile', name, info: { path }, extra: ['C', 'C', 'C', 'B', 'X'] })).status).toBe(201);
    }
    expect((await alice.createDataSource({ type: 'redshift', name: 'pgout', info: pgInfo('public.preds_lr') })).status).toBe(201);
    expect((await alice.createDataSource({ type: 'redshift', name: 'pgshort', info: pgInfo('preds_short') })).status).toBe(201);
    expect((await alice.createDataSource({ type: 'http', name: 'web', info: { path: 'http://127.0.0.1:9/x.csv' } })).status).toBe(201);
    expect((await alice.createProject('p')).status).toBe(201);
    expect((await alice.waitForJob(await alice.learnDataSource('p', 'train', { attributeNames: ['x1', 'x2', 'y', 'c'], attributeTypes: ['C', 'C', 'C', 'B'] }))).status).toBe(200);
    await build('reg', 'mlr', 'y');
    await build('cls', 'lr', 'c');
    await build('anom', 'covest');
  }, 180_000);
  afterAll(async () => {
    alice?.close();
    await pg?.stop();
  });

  it('writes a localfile CSV: the input columns, then the prediction keys, each value as inline predict answers it', async () => {
    const r = await alice.predictDataSource('p', 'reg', 'score', 'out');
    expect(r.status).toBe(202);
    expect(r.body.statusString).toBe('Job Created');
    const done = await alice.waitForJob<Report>(r);
    expect(done.status).toBe(200);
    const report = done.body.values!.predictReport;
    expect(report).toMatchObject({ rowsRead: 250, rowsPredicted: 250, rowsSkipped: 0 });
    expect(report.bytesRead).toBe(readFileSync(join(files, 'score.csv')).length);
    const expected = await inline('reg', score);
    const keys = Object.keys(expected[0]);
    expect(keys).toContain('res');
    const out = readOutput(join(files, 'preds', 'out.csv'));
    expect(out.header).toEqual([...HEADER, ...keys]);
    expect(report.attributeNames).toEqual(out.header);
    expect(report.bytesWritten).toBe(readFileSync(join(files, 'preds', 'out.csv')).length);
    expect(out.data).toHaveLength(250);
    out.data.forEach((row, i) => {
      expect(row.slice(0, HEADER.length)).toEqual(score[i]);
      expect(row.slice(HEADER.length)).toEqual(keys.map((k) => expected[i][k]));
    });
    // No temporary file is left next to it.
    expect(readdirSync(join(files, 'preds'))).toEqual(['out.csv']);
  });

  it('predicts a model over SML_MAX_PREDICT_STEPS at a whole batch in pieces within it: every value as inline predict answers it', async () => {
    // Inline, the 250 rows at once are refused: the job must have split them.
    const whole = await alice.request<{ statusString: string }>('POST', '/projects/p/predict/anom', {
      json: { attributeNames: HEADER, attributeTypes: ['C', 'C', 'C', 'B', 'X'], data: score, errorHandling: 0 },
    });
    expect(whole.status).toBe(400);
    expect(whole.body.statusString).toContain(`${PREDICT_STEPS}`);
    const done = await alice.waitForJob<Report>(await alice.predictDataSource('p', 'anom', 'score', 'anomout'));
    expect(done.status).toBe(200);
    expect(done.body.values!.predictReport).toMatchObject({ rowsRead: 250, rowsPredicted: 250, rowsSkipped: 0 });
    const expected = [...(await inline('anom', score.slice(0, 125))), ...(await inline('anom', score.slice(125)))];
    const keys = Object.keys(expected[0]);
    expect(keys).toEqual(['res', 'score']);
    const out = readOutput(join(files, 'anomout.csv'));
    expect(out.header).toEqual([...HEADER, ...keys]);
    expect(out.data).toHaveLength(250);
    out.data.forEach((row, i) => expect(row.slice(HEADER.length)).toEqual(keys.map((k) => expected[i][k])));
  });

  it('inserts into a PostgreSQL table in one transaction: every prediction equals the inline one', async () => {
    const done = await alice.waitForJob<Report>(await alice.predictDataSource('p', 'cls', 'score', 'pgout'));
    expect(done.status).toBe(200);
    expect(done.body.values!.predictReport).toMatchObject({ rowsRead: 250, rowsPredicted: 250 });
    const expected = await inline('cls', score);
    const keys = Object.keys(expected[0]);
    const client = new Client({ connectionString: pg.url });
    await client.connect();
    try {
      const cols = await client.query<{ column_name: string; data_type: string }>("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'preds_lr' ORDER BY ordinal_position");
      expect(cols.rows.map((c) => c.column_name)).toEqual([...HEADER, ...keys]);
      expect(cols.rows[0].data_type).toBe('text');
      const got = await client.query<Record<string, string | number | null>>('SELECT * FROM public.preds_lr');
      expect(got.rows).toHaveLength(250);
      const byId = new Map(got.rows.map((r) => [String(r.id), r]));
      score.forEach((row, i) => {
        const r = byId.get(row[4])!;
        expect(r.x1).toBe(row[0] === '' ? null : row[0]);
        for (const k of keys) {
          const want = expected[i][k];
          const value = r[k];
          if (typeof value === 'number') expect(value).toBe(Number(want));
          else expect(String(value)).toBe(want);
        }
      });
    } finally {
      await client.end();
    }
  });

  it('selectModel/{dsid} gives the model and assessment the inline selectModel gives with the same rows', async () => {
    const ctx = { inputAttributeNames: ['x1', 'x2'], targetAttributeNames: ['y'], extraParameters: { selector_type: 'selector_type_fw_bw' } };
    const r = await alice.selectModelOnDataSource('p', 'score', 'fromDs', 'mlr', ctx);
    expect(r.status).toBe(202);
    expect(r.body.statusString).toBe('SelectModel Job Created');
    const viaDs = await alice.waitForJob<ModelInfo>(r);
    expect(viaDs.status).toBe(200);
    const viaFrame = await alice.waitForJob<ModelInfo>(await alice.request('POST', '/projects/p/selectModel', {
      query: { modelid: 'fromFrame', algo: 'mlr' },
      json: { mlcontext: ctx, dataframe: { attributeNames: HEADER, attributeTypes: ['C', 'C', 'C', 'B', 'X'], data: score } },
    }));
    expect(viaFrame.status).toBe(200);
    const a = viaDs.body.values!.modelInfo;
    const b = viaFrame.body.values!.modelInfo;
    expect(a.inputAttributeNames).toEqual(b.inputAttributeNames);
    expect(a.assessment).toEqual(b.assessment);
    expect(Object.keys(a.assessment).length).toBeGreaterThan(0);
    expect(a.info).toEqual(b.info);
    expect(await inline('fromDs', score)).toEqual(await inline('fromFrame', score));
  });

  it('answers as inline predict for an unknown model, names an unknown data source, a missing parameter, an unwritable output', async () => {
    const unknownInline = await alice.request('POST', '/projects/p/predict/nope', { json: { attributeNames: ['x1'], attributeTypes: ['C'], data: [['1']] } });
    const unknown = await alice.predictDataSource('p', 'nope', 'score', 'out2');
    expect(unknown.status).toBe(unknownInline.status);
    expect(unknown.body.statusString).toBe(unknownInline.body.statusString);
    expect(unknown.status).toBe(400);
    for (const [inDs, outDs, missing] of [['zz', 'out2', 'zz'], ['score', 'zz', 'zz']]) {
      const r = await alice.predictDataSource('p', 'reg', inDs, outDs);
      expect(r.status).toBe(400);
      expect(r.body.statusString).toBe(`DS '${missing}' not found`);
    }
    const noIn = await alice.request('POST', '/projects/p/dss/predict/reg', { query: { outdsname: 'out2' }, json: {} });
    expect(noIn.status).toBe(400);
    expect(noIn.body.statusString).toMatch(/indsname/);
    const noOut = await alice.request('POST', '/projects/p/dss/predict/reg', { query: { indsname: 'score' } });
    expect(noOut.status).toBe(400);
    expect(noOut.body.statusString).toMatch(/outdsname/);
    const web = await alice.predictDataSource('p', 'reg', 'score', 'web');
    expect(web.status).toBe(400);
    expect(web.body.statusString).toMatch(/Data source \[web\] of type \[http\] cannot be written/);
    const sel = await alice.selectModelOnDataSource('p', 'zz', 'm', 'mlr', { inputAttributeNames: ['x1'], targetAttributeNames: ['y'] });
    expect(sel.status).toBe(400);
    expect(sel.body.statusString).toBe("DS 'zz' not found");
    expect(existsSync(join(files, 'out2.csv'))).toBe(false);
  });

  it('refuses an output path that resolves outside the customer\'s files: the job fails, nothing is written there', async () => {
    const done = await alice.waitForJob(await alice.predictDataSource('p', 'reg', 'score', 'escaped'));
    expect(done.status).toBe(500);
    expect(done.body.statusString).toMatch(/resolves outside the customer's files root/);
    expect(readdirSync(join(tmpdir(), `sml-outside-${process.pid}`))).toEqual([]);
  });

  it('strict: a row of the wrong length fails the job naming file and line, no output; lenient: skipped and counted', async () => {
    const failed = await alice.waitForJob(await alice.predictDataSource('p', 'reg', 'short', 'shortout'));
    expect(failed.status).toBe(500);
    expect(failed.body.statusString).toMatch(/\[short\.csv\] line 4: 2 fields, the header has 5/);
    expect(existsSync(join(files, 'shortout.csv'))).toBe(false);
    const lenient = await alice.waitForJob<Report>(await alice.predictDataSource('p', 'reg', 'short', 'shortout', { errorHandling: 1 }));
    expect(lenient.status).toBe(200);
    expect(lenient.body.values!.predictReport).toMatchObject({ rowsRead: 4, rowsPredicted: 3, rowsSkipped: 1 });
    expect(lenient.body.values!.predictReport.errors[0]).toMatch(/line 4/);
    expect(readOutput(join(files, 'shortout.csv')).data.map((r) => r[4])).toEqual(['a', 'b', 'd']);
  });

  it('a job failing after its first batch was inserted into PostgreSQL rolls back: not even the table is left', async () => {
    const failed = await alice.waitForJob(await alice.predictDataSource('p', 'reg', 'late', 'pgshort'));
    expect(failed.status).toBe(500);
    expect(failed.body.statusString).toMatch(/nothing was written: \[late\.csv\] line 40000: 2 fields/);
    const client = new Client({ connectionString: pg.url });
    await client.connect();
    try {
      expect((await client.query("SELECT to_regclass('public.preds_short') AS t")).rows[0].t).toBeNull();
    } finally {
      await client.end();
    }
  });

  it('a cancelled job leaves no output file and no temporary file', async () => {
    const r = await alice.predictDataSource('p', 'reg', 'big', 'bigout');
    expect(r.status).toBe(202);
    const id = r.headers['sym-job-id'];
    for (let i = 0; i < 200; i++) {
      const j = await alice.getJob<{ jobinfo: { current: number } }>(id);
      if (j.status !== 202 || (j.body.values?.jobinfo?.current ?? 0) > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect((await alice.cancelJob(id)).status).toBe(200);
    const done = await alice.waitForJob(id);
    expect(done.status).toBe(500);
    expect(done.body.statusString).toBe('Job was cancelled');
    expect(readdirSync(files).filter((f) => f.includes('bigout'))).toEqual([]);
  });
});

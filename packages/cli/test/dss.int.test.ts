import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decryptDsInfo } from '@sml/core';
import { sml } from './run';
import { StandInGateway } from './standin';

// `sml dss …` against a stand-in gateway that checks the signature, records each request
// and answers the envelopes of API.md §5 (the service itself: services/projects dss tests).
describe('sml dss (against a stand-in gateway)', () => {
  let gw: StandInGateway;
  let dir: string;
  /** The DSInfo a request carried, decrypted with the customer's secret as the gateway does. */
  const sent = (i = 0) => decryptDsInfo(gw.seen[i].body as string, gw.env.SML_SECRET!);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sml-cli-dss-'));
    gw = await StandInGateway.start();
  });
  beforeEach(() => gw.reset());
  afterAll(async () => {
    await gw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('create sends the DSInfo of --type, --info and --extra, encrypted (v2)', async () => {
    gw.answer = () => ({ status: 201, statusString: 'DS [iris] created' });
    const r = await sml(['dss', 'create', 'iris', '--type', 'localfile', '--info', 'path=iris/Iris.csv', '--info', 'csv_entry_separator=;', '--extra', 'C,C,B'], gw.env);
    expect(r).toEqual({ code: 0, stdout: 'DS [iris] created\n', stderr: '' });
    expect([gw.seen[0].method, gw.seen[0].path]).toEqual(['POST', '/symetry/rest/c1/dss/create']);
    expect((gw.seen[0].body as string).startsWith('v2:')).toBe(true);
    expect(sent()).toEqual({ type: 'localfile', name: 'iris', info: { path: 'iris/Iris.csv', csv_entry_separator: ';' }, extra: ['C', 'C', 'B'] });
  });

  it('create and update read --file, the command line overriding it; update replaces the DSInfo of the name given', async () => {
    const file = join(dir, 'fares.json');
    writeFileSync(file, JSON.stringify({ type: 's3', name: 'ignored', info: { s3bucket: 'sales', path: 'a.csv', s3accessKey: 'AK', s3secretKey: 'SK', s3endpoint: 'http://s3.internal:9000' }, extra: ['C'] }));
    let r = await sml(['dss', 'create', 'fares', '--file', file, '--info', 'path=b.csv'], gw.env);
    expect(r.code).toBe(0);
    expect(sent()).toEqual({ type: 's3', name: 'fares', info: { s3bucket: 'sales', path: 'b.csv', s3accessKey: 'AK', s3secretKey: 'SK', s3endpoint: 'http://s3.internal:9000' }, extra: ['C'] });
    gw.reset();
    r = await sml(['dss', 'update', 'fares', '--file', file, '--extra', 'C,B'], gw.env);
    expect(r).toEqual({ code: 0, stdout: 'OK\n', stderr: '' });
    expect([gw.seen[0].method, gw.seen[0].path]).toEqual(['PUT', '/symetry/rest/c1/dss/fares']);
    expect(sent()).toMatchObject({ type: 's3', name: 'fares', info: { path: 'a.csv', s3secretKey: 'SK' }, extra: ['C', 'B'] });
  });

  it('refuses a DSInfo without a type, an unknown type and a bad --file before sending anything', async () => {
    let r = await sml(['dss', 'create', 'x', '--info', 'path=a.csv'], gw.env);
    expect(r).toEqual({ code: 1, stdout: '', stderr: 'sml: --type (localfile, s3, redshift, http) is required, or a --file whose DSInfo has a type\n' });
    r = await sml(['dss', 'create', 'x', '--type', 'ftp'], gw.env);
    expect([r.code, r.stderr]).toEqual([1, expect.stringContaining("error: option '--type <type>' argument 'ftp' is invalid. Allowed choices are localfile, s3, redshift, http.")]);
    r = await sml(['dss', 'create', 'x', '--type', 'http', '--info', 'path'], gw.env);
    expect([r.code, r.stderr]).toEqual([1, expect.stringContaining("expected key=value, got 'path'")]);
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ type: 'http', info: { path: ['x'] } }));
    r = await sml(['dss', 'create', 'x', '--file', file], gw.env);
    expect(r).toEqual({ code: 1, stdout: '', stderr: `sml: ${file}: info.path must be a string\n` });
    r = await sml(['dss', 'browse', '--type', 'http', '--info', 'path=x'], gw.env);
    expect([r.code, r.stderr]).toEqual([1, expect.stringContaining('Allowed choices are localfile, s3.')]);
    expect(gw.seen).toEqual([]);
  });

  it('list, show (no secrets come back), delete', async () => {
    gw.answer = (s) => (s.method === 'DELETE' ? { status: 400, statusString: "DS 'nope' not found" }
      : s.path.endsWith('/dss') ? { status: 200, statusString: 'OK', values: { stringList: { values: ['iris:localfile', 'fares:s3'] } } }
        : { status: 200, statusString: 'OK', values: { dsInfo: { type: 's3', name: 'fares', info: { s3bucket: 'sales', path: 'a.csv' }, extra: ['C', 'B'] } } });
    let r = await sml(['dss', 'list'], gw.env);
    expect(r.stdout).toMatch(/^NAME +TYPE\niris +localfile\nfares +s3\n$/);
    r = await sml(['dss', 'show', 'fares'], gw.env);
    expect(r.stdout).toMatch(/^FIELD +VALUE\nname +fares\ntype +s3\ninfo\.s3bucket +sales\ninfo\.path +a\.csv\nextra +C,B\n$/);
    r = await sml(['dss', 'delete', 'nope'], gw.env);
    expect(r).toEqual({ code: 1, stdout: '', stderr: "DS 'nope' not found\n" });
    expect(gw.seen.map((s) => `${s.method} ${s.path}`)).toEqual(['GET /symetry/rest/c1/dss', 'GET /symetry/rest/c1/dss/fares', 'DELETE /symetry/rest/c1/dss/nope']);
    gw.reset();
    gw.answer = () => ({ status: 200, statusString: 'OK', values: { stringList: { values: [] } } });
    expect((await sml(['dss', 'list'], gw.env)).stdout).toBe('No data sources\n');
  });

  it('sample and preview print the rows under their names and types', async () => {
    const dataframe = { attributeNames: ['x', 'label'], attributeTypes: ['C', 'T'], data: [['1.5', 'a'], ['2', 'b,c']], errorHandling: 0 };
    gw.answer = () => ({ status: 200, statusString: 'OK', values: { dataframe } });
    let r = await sml(['dss', 'sample', 'm'], gw.env);
    expect(r.stdout).toMatch(/^x \(C\) +label \(T\)\n1\.5 +a\n2 +b,c\n$/);
    r = await sml(['dss', 'preview', '--type', 'redshift', '--info', 'rsurl=postgres://db:5432/sales', '--info', 'rsuser=r', '--info', 'path=SELECT x, label FROM m'], gw.env);
    expect(r.code).toBe(0);
    expect(gw.seen.map((s) => `${s.method} ${s.path}`)).toEqual(['GET /symetry/rest/c1/dss/m/sample', 'POST /symetry/rest/c1/dss/sample/preview']);
    expect(sent(1)).toEqual({ type: 'redshift', name: 'preview', info: { rsurl: 'postgres://db:5432/sales', rsuser: 'r', path: 'SELECT x, label FROM m' }, extra: [] });
  });

  it('browse lists folders (with /) then files', async () => {
    gw.answer = () => ({ status: 200, statusString: 'OK', values: { dsdirectoryListing: { ok: true, dirs: ['sub'], files: ['iris.csv', 'x.csv.gz'], path: 'iris' } } });
    const r = await sml(['dss', 'browse', '--type', 'localfile', '--info', 'path=iris'], gw.env);
    expect(r).toEqual({ code: 0, stdout: 'sub/\niris.csv\nx.csv.gz\n', stderr: '' });
    expect(gw.seen[0].path).toBe('/symetry/rest/c1/projects/dsbrowse');
    expect(sent()).toEqual({ type: 'localfile', name: 'browse', info: { path: 'iris' }, extra: [] });
  });

  it('learn prints the job; with --wait it follows the job and prints the rows learned', async () => {
    gw.answer = () => ({ status: 202, statusString: 'Job Created', headers: { 'sym-job-id': '42' } });
    let r = await sml(['dss', 'learn', 'p', 'iris', '--columns', 'x1,x2, y', '--types', 'C,C,B', '--lenient'], gw.env);
    expect(r).toEqual({ code: 0, stdout: 'Job Created: job 42 (sml jobs get 42 --wait)\n', stderr: '' });
    expect([gw.seen[0].method, gw.seen[0].path, gw.seen[0].body]).toEqual([
      'POST', '/symetry/rest/c1/projects/p/dss/iris/learn', { attributeNames: ['x1', 'x2', 'y'], attributeTypes: ['C', 'C', 'B'], errorHandling: 1 },
    ]);
    gw.reset();
    gw.answer = (s, i) => (s.path.endsWith('/forget') ? { status: 202, statusString: 'Job Created', headers: { 'sym-job-id': '43' } }
      : i === 1 ? { status: 202, statusString: 'OK', values: { jobinfo: { jobId: 43, isDone: false } } }
        : { status: 200, statusString: 'OK', values: { learnReport: { rowsLearned: 149, rowsSkipped: 1, errors: ['[iris.csv] line 7: not a number'] } } });
    r = await sml(['dss', 'forget', 'p', 'iris', '--wait'], gw.env);
    expect(r).toEqual({ code: 0, stdout: 'Forgot 149 rows of data source iris from project p (1 row skipped)\n[iris.csv] line 7: not a number\n', stderr: 'job 43: running\n' });
    expect(gw.seen.map((s) => `${s.method} ${s.path}`)).toEqual([
      'POST /symetry/rest/c1/projects/p/dss/iris/forget', 'GET /symetry/rest/c1/jobs/43', 'GET /symetry/rest/c1/jobs/43',
    ]);
    expect(gw.seen[0].body).toEqual({ attributeNames: [], attributeTypes: [], errorHandling: 0 });
  });

  it('a learn job that fails answers 1 with its reason', async () => {
    gw.answer = (s) => (s.method === 'POST' ? { status: 202, statusString: 'Job Created', headers: { 'sym-job-id': '44' } }
      : { status: 500, statusString: 'Data source [web] cannot be read: http://127.0.0.1/x.csv: address 127.0.0.1 is loopback, not a public address; set SML_SOURCES_ALLOW_PRIVATE=true to allow' });
    const r = await sml(['dss', 'learn', 'p', 'web', '--wait'], gw.env);
    expect(r).toEqual({ code: 1, stdout: '', stderr: expect.stringMatching(/^Data source \[web\] cannot be read: .*address 127\.0\.0\.1 is loopback/) });
  });

  it('attach, detach and log', async () => {
    gw.answer = (s) => (s.path.endsWith('/getDsLog') ? {
      status: 200, statusString: 'OK', values: {
        quarantined: [],
        dsLog: [{ jobId: 7, ds: 'iris', op: 'learn', state: 'failed', rowsRead: 10, rowsLearned: 0, rowsSkipped: 0, bytesRead: 300, started: Date.UTC(2026, 0, 2, 3, 4, 5), finished: Date.UTC(2026, 0, 2, 3, 4, 6), error: 'line 3: bad' }],
      },
    } : { status: 200, statusString: 'OK' });
    expect((await sml(['dss', 'attach', 'p', 'iris'], gw.env)).stdout).toBe('OK\n');
    expect((await sml(['dss', 'detach', 'p', 'iris'], gw.env)).stdout).toBe('OK\n');
    const r = await sml(['dss', 'log', 'p'], gw.env);
    expect(r.stdout).toMatch(/^JOB +DS +OP +STATE +READ +LEARNED +SKIPPED +BYTES +STARTED +FINISHED +ERROR\n7 +iris +learn +failed +10 +0 +0 +300 +2026-01-02T03:04:05\.000Z +2026-01-02T03:04:06\.000Z +line 3: bad\n$/);
    expect(gw.seen.map((s) => s.path)).toEqual(['/symetry/rest/c1/projects/p/addds/iris', '/symetry/rest/c1/projects/p/detachds/iris', '/symetry/rest/c1/projects/p/getDsLog']);
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sml } from './run';
import { StandInGateway } from './standin';

// `sml encoders …` against a stand-in gateway that checks the signature, records each
// request and answers the envelopes of API.md §3 (the service itself: services/encoders tests).
describe('sml encoders (against a stand-in gateway)', () => {
  let gw: StandInGateway;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sml-cli-enc-'));
    gw = await StandInGateway.start();
  });
  beforeEach(() => gw.reset());
  afterAll(async () => {
    await gw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('create sends name, target, type and minTrimSize', async () => {
    gw.answer = () => ({ status: 201, statusString: 'Encoder[e] with Target[clicked] created for Customer[c1]' });
    const r = await sml(['encoders', 'create', 'e', '--target', 'clicked', '--min-trim', '3'], gw.env);
    expect(r).toEqual({ code: 0, stdout: 'Encoder[e] with Target[clicked] created for Customer[c1]\n', stderr: '' });
    const seen = gw.seen[0];
    expect([seen.method, seen.path, Object.fromEntries(seen.query), seen.body]).toEqual([
      'POST', '/symetry/rest/c1/encoders/create', { encodername: 'e', targetName: 'clicked', encoderType: 'B' }, { values: [{ minTrimSize: '3' }] },
    ]);
  });

  it('learn sends the CSV as DataFrames of --batch rows and stops at a refused one', async () => {
    const path = join(dir, 'clicks.csv');
    writeFileSync(path, 'site,tags,clicked\na,x|y,1\nb,y,0\nc,x,1\n');
    let r = await sml(['encoders', 'learn', 'e', path, '--types', 'S,L,B', '--batch', '2'], gw.env);
    expect(r).toEqual({ code: 0, stdout: 'Learned 3 rows into encoder e (2 requests)\n', stderr: '' });
    expect(gw.seen.map((s) => [s.path, (s.body as { data: string[][] }).data])).toEqual([
      ['/symetry/rest/c1/encoders/e/learn', [['a', 'x|y', '1'], ['b', 'y', '0']]],
      ['/symetry/rest/c1/encoders/e/learn', [['c', 'x', '1']]],
    ]);
    gw.reset();
    gw.answer = (_s, i) => (i === 1 ? { status: 400, statusString: 'Cannot Find Encoder[e] for Customer[c1].' } : { status: 200, statusString: 'OK' });
    r = await sml(['encoders', 'learn', 'e', path, '--types', 'S,L,B', '--batch', '2'], gw.env);
    expect(r).toEqual({ code: 1, stdout: '', stderr: 'Cannot Find Encoder[e] for Customer[c1].\nstopped at the request with data rows 3-3: rows 1-2 had already been learned\n' });
  });

  it('stats, keyvals and list print tables', async () => {
    gw.answer = (s) => (s.path.endsWith('/stats')
      ? { status: 200, statusString: 'OK', values: { dataframe: { attributeNames: ['key', 'type', 'count', 'mean', 'stddev', 'variance'], data: [['site', 'S', '2.0', '2.0', '1.4142135623730951', '2.0']] }, encoderInfo: { target: 'clicked', minTrimSize: '1', encoderType: 'B' } } }
      : s.path.endsWith('/encoders') ? { status: 200, statusString: 'OK', values: { stringList: { values: ['e', 'f'] } } }
        : { status: 200, statusString: 'OK', values: { dataframe: { attributeNames: ['Value', 'Count', 'Sum'], data: [['a', '3', '2.0']] } } });
    let r = await sml(['encoders', 'stats', 'e'], gw.env);
    expect(r.stdout).toMatch(/^target clicked \(B\), minTrimSize 1\nKEY +TYPE +COUNT +MEAN +STDDEV +VARIANCE\nsite +S +2\.0 +2\.0 +1\.4142135623730951 +2\.0\n$/);
    r = await sml(['encoders', 'keyvals', 'e', 'site'], gw.env);
    expect(r.stdout).toMatch(/^VALUE +COUNT +SUM\na +3 +2\.0\n$/);
    r = await sml(['encoders', 'list'], gw.env);
    expect(r.stdout).toBe('e\nf\n');
    r = await sml(['encoders', 'keyvals', 'e', 'site', '--offset', '100', '--limit', '50'], gw.env);
    expect(r.stdout).toMatch(/^VALUE +COUNT +SUM\na +3 +2\.0\n$/);
    expect(gw.seen.map((s) => s.path)).toEqual(['/symetry/rest/c1/encoders/e/stats', '/symetry/rest/c1/encoders/e/keyvals/site', '/symetry/rest/c1/encoders', '/symetry/rest/c1/encoders/e/keyvals/site']);
    expect([gw.seen[1].query.toString(), gw.seen[3].query.toString()]).toEqual(['', 'offset=100&limit=50']);
  });

  it('assign and delete', async () => {
    gw.answer = (s) => (s.method === 'DELETE' ? { status: 409, statusString: 'Encoder [e] is used by project(s) [p]; delete them first' } : { status: 200, statusString: 'Encoder[e] assigned to project [p]' });
    let r = await sml(['encoders', 'assign', 'p', 'e'], gw.env);
    expect(r).toEqual({ code: 0, stdout: 'Encoder[e] assigned to project [p]\n', stderr: '' });
    expect([gw.seen[0].path, gw.seen[0].query.get('encoderName')]).toEqual(['/symetry/rest/c1/projects/p/encoderAssign', 'e']);
    r = await sml(['encoders', 'delete', 'e'], gw.env);
    expect(r).toEqual({ code: 1, stdout: '', stderr: 'Encoder [e] is used by project(s) [p]; delete them first\n' });
  });
});

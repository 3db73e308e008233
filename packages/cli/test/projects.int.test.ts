import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sml } from './run';
import { ok, StandInGateway } from './standin';

// The projects service is not there yet: these tests run the projects commands against a
// stand-in gateway that checks the signature, records each request and answers the envelopes of API.md §4.
describe('sml projects (against a stand-in gateway)', () => {
  let gw: StandInGateway;
  let env: NodeJS.ProcessEnv;
  let dir: string;

  const csv = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const dataRows = (n: number) => Array.from({ length: n }, (_, i) => `${i + 1},${i % 2}\r\n`).join('');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sml-cli-'));
    gw = await StandInGateway.start();
    env = gw.env;
  });
  beforeEach(() => gw.reset());
  afterAll(async () => {
    await gw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('learn and forget', () => {
    it('learn sends the file as DataFrames of --batch rows, in order, and reports the total', async () => {
      const path = csv('five.csv', `x,flag\r\n${dataRows(5)}`);
      const r = await sml(['projects', 'learn', 'p1', path, '--types', 'C,B', '--batch', '2'], env);
      expect(r).toEqual({ code: 0, stdout: 'Learned 5 rows into project p1 (3 requests)\n', stderr: '' });
      expect(gw.seen.map((s) => [s.method, s.path])).toEqual(Array(3).fill(['POST', '/symetry/rest/c1/projects/p1/learn']));
      expect(gw.seen.map((s) => s.body)).toEqual([
        { attributeNames: ['x', 'flag'], attributeTypes: ['C', 'B'], data: [['1', '0'], ['2', '1']], errorHandling: 0 },
        { attributeNames: ['x', 'flag'], attributeTypes: ['C', 'B'], data: [['3', '0'], ['4', '1']], errorHandling: 0 },
        { attributeNames: ['x', 'flag'], attributeTypes: ['C', 'B'], data: [['5', '0']], errorHandling: 0 },
      ]);
    });

    it("without --types the columns take the project's types", async () => {
      gw.answer = (s) => (s.method === 'GET' ? { status: 200, statusString: 'OK', values: { smlInfo: { attributeNames: ['flag', 'x'], attributeTypes: ['B', 'C'] } } } : ok(s, 0));
      const r = await sml(['projects', 'learn', 'p1', csv('known.csv', `x,flag\n${dataRows(1)}`)], env);
      expect(r.code).toBe(0);
      expect(gw.seen[1].body).toEqual({ attributeNames: ['x', 'flag'], attributeTypes: ['C', 'B'], data: [['1', '0']], errorHandling: 0 });
    });

    it('a project without attributes yet: the types are guessed from the first 128 rows as sample/preview guess, and said on stderr', async () => {
      gw.answer = (s) => (s.method === 'GET' ? { status: 200, statusString: 'OK', values: { smlInfo: { attributeNames: [], attributeTypes: [] } } } : ok(s, 0));
      // 128 rows decide: x numbers, flag 0/1 (NA and empty cells ignored), name text, none all missing → C;
      // row 129's 'many' in x comes too late to make it T.
      const rows = Array.from({ length: 128 }, (_, i) => `${i * 0.5},${i === 3 ? 'NA' : i % 2},${i === 7 ? 'b' : 'a'},`).join('\n');
      const r = await sml(['projects', 'learn', 'p1', csv('fresh.csv', `x,flag,name,empty\n${rows}\nmany,1,c,\n`)], env);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('project p1 has no attributes yet: types guessed from the first 128 rows: x C, flag B, name T, empty C (--types chooses them)\n');
      expect((gw.seen[1].body as { attributeTypes: string[] }).attributeTypes).toEqual(['C', 'B', 'T', 'C']);
    });

    it('forget posts to /forget', async () => {
      const r = await sml(['projects', 'forget', 'p1', csv('one.csv', 'x\n7\n'), '--types', 'C'], env);
      expect(r).toEqual({ code: 0, stdout: 'Forgot 1 row from project p1 (1 request)\n', stderr: '' });
      expect(gw.seen.map((s) => s.path)).toEqual(['/symetry/rest/c1/projects/p1/forget']);
    });

    it('a refused batch stops the transfer and says which rows were already learned', async () => {
      gw.answer = (_s, i) => (i === 1 ? { status: 400, statusString: "Row 2, column 'x': not a number [abc]" } : ok(_s, i));
      const path = csv('bad.csv', `x,flag\n${dataRows(6)}`);
      const r = await sml(['projects', 'learn', 'p1', path, '--types', 'C,B', '--batch', '2'], env);
      expect(r).toEqual({
        code: 1,
        stdout: '',
        stderr: "Row 2, column 'x': not a number [abc]\nstopped at the request with data rows 3-4: rows 1-2 had already been learned (2 accepted)\n",
      });
      expect(gw.seen).toHaveLength(2);
    });

    it('a refused first batch says nothing was learned', async () => {
      gw.answer = () => ({ status: 404, statusString: 'No route for POST /symetry/rest/c1/projects/p1/learn' });
      const r = await sml(['projects', 'learn', 'p1', csv('any.csv', 'x\n1\n'), '--types', 'C'], env);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe('No route for POST /symetry/rest/c1/projects/p1/learn\nstopped at the request with data rows 1-1: nothing was learned\n');
    });

    it('--lenient sends errorHandling 1 and adds up the learn reports, errors prefixed with their rows', async () => {
      gw.answer = (s) => ({
        status: 200, statusString: 'OK',
        values: { learnReport: { rowsLearned: (s.body as { data: unknown[] }).data.length - 1, rowsSkipped: 1, errors: ['row 1: bad cell'] } },
      });
      const path = csv('lenient.csv', `x,flag\n${dataRows(4)}`);
      const r = await sml(['projects', 'learn', 'p1', path, '--types', 'C,B', '--batch', '2', '--lenient'], env);
      expect(gw.seen.every((s) => (s.body as { errorHandling: number }).errorHandling === 1)).toBe(true);
      expect(r).toEqual({
        code: 0,
        stdout: 'Learned 2 rows into project p1 (2 requests, 2 rows skipped)\nrows 1-2: row 1: bad cell\nrows 3-4: row 1: bad cell\n',
        stderr: '',
      });
    });

    it('--json prints one envelope per request, one per line', async () => {
      const r = await sml(['--json', 'projects', 'learn', 'p1', csv('json.csv', `x,flag\n${dataRows(3)}`), '--types', 'C,B', '--batch', '2'], env);
      expect(r.code).toBe(0);
      expect(r.stdout.trim().split('\n').map((l) => JSON.parse(l))).toEqual([
        { statusCode: 200, statusString: 'OK', values: {} },
        { statusCode: 200, statusString: 'OK', values: {} },
      ]);
    });

    it('a file that cannot be read is one line, exit 1, nothing sent', async () => {
      const r = await sml(['projects', 'learn', 'p1', join(dir, 'missing.csv'), '--types', 'C'], env);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^sml: ENOENT: no such file or directory, open '.*missing\.csv'\n$/);
      expect(gw.seen).toEqual([]);
    });

    it('malformed CSV is one line naming the line, exit 1', async () => {
      const r = await sml(['projects', 'learn', 'p1', csv('broken.csv', 'x\n"1"2\n'), '--types', 'C'], env);
      expect(r).toEqual({ code: 1, stdout: '', stderr: 'sml: CSV line 2: unexpected character after the closing quote of a field\n' });
    });

    it('--types must match the header columns', async () => {
      const r = await sml(['projects', 'learn', 'p1', csv('three.csv', 'a,b,c\n1,2,3\n'), '--types', 'C,C'], env);
      expect(r).toEqual({ code: 1, stdout: '', stderr: 'sml: --types lists 2 type code(s) but the CSV header has 3 column(s)\n' });
    });
  });

  describe('create, info, list, delete', () => {
    it('create sends type, persist, histogram settings as query and --param pairs as a flat body map', async () => {
      gw.answer = () => ({ status: 201, statusString: 'Project Created with id:p2' });
      const r = await sml(['projects', 'create', 'p2', '--type', 'sequence', '--histogram-type', 'exact', '--no-persist',
        '--param', 'sml_project_order=2', '--param', 'note=a=b'], env);
      expect(r).toEqual({ code: 0, stdout: 'Project Created with id:p2\n', stderr: '' });
      const [s] = gw.seen;
      expect(s.path).toBe('/symetry/rest/c1/projects');
      expect(Object.fromEntries(s.query)).toEqual({ pid: 'p2', type: 'sequence', persist: 'false', enableHistogram: 'true', histogramType: 'exact' });
      expect(s.body).toEqual({ sml_project_order: '2', note: 'a=b' });
    });

    it('create with no options sends only the pid and no body', async () => {
      gw.answer = () => ({ status: 201, statusString: 'Project Created with id:p3' });
      await sml(['projects', 'create', 'p3'], env);
      expect(Object.fromEntries(gw.seen[0].query)).toEqual({ pid: 'p3' });
      expect(gw.seen[0].body).toBeUndefined();
    });

    it('create of an existing project exits 1 with the 409 statusString', async () => {
      gw.answer = () => ({ status: 409, statusString: 'Customer [c1] already have pid with id[p2], ' });
      expect(await sml(['projects', 'create', 'p2'], env)).toEqual({ code: 1, stdout: '', stderr: 'Customer [c1] already have pid with id[p2], \n' });
    });

    it('info prints the smlInfo fields', async () => {
      gw.answer = () => ({ status: 200, statusString: 'OK', values: { smlInfo: { pid: 'p1', attributeNames: ['x', 'flag'], loaded: true } } });
      const r = await sml(['projects', 'info', 'p1', '--hash'], env);
      expect(Object.fromEntries(gw.seen[0].query)).toEqual({ hash: '1' });
      expect(r.stdout).toBe('FIELD           VALUE\npid             p1\nattributeNames  ["x","flag"]\nloaded          true\n');
    });

    it('info --async prints the job id of the 202', async () => {
      gw.answer = () => ({ status: 202, statusString: 'Job Created', values: { jobId: 12 }, headers: { 'sym-job-id': '12' } });
      const r = await sml(['projects', 'info', 'p1', '--async'], env);
      expect(r).toEqual({ code: 0, stdout: 'Job Created: job 12 (sml jobs get 12 --wait)\n', stderr: '' });
    });

    it('list prints one project id per line', async () => {
      gw.answer = () => ({ status: 200, statusString: 'OK', values: { stringList: { values: ['p1', 'p2'] } } });
      expect(await sml(['projects', 'list'], env)).toEqual({ code: 0, stdout: 'p1\np2\n', stderr: '' });
    });

    it('delete of an unknown project exits 1 with the 400 statusString', async () => {
      gw.answer = () => ({ status: 400, statusString: 'Cannot Find Project id[p9] for Customer id [c1]' });
      const r = await sml(['projects', 'delete', 'p9'], env);
      expect(r).toEqual({ code: 1, stdout: '', stderr: 'Cannot Find Project id[p9] for Customer id [c1]\n' });
      expect(gw.seen[0].method).toBe('DELETE');
    });

    it('a --param without "=" is a usage error and sends nothing', async () => {
      const r = await sml(['projects', 'create', 'p4', '--param', 'oops'], env);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/expected key=value, got 'oops'/);
      expect(gw.seen).toEqual([]);
    });
  });
});

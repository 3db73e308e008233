import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sml } from './run';
import { StandInGateway } from './standin';

// `sml projects export|import`, `sml model list|export|import` against a stand-in gateway
// (the documents themselves: services/projects transfer tests).
describe('sml export and import (against a stand-in gateway)', () => {
  let gw: StandInGateway;
  let dir: string;
  const base = '/symetry/rest/c1/projects';
  const DOC = 'eyJmb3JtYXQiOiJzbWwtcHJvamVjdCJ9';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sml-cli-docs-'));
    gw = await StandInGateway.start();
  });
  beforeEach(() => gw.reset());
  afterAll(async () => {
    await gw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('projects export prints the document, or writes it with --out; import sends it back verbatim', async () => {
    gw.answer = () => ({ status: 200, statusString: 'OK', values: { status: DOC } });
    let r = await sml(['projects', 'export', 'p1'], gw.env);
    expect(r).toEqual({ code: 0, stdout: `${DOC}\n`, stderr: '' });
    const file = join(dir, 'p1.sml');
    r = await sml(['projects', 'export', 'p1', '--out', file], gw.env);
    expect(r).toEqual({ code: 0, stdout: `project p1 written to ${file} (${DOC.length} bytes)\n`, stderr: '' });
    expect(readFileSync(file, 'utf8')).toBe(DOC);
    expect(gw.seen.map((s) => `${s.method} ${s.path}`)).toEqual(Array(2).fill(`GET ${base}/p1/export`));
    gw.reset();
    gw.answer = () => ({ status: 200, statusString: 'Project [p2] imported' });
    r = await sml(['projects', 'import', file, '--pid', 'p2'], gw.env);
    expect(r).toEqual({ code: 0, stdout: 'Project [p2] imported\n', stderr: '' });
    expect([gw.seen[0].method, gw.seen[0].path, gw.seen[0].query.get('pid'), gw.seen[0].body]).toEqual(['POST', `${base}/import`, 'p2', DOC]);
  });

  it('model list, export and import', async () => {
    gw.answer = (s) => (s.path.endsWith('/export') ? { status: 200, statusString: 'OK', values: { status: DOC } }
      : s.method === 'POST' ? { status: 200, statusString: 'Model [m9] imported into project [p1]' }
        : { status: 200, statusString: 'OK', values: { smlInfo: { modelsList: ['m1', 'm2'], modelTypeList: ['mlr', 'lda'] } } });
    let r = await sml(['model', 'list', 'p1'], gw.env);
    expect(r.stdout).toMatch(/^MODEL +ALGO\nm1 +mlr\nm2 +lda\n$/);
    expect(gw.seen[0].path).toBe(`${base}/p1/info`);
    r = await sml(['model', 'export', 'p1', 'm1'], gw.env);
    expect(r.stdout).toBe(`${DOC}\n`);
    expect([gw.seen[1].path, gw.seen[1].query.get('modelid')]).toEqual([`${base}/p1/model/export`, 'm1']);
    const file = join(dir, 'm1.sml');
    writeFileSync(file, `${DOC}\n`);
    r = await sml(['model', 'import', 'p1', file, '--modelid', 'm9'], gw.env);
    expect(r).toEqual({ code: 0, stdout: 'Model [m9] imported into project [p1]\n', stderr: '' });
    expect([gw.seen[2].path, gw.seen[2].query.get('modelid'), gw.seen[2].body]).toEqual([`${base}/p1/model/import`, 'm9', DOC]);
  });

  it('an unreadable document is refused before anything is sent', async () => {
    const r = await sml(['projects', 'import', join(dir, 'missing.sml')], gw.env);
    expect([r.code, r.stderr]).toEqual([1, expect.stringContaining('missing.sml: cannot read the exported document')]);
    expect(gw.seen).toEqual([]);
  });
});

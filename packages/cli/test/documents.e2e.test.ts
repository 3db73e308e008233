import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newCustomer, sharedSystem } from '@sml/testkit';
import { sml } from './run';

// model list/export/import, projects export/import and jobs list/get end to end against the
// shared system's built services (needs a prior build); documents.int.test.ts pins the requests.
describe('sml exports, imports and jobs end to end', () => {
  let env: NodeJS.ProcessEnv;
  let dir: string;
  const file = (name: string) => join(dir, name);

  beforeAll(async () => {
    const sys = await sharedSystem();
    const c = await newCustomer(sys, 'cli-docs');
    c.sdk.close();
    env = { SML_URL: sys.url, SML_BASE_PATH: sys.basePath, SML_USER: c.user, SML_SECRET: c.secret };
    dir = mkdtempSync(join(tmpdir(), 'sml-cli-docs-'));
    writeFileSync(file('data.csv'), `x,y\n${Array.from({ length: 30 }, (_, i) => `${i},${2 * i + 1 + (i % 3)}`).join('\n')}\n`);
    expect((await sml(['projects', 'create', 'p'], env)).code).toBe(0);
    expect((await sml(['projects', 'learn', 'p', file('data.csv')], env)).code).toBe(0);
    expect((await sml(['model', 'build', 'p', 'm1', '--algo', 'mlr', '--inputs', 'x', '--targets', 'y'], env)).code).toBe(0);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const predictions = async (pid: string, model: string) => (await sml(['model', 'predict', pid, model, file('data.csv')], env)).stdout;

  it('model list shows the model; export then import under another id predicts the same', async () => {
    expect((await sml(['model', 'list', 'p'], env)).stdout).toMatch(/^MODEL +ALGO\nm1 +mlr\n$/);
    const exported = await sml(['model', 'export', 'p', 'm1', '--out', file('m1.sml')], env);
    expect(exported.stdout).toMatch(new RegExp(`^model m1 written to ${file('m1.sml')} \\(\\d+ bytes\\)\\n$`));
    expect(await sml(['model', 'import', 'p', file('m1.sml'), '--modelid', 'copy'], env)).toMatchObject({ code: 0, stderr: '' });
    expect((await sml(['model', 'list', 'p'], env)).stdout).toMatch(/^copy +mlr$/m);
    expect(await predictions('p', 'copy')).toBe(await predictions('p', 'm1'));
  });

  it('projects export then import as another project keeps its schema and models', async () => {
    expect((await sml(['projects', 'export', 'p', '--out', file('p.sml')], env)).code).toBe(0);
    expect(await sml(['projects', 'import', file('p.sml'), '--pid', 'p2'], env)).toMatchObject({ code: 0, stderr: '' });
    const info = JSON.parse((await sml(['--json', 'projects', 'info', 'p2'], env)).stdout).values.smlInfo;
    expect(info).toMatchObject({ attributeNames: ['x', 'y'], attributeTypes: ['C', 'C'] });
    expect(await predictions('p2', 'm1')).toBe(await predictions('p', 'm1'));
  });

  it('jobs list shows the finished build done, a failed build failed; jobs get --wait of the failed one exits 1', async () => {
    const submitted = await sml(['model', 'build', 'p', 'bad', '--algo', 'lr', '--inputs', 'x', '--targets', 'y', '--no-wait'], env);
    const id = /job (\d+) \(sml jobs get \1 --wait\)/.exec(submitted.stdout)?.[1];
    expect(id).toBeDefined();
    const waited = await sml(['jobs', 'get', id!, '--wait'], env);
    expect(waited.code).toBe(1);
    const list = (await sml(['jobs', 'list'], env)).stdout.split('\n');
    expect(list[0]).toMatch(/^JOB +TYPE +OWNER +STARTED +PROGRESS +STATE +PROJECT$/);
    expect(list).toContainEqual(expect.stringMatching(new RegExp(`^${id} .* failed +p$`)));
    expect(list.filter((l) => / done +p$/.test(l)).length).toBeGreaterThan(0);
  });
});

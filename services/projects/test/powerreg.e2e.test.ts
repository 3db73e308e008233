import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SmlClient } from '@sml/sdk';
import { newCustomer, sharedSystem } from '@sml/testkit';
import { frame } from './helpers';

// powerreg through the gateway (issue 13): a project created with sml_project_power_column
// tracks the Yeo-Johnson power columns pt_<col>^<p> of its target while it learns (they are
// attributes of its summary, persisted with it); powerreg picks the best power and predicts
// `res` on the original scale and `power`. The rows and the expected values are those of the
// SciPy/numpy/scikit-learn fixture of packages/stats/test/models/powerreg (gen_powerreg.py),
// so this checks the whole path against the reference, including an unload (snapshot) and
// reload and a forget.

interface Fixture {
  names: string[];
  rows: string[][];
  learned: number;
  best: number;
  coef: number[];
  predictions: number[];
}
const fixture: Fixture = JSON.parse(readFileSync(join(__dirname, '../../../packages/stats/test/models/powerreg/fixtures/powerreg.json'), 'utf8'));

describe('powerreg end to end', () => {
  let sdk: SmlClient;

  const types = fixture.names.map(() => 'C');
  const learned = fixture.rows.slice(0, fixture.learned);
  const probe = frame(['x1', 'x2', 'x3'], ['C', 'C', 'C'], fixture.rows.slice(fixture.learned).map((r) => r.slice(0, 3)));
  const BUILD = { inputAttributeNames: ['x1', 'x2', 'x3'], targetAttributeNames: ['y'], extraParameters: {} };

  const job = async (r: { status: number }) => {
    expect(r.status).toBe(202);
    const done = await sdk.waitForJob(r as Parameters<SmlClient['waitForJob']>[0]);
    expect({ status: done.status, message: done.body.statusString }).toEqual({ status: 200, message: 'Job is finished' });
    return done.body.values as Record<string, unknown>;
  };
  const predict = async (modelid: string) => {
    const r = await sdk.request('POST', `/projects/pw/predict/${modelid}`, { json: probe });
    expect(r.status).toBe(200);
    return (r.body.values as { KSVSMap: { values: Array<Record<string, string>> } }).KSVSMap.values;
  };
  const close = (actual: number, expected: number) => expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(expected)));

  beforeAll(async () => {
    sdk = (await newCustomer(await sharedSystem(), 'powerer')).sdk;
  });
  afterAll(() => sdk?.close());

  it('create checks the sml_project_power_* parameters: 400 naming the one out of bounds', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ sml_project_power_min: '-1' }, 'sml_project_power_column'],
      [{ sml_project_power_column: 'y', sml_project_power_steps: '101' }, 'sml_project_power_steps'],
      [{ sml_project_power_column: 'y', sml_project_power_steps: '0' }, 'sml_project_power_steps'],
      [{ sml_project_power_column: 'y', sml_project_power_min: '2', sml_project_power_max: '1' }, 'sml_project_power_max'],
      [{ sml_project_power_column: 'y', sml_project_power_min: '-11' }, 'sml_project_power_min'],
      [{ sml_project_power_column: 'y', sml_project_power_max: 'two' }, 'sml_project_power_max'],
    ];
    for (const [params, name] of cases) {
      const r = await sdk.request('POST', '/projects', { query: { pid: 'bad' }, json: params });
      expect({ status: r.status, names: r.body.statusString.includes(`[${name}]`) }).toEqual({ status: 400, names: true });
    }
  });

  it('tracks the power columns, builds powerreg as SciPy + OLS do, predicts res and power; forget, unload and reload predict the same', async () => {
    const created = await sdk.createProject('pw', { params: { sml_project_power_column: 'y' } });
    expect(created.status).toBe(201);
    const cuts = [0, 180, 330, learned.length];
    for (let b = 0; b < 3; b++) expect((await sdk.learn('pw', frame(fixture.names, types, learned.slice(cuts[b], cuts[b + 1])))).status).toBe(200);
    // Forgetting a batch and learning it again leaves the same statistics (forget is exact).
    expect((await sdk.request('POST', '/projects/pw/forget', { json: frame(fixture.names, types, learned.slice(180, 330)) })).status).toBe(200);
    expect((await sdk.learn('pw', frame(fixture.names, types, learned.slice(180, 330)))).status).toBe(200);

    const info = ((await sdk.projectInfo('pw')).body.values as { smlInfo: { attributeNames: string[]; params: Record<string, string> } }).smlInfo;
    expect(info.params).toMatchObject({ sml_project_power_column: 'y', sml_project_power_min: '-2', sml_project_power_max: '2', sml_project_power_steps: '20', sml_project_power_ntot: '21' });
    expect(info.attributeNames.slice(0, 6)).toEqual(['x1', 'x2', 'x3', 'y', 'pt_y^-2.0', 'pt_y^-1.8']);
    expect(info.attributeNames).toHaveLength(4 + 21);

    const built = await job(await sdk.request('POST', '/projects/pw/build', { query: { modelid: 'pr', algo: 'powerreg' }, json: BUILD }));
    const model = built.modelInfo as { info: Record<string, string>; extra: Record<string, string> };
    expect(model.info.power).toBe(String(fixture.best));
    ['const', 'x1', 'x2', 'x3'].forEach((name, k) => close(Number(model.extra[`coef_${name}`]), fixture.coef[k]));
    const before = await predict('pr');
    before.forEach((p, r) => {
      expect(Object.keys(p).sort()).toEqual(['power', 'res']);
      expect(p.power).toBe(String(fixture.best));
      close(Number(p.res), fixture.predictions[r]);
    });

    expect((await sdk.request('GET', '/projects/pw/unload')).status).toBe(200);
    expect(await predict('pr')).toEqual(before);
    // Rebuilt from the reloaded summary (snapshot + log): the same power columns, the same model.
    await job(await sdk.request('POST', '/projects/pw/build', { query: { modelid: 'pr2', algo: 'powerreg' }, json: BUILD }));
    expect(await predict('pr2')).toEqual(before);
  });

  it('a frame carrying a power column is refused naming it; powerreg on a plain project fails its build naming the parameter', async () => {
    const clash = await sdk.learn('pw', frame(['y', 'pt_y^0.2'], ['C', 'C'], [['1', '2']]));
    expect(clash.status).toBe(400);
    expect(clash.body.statusString).toContain('pt_y^0.2');
    expect((await sdk.createProject('plain')).status).toBe(201);
    expect((await sdk.learn('plain', frame(fixture.names, types, learned.slice(0, 50)))).status).toBe(200);
    const r = await sdk.request('POST', '/projects/plain/build', { query: { modelid: 'pr', algo: 'powerreg' }, json: BUILD });
    const failed = r.status === 202 ? await sdk.waitForJob(r).catch((e: unknown) => e) : r;
    expect(JSON.stringify((failed as { body?: unknown }).body ?? failed)).toContain('sml_project_power_column');
  });
});

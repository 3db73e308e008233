import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sml } from './run';
import { StandInGateway } from './standin';
import { findAll, parseXml } from './xml';

const frame = (attributeNames: string[], data: string[][]) => ({ attributeNames, attributeTypes: attributeNames.map(() => 'C'), data });
const KM = ['time', 'survival', 'lower', 'upper', 'atRisk', 'events'];

// Survival commands (API.md §8) against a stand-in gateway that checks each signature.
describe('sml km, cif (against a stand-in gateway)', () => {
  let gw: StandInGateway;
  let dir: string;

  const kmAnswer = () => ({
    status: 200, statusString: 'OK',
    values: { kmResultList: { values: [{
      'a&<b>': frame(KM, [['1', '1', '1', '1', '10', '0'], ['2', '0.9', '0.73', '1', '10', '1'], ['5', '0.7', '0.47', '1', '8', '2']]),
      Total: frame(KM, [['1', '0.95', '0.86', '1', '20', '1'], ['2', '0.85', '0.7', '1', '19', '2'], ['5', '0.6', '0.42', '0.85', '15', '3']]),
    }] } },
  });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sml-cli-survival-'));
    gw = await StandInGateway.start();
  });
  beforeEach(() => gw.reset());
  afterAll(async () => {
    await gw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('km', () => {
    it('asks for the survival curve at --times with alpha 0.05 and prints one table per group', async () => {
      gw.answer = kmAnswer;
      const r = await sml(['km', 'p1', '--times', '1,2,5'], gw.env);
      expect(gw.seen.map((s) => [s.method, s.path, s.body])).toEqual([
        ['POST', '/symetry/rest/c1/projects/p1/km/kaplanmeier', { values: [{ type: 'survival', times: [1, 2, 5], alpha: 0.05 }] }],
      ]);
      expect(r).toEqual({
        code: 0,
        stdout: [
          'group a&<b>',
          'TIME  SURVIVAL  LOWER  UPPER  ATRISK  EVENTS',
          '1     1         1      1      10      0',
          '2     0.9       0.73   1      10      1',
          '5     0.7       0.47   1      8       2',
          '',
          'group Total',
          'TIME  SURVIVAL  LOWER  UPPER  ATRISK  EVENTS',
          '1     0.95      0.86   1      20      1',
          '2     0.85      0.7    1      19      2',
          '5     0.6       0.42   0.85   15      3',
          '',
        ].join('\n'),
        stderr: '',
      });
    });

    it('--group and --alpha are sent as given', async () => {
      gw.answer = () => ({ status: 200, statusString: 'OK', values: { kmResultList: { values: [{}] } } });
      await sml(['km', 'p1', '--times', '0.5,10', '--group', 'a', '--alpha', '0.1'], gw.env);
      expect(gw.seen[0].body).toEqual({ values: [{ type: 'survival', times: [0.5, 10], group: 'a', alpha: 0.1 }] });
    });

    it('--plot writes a step line per group through one point per time, with its band and an escaped legend', async () => {
      gw.answer = kmAnswer;
      const path = join(dir, 'km.svg');
      const r = await sml(['km', 'p1', '--times', '1,2,5', '--plot', path], gw.env);
      expect(r.stdout.endsWith(`plot: ${path}\n`)).toBe(true);
      const text = readFileSync(path, 'utf8');
      expect(text).toContain('>a&amp;&lt;b&gt;</text>');
      const svg = parseXml(text);
      const steps = findAll(svg, (e) => e.attrs.class === 'step');
      expect(steps.map((s) => s.attrs['data-series'])).toEqual(['a&<b>', 'Total']);
      for (const s of steps) expect(s.attrs.d.match(/[MV]/g)).toHaveLength(3);
      expect(findAll(svg, (e) => e.attrs.class === 'point')).toHaveLength(6);
      expect(findAll(svg, (e) => e.attrs.class === 'band')).toHaveLength(2);
      expect(findAll(svg, (e) => e.name === 'text').map((t) => t.text)).toEqual(expect.arrayContaining(['Kaplan-Meier survival (project p1)', 'time', 'S(t)', '95% confidence']));
    });

    it('a project without survival data: exit 1 with the statusString', async () => {
      gw.answer = () => ({ status: 400, statusString: 'Project [p1] has no survival data' });
      expect(await sml(['km', 'p1', '--times', '1'], gw.env)).toEqual({ code: 1, stdout: '', stderr: 'Project [p1] has no survival data\n' });
    });

    it('--times that are not numbers are a usage error and nothing is sent', async () => {
      const r = await sml(['km', 'p1', '--times', '1,x'], gw.env);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/expected comma-separated numbers, got '1,x'/);
      expect(gw.seen).toEqual([]);
    });
  });

  describe('cif', () => {
    it('asks for event type k at --times for the group and prints time and event_k', async () => {
      gw.answer = () => ({
        status: 200, statusString: 'OK',
        values: { cifPredictionList: { values: [{ sdfmap: { a: frame(['time', 'event_1'], [['5', '0.1'], ['10', '0.25']]) } }] } },
      });
      const r = await sml(['cif', 'p1', '--k', '1', '--times', '5,10', '--group', 'a'], gw.env);
      expect(gw.seen.map((s) => [s.path, s.body])).toEqual([['/symetry/rest/c1/projects/p1/cif/predictEvent', { values: [{ k: 1, times: [5, 10], group: 'a' }] }]]);
      expect(r).toEqual({ code: 0, stdout: 'group a\nTIME  EVENT_1\n5     0.1\n10    0.25\n', stderr: '' });
    });

    it('--k must be a positive integer', async () => {
      const r = await sml(['cif', 'p1', '--k', '0', '--times', '5'], gw.env);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/expected a positive integer/);
    });
  });
});

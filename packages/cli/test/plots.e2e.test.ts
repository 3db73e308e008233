import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newCustomer, sharedSystem } from '@sml/testkit';
import { sml } from './run';
import { findAll, parseXml } from './xml';

// Holdout metrics, plots, the leaderboard's SCORE and guessed types end to end: the CLI
// against the shared system's built services (needs a prior build). One customer for the file.
describe('sml holdout metrics and plots end to end', () => {
  let env: NodeJS.ProcessEnv;
  let dir: string;
  const file = (name: string) => join(dir, name);
  const svgOf = (name: string) => parseXml(readFileSync(file(name), 'utf8'));
  const byClass = (name: string, cls: string) => findAll(svgOf(name), (e) => e.attrs.class === cls);

  /** Deterministic rows: b = 1 when x1 + x2 plus noise is positive; x3 = 2·x1 + noise. */
  const rows = (n: number, seed: number) => {
    let s = seed;
    const next = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
    return Array.from({ length: n }, () => {
      const x1 = next();
      const x2 = next();
      return [x1, x2, 2 * x1 + 0.3 * next(), x1 + x2 + 0.6 * next() > 0 ? 1 : 0];
    });
  };
  const test = rows(120, 7);
  const csv = (data: number[][]) => `x1,x2,x3,b\n${data.map((r) => r.map((v) => String(Number(v.toFixed(4)))).join(',')).join('\n')}\n`;
  const figure = (stdout: string, name: string) => Number(new RegExp(`^${name.replace(/[()]/g, '\\$&')} +(\\S+)$`, 'm').exec(stdout)?.[1]);

  beforeAll(async () => {
    const sys = await sharedSystem();
    const c = await newCustomer(sys, 'cli-plots');
    env = { SML_URL: sys.url, SML_BASE_PATH: sys.basePath, SML_USER: c.user, SML_SECRET: c.secret };
    c.sdk.close();
    dir = mkdtempSync(join(tmpdir(), 'sml-cli-plots-'));
    writeFileSync(file('train.csv'), csv(rows(600, 1)));
    writeFileSync(file('test.csv'), csv(test));
    expect((await sml(['projects', 'create', 'p', '--histogram'], env)).code).toBe(0);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('projects learn without --types into a new project guesses them as sample/preview (x1, x2, x3 C; b B)', async () => {
    const r = await sml(['projects', 'learn', 'p', file('train.csv')], env);
    expect(r).toMatchObject({ code: 0, stdout: 'Learned 600 rows into project p (1 request)\n' });
    expect(r.stderr).toContain('types guessed from the first 128 rows: x1 C, x2 C, x3 C, b B');
    const info = await sml(['--json', 'projects', 'info', 'p'], env);
    expect(JSON.parse(info.stdout).values.smlInfo).toMatchObject({ attributeNames: ['x1', 'x2', 'x3', 'b'], attributeTypes: ['C', 'C', 'C', 'B'] });
  });

  it('model build --test of a classifier: accuracy and AUC as counted from its own predictions, the confusion matrix, a ROC plot', async () => {
    const r = await sml(['model', 'build', 'p', 'lr1', '--algo', 'lr', '--inputs', 'x1,x2', '--targets', 'b', '--test', file('test.csv'), '--plot', file('roc.svg')], env);
    expect(r.code).toBe(0);
    // The same rows predicted by `model predict`, counted here by hand.
    const predicted = JSON.parse((await sml(['--json', 'model', 'predict', 'p', 'lr1', file('test.csv')], env)).stdout).values.KSVSMap.values as Array<{ res: string; prob: string }>;
    const actual = test.map((t) => t[3]);
    const accuracy = predicted.filter((p, i) => Number(p.res) === actual[i]).length / test.length;
    let ordered = 0;
    let pairs = 0;
    actual.forEach((a, i) => actual.forEach((b, j) => {
      if (a !== 1 || b !== 0) return;
      pairs++;
      const [pi, pj] = [Number(predicted[i].prob), Number(predicted[j].prob)];
      ordered += pi > pj ? 1 : pi === pj ? 0.5 : 0;
    }));
    expect(figure(r.stdout, 'accuracy')).toBeCloseTo(accuracy, 5);
    expect(figure(r.stdout, 'auc')).toBeCloseTo(ordered / pairs, 5);
    expect(figure(r.stdout, 'auc')).toBeGreaterThan(0.8);
    const tn = predicted.filter((p, i) => actual[i] === 0 && p.res === '0').length;
    const fp = actual.filter((a) => a === 0).length - tn;
    expect(r.stdout).toMatch(new RegExp(`^CONFUSION MATRIX \\(rows: actual, columns: predicted\\)\\nACTUAL +0 +1\\n0 +${tn} +${fp}\\n1 +\\d+ +\\d+$`, 'm'));
    const [line] = byClass('roc.svg', 'line');
    expect(line.attrs['data-series']).toMatch(/^class 1 \(AUC 0\.\d+\)$/);
    expect(line.attrs.points.split(' ').length).toBe(new Set(predicted.map((p) => p.prob)).size + 1);
  });

  it('model build --test of a multi-class model (mlda, one-hot targets): accuracy as counted from its predictions, macro one-vs-rest AUC, a 3×3 confusion matrix', async () => {
    // Three clusters on a line: class k around x1 = 2k, one-hot columns a, b, c.
    const three = rows(240, 11).map(([u, v], i) => [2 * (i % 3) + u, v, ...[0, 1, 2].map((k) => (k === i % 3 ? 1 : 0))]);
    const threeCsv = (data: number[][]) => `x1,x2,a,b,c\n${data.map((r) => r.map((v) => String(Number(v.toFixed(4)))).join(',')).join('\n')}\n`;
    writeFileSync(file('three.csv'), threeCsv(three.slice(0, 180)));
    writeFileSync(file('three-test.csv'), threeCsv(three.slice(180)));
    expect((await sml(['projects', 'create', 'q'], env)).code).toBe(0);
    expect((await sml(['projects', 'learn', 'q', file('three.csv')], env)).code).toBe(0);
    const r = await sml(['model', 'build', 'q', 'm', '--algo', 'mlda', '--inputs', 'x1,x2', '--targets', 'a,b,c', '--test', file('three-test.csv'), '--plot', file('roc3.svg')], env);
    expect(r.code).toBe(0);
    const predicted = JSON.parse((await sml(['--json', 'model', 'predict', 'q', 'm', file('three-test.csv')], env)).stdout).values.KSVSMap.values as Array<{ res: string }>;
    const actual = three.slice(180).map((t) => ['a', 'b', 'c'][t.slice(2).indexOf(1)]);
    expect(figure(r.stdout, 'accuracy')).toBeCloseTo(predicted.filter((p, i) => p.res === actual[i]).length / actual.length, 5);
    expect(figure(r.stdout, 'auc (macro one-vs-rest)')).toBeGreaterThan(0.9);
    expect(r.stdout).toMatch(/^ACTUAL +a +b +c\na( +\d+){3}\nb( +\d+){3}\nc( +\d+){3}$/m);
    expect(byClass('roc3.svg', 'line').map((l) => l.attrs['data-series'].slice(0, 1))).toEqual(['a', 'b', 'c']);
  });

  it('model build --test of a regression: RMSE, MAE, R² and a residual plot of every row', async () => {
    const r = await sml(['model', 'build', 'p', 'mlr1', '--algo', 'mlr', '--inputs', 'x1', '--targets', 'x3', '--test', file('test.csv'), '--plot', file('residuals.svg')], env);
    expect(r.code).toBe(0);
    // x3 = 2·x1 + uniform noise of half-width 0.3: sd 0.3/√3 ≈ 0.17.
    expect(figure(r.stdout, 'rmse')).toBeGreaterThan(0.1);
    expect(figure(r.stdout, 'rmse')).toBeLessThan(0.25);
    expect(figure(r.stdout, 'r2')).toBeGreaterThan(0.9);
    expect(byClass('residuals.svg', 'point')).toHaveLength(test.length);
  });

  it('model autoselect: SCORE names its metric (AUC), --leaderboard-plot draws every entry, --test scores the winner', async () => {
    const r = await sml(['model', 'autoselect', 'p', 'best', '--task', 'binary_classification', '--targets', 'b', '--inputs', 'x1,x2',
      '--val-file', file('test.csv'), '--types', 'C,C,C,B', '--leaderboard-plot', file('board.svg'), '--test', file('test.csv')], env);
    expect(r.code).toBe(0);
    const board = r.stdout.slice(r.stdout.indexOf('LEADERBOARD (binary_classification)'), r.stdout.indexOf('HOLDOUT'));
    expect(board).toMatch(/^RANK +ALGO +PARAMS +SCORE \(AUC\) +INPUTS$/m);
    const entries = board.split('\n').filter((l) => /^\d+ +/.test(l));
    expect(entries.length).toBeGreaterThan(1);
    expect(byClass('board.svg', 'rank')).toHaveLength(entries.length);
    expect(r.stdout).toMatch(/^auc +0\.\d+$/m);
  });

  it('density --plot --log: a log-scale histogram, one bar per non-empty bin', async () => {
    const r = await sml(['--json', 'density', 'p', 'x1', '--bins', '10', '--plot', file('density.svg'), '--log'], env);
    expect(r.code).toBe(0);
    const [d] = JSON.parse(r.stdout).values.densityList.values as Array<{ histogram: number[] }>;
    expect(byClass('density.svg', 'bar')).toHaveLength(d.histogram.filter((v) => v > 0).length);
    const svg = svgOf('density.svg');
    expect(findAll(svg, (e) => e.name === 'text').map((t) => t.text)).toContain('rows (log scale)');
    const yTicks = findAll(svg, (e) => e.name === 'text' && e.attrs['text-anchor'] === 'end').map((t) => Number(t.text));
    expect(yTicks.length).toBeGreaterThan(1);
    yTicks.forEach((t, i) => expect(t).toBe(10 ** (Math.log10(yTicks[0]) + i)));
  });

  it('matrix pca --plot: the scree of as many components as inputs', async () => {
    const r = await sml(['matrix', 'pca', 'p', '--inputs', 'x1,x2,x3', '--plot', file('scree.svg')], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`plot: ${file('scree.svg')}`);
    const lines = byClass('scree.svg', 'line');
    expect(lines.map((l) => l.attrs.points.split(' ').length)).toEqual([3, 3]);
  });
});

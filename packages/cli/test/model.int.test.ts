import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sml } from './run';
import { type Reply, type Seen, StandInGateway } from './standin';

// The model commands against a stand-in gateway that checks the signature, records each
// request and answers the envelopes of API.md §7 (the routes of services/gateway/src/routes/models.ts).
describe('sml model (against a stand-in gateway)', () => {
  let gw: StandInGateway;
  let dir: string;
  const base = '/symetry/rest/c1/projects';

  const csv = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  const modelInfo = {
    modelId: 'm1', algo: 'mlr', inputAttributeNames: ['x1', 'x3'], targetAttributeNames: ['y'],
    info: { n: '120', r2: '0.8' }, extra: { coef_const: '2', coef_x1: '1.5', coef_x3: '0.8' },
    assessment: { n: 3, rmse: 1.25, mae: 1, r2: 'NaN' }, params: {}, creationDate: Date.UTC(2024, 5, 11, 12),
  };
  const printed = [
    'FIELD    VALUE',
    'modelId  m1',
    'algo     mlr',
    'inputs   x1,x3',
    'targets  y',
    'created  2024-06-11T12:00:00.000Z',
    '',
    'ASSESSMENT  VALUE',
    'n           3',
    'rmse        1.25',
    'mae         1',
    'r2          NaN',
    '',
    'INFO  VALUE',
    'n     120',
    'r2    0.8',
    '',
    'EXTRA       VALUE',
    'coef_const  2',
    'coef_x1     1.5',
    'coef_x3     0.8',
    '',
  ].join('\n');

  /** The submission answers 202 with job 9; the job runs for `running` polls, then finishes with the modelInfo. */
  const job = (running = 1, finished: Reply = { status: 200, statusString: 'Job is finished', values: { modelInfo } }) => (s: Seen, i: number): Reply => {
    if (s.method === 'POST') return { status: 202, statusString: 'SelectModel Job Created', headers: { 'sym-job-id': '9' } };
    return i <= running ? { status: 202, statusString: 'Job still running', values: { jobinfo: { jobId: 9 } } } : finished;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sml-cli-model-'));
    gw = await StandInGateway.start();
  });
  beforeEach(() => gw.reset());
  afterAll(async () => {
    await gw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('build', () => {
    it('posts the MLContext to /build with modelid and algo, waits for the job and prints the model', async () => {
      gw.answer = job(2);
      const r = await sml(['model', 'build', 'p1', 'm1', '--algo', 'mlr', '--inputs', 'x1,x3', '--targets', 'y', '--param', 'lambda=0.5'], gw.env);
      expect(gw.seen.map((s) => `${s.method} ${s.path}`)).toEqual([`POST ${base}/p1/build`, 'GET /symetry/rest/c1/jobs/9', 'GET /symetry/rest/c1/jobs/9', 'GET /symetry/rest/c1/jobs/9']);
      expect(Object.fromEntries(gw.seen[0].query)).toEqual({ modelid: 'm1', algo: 'mlr' });
      expect(gw.seen[0].body).toEqual({ inputAttributeNames: ['x1', 'x3'], targetAttributeNames: ['y'], extraParameters: { lambda: '0.5' } });
      expect(r).toEqual({ code: 0, stdout: printed, stderr: 'job 9: running\n' });
    });

    it('indexes go as inputAttributes/targets; repeated --inputs are one list; no --targets sends none', async () => {
      gw.answer = job(0);
      await sml(['model', 'build', 'p1', 'm2', '--algo', 'covest', '--inputs', '0,1', '--inputs', '3'], gw.env);
      expect(gw.seen[0].body).toEqual({ inputAttributes: ['0', '1', '3'], extraParameters: {} });
    });

    it('--no-wait prints the job id and does not poll', async () => {
      gw.answer = job();
      const r = await sml(['model', 'build', 'p1', 'm1', '--algo', 'mlr', '--inputs', 'x1', '--targets', 'y', '--no-wait'], gw.env);
      expect(r).toEqual({ code: 0, stdout: 'SelectModel Job Created: job 9 (sml jobs get 9 --wait)\n', stderr: '' });
      expect(gw.seen).toHaveLength(1);
    });

    it('a refused submission exits 1 with its statusString, without polling', async () => {
      gw.answer = () => ({ status: 400, statusString: 'Unknown algorithm [mlp]' });
      const r = await sml(['model', 'build', 'p1', 'm1', '--algo', 'mlp', '--inputs', 'x1'], gw.env);
      expect(r).toEqual({ code: 1, stdout: '', stderr: 'Unknown algorithm [mlp]\n' });
      expect(gw.seen).toHaveLength(1);
    });

    it('a failed job exits 1 with the job\'s statusString', async () => {
      gw.answer = job(0, { status: 400, statusString: 'singular or ill-conditioned system: collinear attributes [a, b]' });
      const r = await sml(['model', 'build', 'p1', 'm1', '--algo', 'mlr', '--inputs', 'a,b', '--targets', 'y'], gw.env);
      expect(r).toEqual({ code: 1, stdout: '', stderr: 'singular or ill-conditioned system: collinear attributes [a, b]\n' });
    });

    it('--inputs mixing names and indexes across occurrences is refused before sending', async () => {
      const r = await sml(['model', 'build', 'p1', 'm1', '--algo', 'mlr', '--inputs', 'x1', '--inputs', '2', '--targets', 'y'], gw.env);
      expect(r).toEqual({ code: 1, stdout: '', stderr: 'sml: --inputs mixes attribute indexes and names; give all of them one way\n' });
      expect(gw.seen).toEqual([]);
    });
  });

  describe('build --test (holdout metrics computed by the CLI from predictions)', () => {
    /** Build job 9 of `info`, then projectInfo (types of the test file), then predict answering `predictions`. */
    const scripted = (info: object, types: Record<string, string>, predictions: Array<Record<string, string>>) => (s: Seen, i: number): Reply => {
      if (s.path.endsWith('/build')) return { status: 202, statusString: 'SelectModel Job Created', headers: { 'sym-job-id': '9' } };
      if (s.path.endsWith('/jobs/9')) return { status: 200, statusString: 'Job is finished', values: { modelInfo: { ...modelInfo, assessment: {}, info: {}, extra: {}, ...info } } };
      if (s.path.endsWith('/p1/info')) return { status: 200, statusString: 'OK', values: { smlInfo: { attributeNames: Object.keys(types), attributeTypes: Object.values(types) } } };
      if (s.path.includes('/predict/')) return { status: 200, statusString: 'OK', values: { KSVSMap: { values: predictions } } };
      return { status: 404, statusString: `unexpected ${s.method} ${s.path} (${i})` };
    };
    const binary = () => scripted({ modelId: 'm1', algo: 'lr', targetAttributeNames: ['b'] }, { x: 'C', b: 'B' }, [
      { res: '1', prob: '0.9' }, { res: '0', prob: '0.2' }, { res: '1', prob: '0.6' }, { res: '0', prob: '0.4' }, { res: '1', prob: '0.7' },
    ]);
    const build = (...more: string[]) => ['model', 'build', 'p1', 'm1', '--algo', 'lr', '--inputs', 'x', '--targets', 'b', ...more];

    it('a binary classifier: accuracy, AUC from its prob and the confusion matrix; the test file typed as the project types its columns', async () => {
      gw.answer = binary();
      const test = csv('test.csv', 'x,b\n1,1\n2,0\n3,0\n4,1\n5,1\n');
      const r = await sml(build('--test', test), gw.env);
      expect(r.code).toBe(0);
      const predict = gw.seen.find((s) => s.path.includes('/predict/'))!;
      expect(predict.path).toBe(`${base}/p1/predict/m1`);
      expect(predict.body).toEqual({ attributeNames: ['x', 'b'], attributeTypes: ['C', 'B'], data: [['1', '1'], ['2', '0'], ['3', '0'], ['4', '1'], ['5', '1']], errorHandling: 0 });
      // Positives score 0.9, 0.4, 0.7; negatives 0.2, 0.6: 5 of 6 pairs ordered. Predicted 1,0,1,0,1 against 1,0,0,1,1.
      expect(r.stdout).toContain([
        `HOLDOUT on ${test}: 5 rows, computed by the CLI from the model's predictions`,
        'METRIC    VALUE',
        'accuracy  0.6',
        'auc       0.833333',
        '',
        'CONFUSION MATRIX (rows: actual, columns: predicted)',
        'ACTUAL  0  1',
        '0       1  1',
        '1       1  2',
      ].join('\n'));
    });

    it('--json adds values.holdout to the envelope; --plot writes the ROC curve', async () => {
      gw.answer = binary();
      const test = csv('test.csv', 'x,b\n1,1\n2,0\n3,0\n4,1\n5,1\n');
      const plot = join(dir, 'roc.svg');
      const r = await sml(['--json', ...build('--test', test, '--plot', plot)], gw.env);
      expect(JSON.parse(r.stdout).values.holdout).toEqual({
        n: 5, accuracy: 0.6, auc: expect.closeTo(5 / 6, 12), aucByClass: { 1: expect.closeTo(5 / 6, 12) }, classes: ['0', '1'], confusion: [[1, 1], [1, 2]],
      });
      const svg = readFileSync(plot, 'utf8');
      expect(svg).toContain('>ROC: model m1 (lr) on test.csv<');
      // (0,0) then one point per distinct score: 6 points.
      expect(svg.match(/class="point"/g)).toHaveLength(6);
    });

    it('several one-hot targets (mlda, mqda): the target that is 1 is the class, each target key its score; macro one-vs-rest AUC', async () => {
      gw.answer = scripted({ modelId: 'm1', algo: 'mlda', targetAttributeNames: ['a', 'b', 'c'] }, { x: 'C', a: 'B', b: 'B', c: 'B' }, [
        { res: 'a', a: '3', b: '1', c: '0' }, { res: 'b', a: '0', b: '2', c: '1' }, { res: 'b', a: '1', b: '2', c: '1.5' }, { res: 'a', a: '2', b: '1', c: '0' },
      ]);
      const test = csv('iris.csv', 'x,a,b,c\n1,1,0,0\n2,0,1,0\n3,0,0,1\n4,1,0,0\n');
      const r = await sml(['model', 'build', 'p1', 'm1', '--algo', 'mlda', '--inputs', 'x', '--targets', 'a,b,c', '--test', test], gw.env);
      // Ranked by the scores' softmax (posteriors), every class is told apart from the rest (scikit-learn: 1.0 each);
      // the raw score of b would tie rows 2 and 3 (AUC 0.83).
      expect(r.stdout).toContain(['METRIC                   VALUE', 'accuracy                 0.75', 'auc (macro one-vs-rest)  1', '',
        'CLASS  AUC (one-vs-rest)', 'a      1', 'b      1', 'c      1'].join('\n'));
      expect(r.stdout).toContain(['ACTUAL  a  b  c', 'a       2  0  0', 'b       0  1  0', 'c       0  1  0'].join('\n'));
    });

    it('a regression: RMSE, MAE, R²; --plot draws the residuals against the predictions around a zero line', async () => {
      gw.answer = scripted({}, { x1: 'C', x3: 'C', y: 'C' }, [{ res: '1' }, { res: '2' }, { res: '4' }]);
      const test = csv('reg.csv', 'x1,x3,y\n1,1,2\n2,2,2\n3,3,4\n');
      const plot = join(dir, 'residuals.svg');
      const r = await sml(['model', 'build', 'p1', 'm1', '--algo', 'mlr', '--inputs', 'x1,x3', '--targets', 'y', '--test', test, '--plot', plot], gw.env);
      expect(r.stdout).toContain(['METRIC  VALUE', 'rmse    0.57735', 'mae     0.333333', 'r2      0.625'].join('\n'));
      const svg = readFileSync(plot, 'utf8');
      expect(svg.match(/class="point"/g)).toHaveLength(3);
      expect(svg.match(/class="reference"/g)).toHaveLength(1);
      expect(svg).toContain('>residual (actual − predicted)<');
    });

    it('refused before sending: --plot without --test, --test with --no-wait; a test file without the targets after the build', async () => {
      expect(await sml(build('--plot', join(dir, 'x.svg')), gw.env)).toEqual({ code: 1, stdout: '', stderr: 'sml: --plot draws the --test rows: give --test <csv>\n' });
      expect((await sml(build('--test', 'x.csv', '--no-wait'), gw.env)).stderr).toBe('sml: --test scores the built model: it cannot go with --no-wait\n');
      expect(gw.seen).toEqual([]);
      gw.answer = binary();
      const test = csv('nob.csv', 'x\n1\n');
      expect((await sml(build('--test', test), gw.env)).stderr).toBe(`sml: --test ${test} has no column 'b': it needs the model's targets\n`);
    });
  });

  describe('select', () => {
    const data = () => csv('score.csv', 'x1,x3,y\r\n1,2,3\r\n4,5,6\r\n7,8,9\r\n');

    it('posts {mlcontext, dataframe} to /selectModel with the selector options as extraParameters and prints the chosen model', async () => {
      gw.answer = job(1);
      const r = await sml(['model', 'select', 'p1', 'm1', '--algo', 'mlr', '--inputs', 'x1,x2,x3', '--targets', 'y', '--data', data(), '--types', 'C,C,C',
        '--selector', 'fw_bw', '--criterion', 'mae', '--param', 'matrix_use_pseudoinv=true'], gw.env);
      expect(gw.seen.map((s) => `${s.method} ${s.path}`)).toEqual([`POST ${base}/p1/selectModel`, 'GET /symetry/rest/c1/jobs/9', 'GET /symetry/rest/c1/jobs/9']);
      expect(Object.fromEntries(gw.seen[0].query)).toEqual({ modelid: 'm1', algo: 'mlr' });
      expect(gw.seen[0].body).toEqual({
        mlcontext: {
          inputAttributeNames: ['x1', 'x2', 'x3'], targetAttributeNames: ['y'],
          extraParameters: { matrix_use_pseudoinv: 'true', selector_type: 'selector_type_fw_bw', sml_model_assessment_type: 'mae' },
        },
        dataframe: { attributeNames: ['x1', 'x3', 'y'], attributeTypes: ['C', 'C', 'C'], data: [['1', '2', '3'], ['4', '5', '6'], ['7', '8', '9']], errorHandling: 0 },
      });
      expect(r).toEqual({ code: 0, stdout: printed, stderr: 'job 9: running\n' });
    });

    it('--iterations and --seed become selector_iterations and selector_seed; full selector names are accepted', async () => {
      gw.answer = job(0);
      await sml(['model', 'select', 'p1', 'm1', '--algo', 'lr', '--inputs', 'x1,x3', '--targets', 'y', '--data', data(), '--types', 'C,C,B',
        '--selector', 'selector_type_iteration', '--iterations', '200', '--seed', '-3'], gw.env);
      expect((gw.seen[0].body as { mlcontext: { extraParameters: unknown } }).mlcontext.extraParameters)
        .toEqual({ selector_type: 'selector_type_iteration', selector_iterations: '200', selector_seed: '-3' });
    });

    it('the same parameter as --param and as an option with different values is refused', async () => {
      const r = await sml(['model', 'select', 'p1', 'm1', '--algo', 'mlr', '--inputs', 'x1', '--targets', 'y', '--data', data(), '--types', 'C,C,C',
        '--param', 'selector_type=selector_type_brute', '--selector', 'simple'], gw.env);
      expect(r).toEqual({ code: 1, stdout: '', stderr: 'sml: selector_type is given twice: --param selector_type=selector_type_brute and selector_type_simple\n' });
      expect(gw.seen).toEqual([]);
    });

    it('an unknown --selector is a usage error', async () => {
      const r = await sml(['model', 'select', 'p1', 'm1', '--algo', 'mlr', '--inputs', 'x1', '--targets', 'y', '--data', data(), '--types', 'C,C,C', '--selector', 'greedy'], gw.env);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/option '--selector <type>' argument 'greedy' is invalid. expected one of none, fw_bw, simple, brute, iteration/);
      expect(gw.seen).toEqual([]);
    });

    it('--data is required; a header-only file is refused', async () => {
      const missing = await sml(['model', 'select', 'p1', 'm1', '--algo', 'mlr', '--inputs', 'x1', '--targets', 'y', '--types', 'C'], gw.env);
      expect(missing.stderr).toMatch(/required option '--data <csv>' not specified/);
      const empty = csv('header.csv', 'x1,y\n');
      const r = await sml(['model', 'select', 'p1', 'm1', '--algo', 'mlr', '--inputs', 'x1', '--targets', 'y', '--data', empty, '--types', 'C,C'], gw.env);
      expect(r).toEqual({ code: 1, stdout: '', stderr: `sml: ${empty} has a header row but no data rows\n` });
      expect(gw.seen).toEqual([]);
    });

    it('a refused selection (400) exits 1 with its statusString', async () => {
      gw.answer = () => ({ status: 400, statusString: 'selector_type_brute supports at most 16 inputs, got 17' });
      const r = await sml(['model', 'select', 'p1', 'm1', '--algo', 'mlr', '--inputs', 'x1', '--targets', 'y', '--data', data(), '--types', 'C,C,C', '--selector', 'brute'], gw.env);
      expect(r).toEqual({ code: 1, stdout: '', stderr: 'selector_type_brute supports at most 16 inputs, got 17\n' });
    });
  });

  describe('autoselect (sym-rest-rc\'s `model autoselect`)', () => {
    const data = () => csv('val.csv', 'x1,x3,y\n1,2,3\n4,5,6\n');
    const board = [
      { algo: 'ridge', params: { lambda: '0.01' }, inputs: ['x1', 'x3'], score: 0.5, assessment: { rmse: 0.5 } },
      { algo: 'mlr', params: {}, inputs: ['x1'], score: 0.75, assessment: { rmse: 0.75 } },
    ];
    const winner = {
      ...modelInfo, algo: 'ridge', assessment: {}, info: { autoselect_task: 'regression', sml_model_assessment_type: 'mae' }, extra: { coef_x1: '1.5', leaderboard: JSON.stringify(board) },
    };
    const autoJob = (running = 0) => job(running, { status: 200, statusString: 'Job is finished', values: { modelInfo: winner } });

    it('posts {mlcontext, dataframe} to /autoSelect with task and modelid, the options as extraParameters; prints the winner and the leaderboard', async () => {
      gw.answer = autoJob(1);
      const r = await sml(['model', 'autoselect', 'p1', 'best', '--task', 'regression', '--inputs', 'x1,x3', '--targets', 'y', '--val-file', data(),
        '--grid', 'small', '--selector', 'simple', '--criterion', 'mae', '--seed', '7', '--param', 'max_iter=500'], gw.env);
      expect(gw.seen.map((s) => `${s.method} ${s.path}`)).toEqual([`POST ${base}/p1/autoSelect`, 'GET /symetry/rest/c1/jobs/9', 'GET /symetry/rest/c1/jobs/9']);
      expect(Object.fromEntries(gw.seen[0].query)).toEqual({ modelid: 'best', task: 'regression' });
      expect(gw.seen[0].body).toEqual({
        mlcontext: {
          inputAttributeNames: ['x1', 'x3'], targetAttributeNames: ['y'],
          extraParameters: { max_iter: '500', autoselect_grid_type: 'autoselect_grid_type_small', selector_type: 'selector_type_simple', sml_model_assessment_type: 'mae', rnd_seed: '7' },
        },
        // Without --types every column is C, as sym-rest-rc sends its validation file.
        dataframe: { attributeNames: ['x1', 'x3', 'y'], attributeTypes: ['C', 'C', 'C'], data: [['1', '2', '3'], ['4', '5', '6']], errorHandling: 0 },
      });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^FIELD {4}VALUE\nmodelId {2}m1\nalgo {5}ridge\n/);
      expect(r.stdout).not.toMatch(/"algo"/); // the leaderboard JSON is shown as a table, not in EXTRA
      expect(r.stdout).toContain([
        'LEADERBOARD (regression)',
        'RANK  ALGO   PARAMS       SCORE (MAE)  INPUTS',
        '1     ridge  lambda=0.01  0.5          x1,x3',
        '2     mlr                 0.75         x1',
      ].join('\n'));
    });

    it('SCORE names no metric when the modelInfo does not say which (info.sml_model_assessment_type)', async () => {
      gw.answer = job(0, { status: 200, statusString: 'Job is finished', values: { modelInfo: { ...winner, info: {} } } });
      const r = await sml(['model', 'autoselect', 'p1', 'best', '--task', 'regression', '--targets', 'y', '--ds', 'val'], gw.env);
      expect(r.stdout).toMatch(/^RANK {2}ALGO {3}PARAMS {7}SCORE {2}INPUTS$/m);
    });

    it('--leaderboard-plot writes the leaderboard as ranked SVG bars, the criterion on the axis', async () => {
      gw.answer = autoJob(0);
      const plot = join(dir, 'board.svg');
      const r = await sml(['model', 'autoselect', 'p1', 'best', '--task', 'regression', '--targets', 'y', '--ds', 'val', '--leaderboard-plot', plot], gw.env);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`leaderboard plot: ${plot}`);
      const svg = readFileSync(plot, 'utf8');
      expect(svg.match(/class="rank"/g)).toHaveLength(2);
      expect(svg).toContain('>score (mae), lower is better<');
      expect(svg).toContain('>1. ridge lambda=0.01<');
    });

    it("takes sym-rest-rc's spellings: --input-names, --target-names, --val-df, --params k=v,k=v; indexes go as inputAttributes/targets", async () => {
      gw.answer = autoJob();
      const df = JSON.stringify({ attributeNames: ['a', 'b'], attributeTypes: ['C', 'B'], data: [['1', '0']] });
      await sml(['model', 'autoselect', 'p1', 'm', '--task', 'binary_classifier', '--input-names', 'a', '--target-names', 'b', '--val-df', df,
        '--params', 'autoselect_grid_type=autoselect_grid_type_tiny,rnd_seed=3'], gw.env);
      expect(gw.seen[0].body).toEqual({
        mlcontext: { inputAttributeNames: ['a'], targetAttributeNames: ['b'], extraParameters: { autoselect_grid_type: 'autoselect_grid_type_tiny', rnd_seed: '3' } },
        dataframe: { attributeNames: ['a', 'b'], attributeTypes: ['C', 'B'], data: [['1', '0']] },
      });
      gw.reset();
      gw.answer = autoJob();
      await sml(['model', 'autoselect', 'p1', 'm', '--task', 'multiclass_classifier', '--inputs', '0,1', '--targets', '4', '--val-file', data(), '--types', 'C,C,B'], gw.env);
      expect((gw.seen[0].body as { mlcontext: unknown }).mlcontext).toEqual({ inputAttributes: ['0', '1'], targets: ['4'], extraParameters: {} });
      expect((gw.seen[0].body as { dataframe: { attributeTypes: string[] } }).dataframe.attributeTypes).toEqual(['C', 'C', 'B']);
    });

    it('--ds scores on a data source: autoSelect/{dsid} with the MLContext as the body', async () => {
      gw.answer = autoJob();
      await sml(['model', 'autoselect', 'p1', 'm', '--task', 'regression', '--targets', 'y', '--ds', 'val'], gw.env);
      expect(gw.seen.map((s) => `${s.method} ${s.path}`)[0]).toBe(`POST ${base}/p1/autoSelect/val`);
      expect(gw.seen[0].body).toEqual({ targetAttributeNames: ['y'], extraParameters: {} });
    });

    it('--no-wait prints the job id; a refused request exits 1 with its statusString', async () => {
      gw.answer = autoJob();
      const r = await sml(['model', 'autoselect', 'p1', 'm', '--task', 'regression', '--targets', 'y', '--ds', 'val', '--no-wait'], gw.env);
      expect(r).toEqual({ code: 0, stdout: 'SelectModel Job Created: job 9 (sml jobs get 9 --wait)\n', stderr: '' });
      gw.reset();
      gw.answer = () => ({ status: 400, statusString: 'unknown sml_model_assessment_type [auc] for task regression; expected one of rmse, mae, r2, rmslogp1e' });
      const refused = await sml(['model', 'autoselect', 'p1', 'm', '--task', 'regression', '--targets', 'y', '--ds', 'val', '--criterion', 'auc'], gw.env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^unknown sml_model_assessment_type \[auc\]/);
    });

    it('usage errors before sending: the task, the grid, validation rows given one way, --types only with --val-file, bad --val-df', async () => {
      const bad = async (args: string[], message: RegExp) => {
        const r = await sml(['model', 'autoselect', 'p1', 'm', ...args], gw.env);
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(message);
      };
      await bad(['--task', 'clustering', '--ds', 'v'], /option '--task <task>' argument 'clustering' is invalid. expected one of binary_classification, binary_classifier, regression, multiclass_classifier/);
      await bad(['--task', 'regression', '--ds', 'v', '--grid', 'huge'], /expected one of tiny, small, normal, large/);
      await bad(['--task', 'regression'], /give the validation rows one way/);
      await bad(['--task', 'regression', '--ds', 'v', '--val-df', '{}'], /give the validation rows one way/);
      await bad(['--task', 'regression', '--ds', 'v', '--types', 'C'], /--types goes with --val-file/);
      await bad(['--task', 'regression', '--val-df', '[1'], /--val-df is not JSON/);
      await bad(['--task', 'regression', '--val-df', '{"data":[]}'], /--val-df must be a DataFrame/);
      await bad(['--task', 'regression', '--ds', 'v', '--params', 'a'], /expected key=value, got 'a'/);
      expect(gw.seen).toEqual([]);
    });
  });

  describe('info, delete', () => {
    it('info GETs the model and prints it', async () => {
      gw.answer = () => ({ status: 200, statusString: 'OK', values: { modelInfo } });
      const r = await sml(['model', 'info', 'p1', 'm1'], gw.env);
      expect(gw.seen.map((s) => `${s.method} ${s.path}`)).toEqual([`GET ${base}/p1/models/m1`]);
      expect(r).toEqual({ code: 0, stdout: printed, stderr: '' });
    });

    it('info leaves out empty blocks', async () => {
      gw.answer = () => ({ status: 200, statusString: 'OK', values: { modelInfo: { ...modelInfo, assessment: {}, extra: {}, targetAttributeNames: [] } } });
      const r = await sml(['model', 'info', 'p1', 'm1'], gw.env);
      expect(r.stdout).not.toMatch(/ASSESSMENT|EXTRA/);
      expect(r.stdout).toMatch(/\nINFO {2}VALUE\n/);
    });

    it('info of an unknown model exits 1 with the 400 statusString', async () => {
      gw.answer = () => ({ status: 400, statusString: 'Cannot find model [m9] in project [p1]' });
      expect(await sml(['model', 'info', 'p1', 'm9'], gw.env)).toEqual({ code: 1, stdout: '', stderr: 'Cannot find model [m9] in project [p1]\n' });
    });

    it('delete sends DELETE to the model', async () => {
      const r = await sml(['model', 'delete', 'p1', 'm1'], gw.env);
      expect(gw.seen.map((s) => `${s.method} ${s.path}`)).toEqual([`DELETE ${base}/p1/models/m1`]);
      expect(r).toEqual({ code: 0, stdout: 'OK\n', stderr: '' });
    });
  });

  describe('predict', () => {
    /** Answers each request with one prediction per row: res = the row's first cell × 10. */
    const predictions = (s: Seen): Reply => ({
      status: 200, statusString: 'OK',
      values: { KSVSMap: { values: (s.body as { data: string[][] }).data.map((r) => ({ res: String(Number(r[0]) * 10), prob: '0.5' })) } },
    });

    it('posts the CSV in DataFrames of --batch rows and prints one row per prediction, numbered by data row', async () => {
      gw.answer = predictions;
      const path = csv('rows.csv', 'x1,x3\n1,2\n3,4\n5,6\n');
      const r = await sml(['model', 'predict', 'p1', 'm1', path, '--types', 'C,C', '--batch', '2'], gw.env);
      expect(gw.seen.map((s) => `${s.method} ${s.path}`)).toEqual(Array(2).fill(`POST ${base}/p1/predict/m1`));
      expect(gw.seen.map((s) => s.body)).toEqual([
        { attributeNames: ['x1', 'x3'], attributeTypes: ['C', 'C'], data: [['1', '2'], ['3', '4']], errorHandling: 0 },
        { attributeNames: ['x1', 'x3'], attributeTypes: ['C', 'C'], data: [['5', '6']], errorHandling: 0 },
      ]);
      expect(r).toEqual({ code: 0, stdout: 'ROW  res  prob\n1    10   0.5\n2    30   0.5\n3    50   0.5\n', stderr: '' });
    });

    it('--json prints one envelope per request, one per line', async () => {
      gw.answer = predictions;
      const r = await sml(['--json', 'model', 'predict', 'p1', 'm1', csv('two.csv', 'x1\n1\n2\n'), '--types', 'C', '--batch', '1'], gw.env);
      expect(r.stdout.trim().split('\n').map((l) => JSON.parse(l).values.KSVSMap.values)).toEqual([[{ res: '10', prob: '0.5' }], [{ res: '20', prob: '0.5' }]]);
    });

    it('a refused request stops and says which rows were predicted', async () => {
      gw.answer = (s, i) => (i === 1 ? { status: 400, statusString: 'Cannot find model [m1] in project [p1]' } : predictions(s));
      const r = await sml(['model', 'predict', 'p1', 'm1', csv('three.csv', 'x1\n1\n2\n3\n'), '--types', 'C', '--batch', '2'], gw.env);
      expect(r).toEqual({ code: 1, stdout: '', stderr: 'Cannot find model [m1] in project [p1]\nstopped at the request with data rows 3-3; rows 1-2 were predicted\n' });
    });

    it("without --types the header's columns take the project's types; a column it lacks asks for --types", async () => {
      gw.answer = (s) => (s.method === 'GET' ? { status: 200, statusString: 'OK', values: { smlInfo: { attributeNames: ['y', 'x3', 'x1'], attributeTypes: ['B', 'T', 'C'] } } } : predictions(s));
      let r = await sml(['model', 'predict', 'p1', 'm1', csv('typed.csv', 'x1,x3\n1,a\n'), '--batch', '5'], gw.env);
      expect(r.code).toBe(0);
      expect(gw.seen.map((s) => `${s.method} ${s.path}`)).toEqual([`GET ${base}/p1/info`, `POST ${base}/p1/predict/m1`]);
      expect(gw.seen[1].body).toEqual({ attributeNames: ['x1', 'x3'], attributeTypes: ['C', 'T'], data: [['1', 'a']], errorHandling: 0 });
      gw.reset();
      gw.answer = () => ({ status: 200, statusString: 'OK', values: { smlInfo: { attributeNames: ['x1'], attributeTypes: ['C'] } } });
      r = await sml(['model', 'predict', 'p1', 'm1', csv('extra.csv', 'x1,x9\n1,2\n')], gw.env);
      expect(r).toEqual({ code: 1, stdout: '', stderr: "sml: project p1 has no attribute 'x9': give --types, one code per column\n" });
      expect(gw.seen).toHaveLength(1);
    });

    it('--types must match the header', async () => {
      const r = await sml(['model', 'predict', 'p1', 'm1', csv('bad.csv', 'a,b\n1,2\n'), '--types', 'C'], gw.env);
      expect(r).toEqual({ code: 1, stdout: '', stderr: 'sml: --types lists 1 type code(s) but the CSV header has 2 column(s)\n' });
      expect(gw.seen).toEqual([]);
    });
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALGORITHMS, mlr, resolveAttributes, SingularSystemError, Summary } from '@sml/stats';
import { dataFile } from '../helpers';

// Reference: statsmodels OLS on the same file (fixtures/gen_models.py).
const expected = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'models.json'), 'utf8')).mlr_iris;
const csv = readFileSync(dataFile('Iris_rtlm.csv'), 'utf8').trim().split(/\r?\n/).map((l) => l.split(','));
const TYPES = ['C', 'C', 'C', 'C', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B'];

function close(actual: number, want: number, rel = 1e-9): void {
  expect(Math.abs(actual - want)).toBeLessThanOrEqual(rel * Math.max(1, Math.abs(want)));
}

describe('mlr (statsmodels OLS)', () => {
  const summary = new Summary();
  summary.learn({ attributeNames: csv[0], attributeTypes: TYPES, data: csv.slice(1) });
  const spec = { algo: 'mlr', inputs: resolveAttributes(summary, expected.inputs), targets: resolveAttributes(summary, [expected.target]), params: {} };

  it('coefficients, standard errors, t, p and confidence intervals equal statsmodels', () => {
    const model = mlr.build(summary, spec);
    const extra = model.extra();
    for (const term of ['const', ...expected.inputs]) {
      close(Number(extra[`coef_${term}`]), expected.coef[term]);
      close(Number(extra[`stderr_${term}`]), expected.stderr[term]);
      close(Number(extra[`t_${term}`]), expected.t[term]);
      close(Number(extra[`p_${term}`]), expected.p[term], 1e-6);
      close(Number(extra[`ci_low_${term}`]), expected.ci_low[term], 1e-8);
      close(Number(extra[`ci_high_${term}`]), expected.ci_high[term], 1e-8);
    }
    close(Number(model.info().r2), expected.r2);
    close(Number(model.info().adj_r2), expected.adj_r2);
    expect(Number(model.info().n)).toBe(expected.n);
  });

  it('predicts `res`; a missing input is imputed with its mean; state round-trips', () => {
    const model = ALGORITHMS.mlr.build(summary, spec);
    const frame = { names: expected.inputs, rows: expected.predict_rows.map((r: number[]) => r.map(String)) };
    model.predict(frame).forEach((p, i) => close(Number(p.res), expected.predictions[i]));
    const restored = mlr.restore(JSON.parse(JSON.stringify(model.state())));
    expect(restored.predict(frame)).toEqual(model.predict(frame));
    const imputed = model.predict({ names: ['sepal_width', 'petal_width'], rows: [['3', 'NA']] })[0];
    const meanFilled = model.predict({ names: expected.inputs, rows: [['3', String(summary.mean('petal_length')), String(summary.mean('petal_width'))]] })[0];
    close(Number(imputed.res), Number(meanFilled.res));
  });

  it('a collinear input set is refused naming the attributes, unless matrix_use_pseudoinv=true', () => {
    const s = new Summary();
    s.learn({ attributeNames: ['a', 'b', 'c', 'y'], attributeTypes: ['C', 'C', 'C', 'C'], data: Array.from({ length: 20 }, (_, i) => [i, i % 3, i + 2 * (i % 3), 3 * i + 1].map(String)) });
    const collinear = { algo: 'mlr', inputs: [0, 1, 2], targets: [3], params: {} };
    expect(() => mlr.build(s, collinear)).toThrow(SingularSystemError);
    expect(() => mlr.build(s, collinear)).toThrow(/collinear attributes \[a, b, c\]/);
    const pseudo = mlr.build(s, { ...collinear, params: { matrix_use_pseudoinv: 'true' } });
    close(Number(pseudo.predict({ names: ['a', 'b', 'c'], rows: [['4', '1', '6']] })[0].res), 13, 1e-6);
  });

  it('needs exactly one target and more rows than inputs', () => {
    expect(() => mlr.build(summary, { ...spec, targets: [] })).toThrow(/exactly one target/);
    const tiny = new Summary();
    tiny.learn({ attributeNames: ['x', 'y'], attributeTypes: ['C', 'C'], data: [['1', '2']] });
    expect(() => mlr.build(tiny, { algo: 'mlr', inputs: [0], targets: [1], params: {} })).toThrow(/more rows/);
  });
});

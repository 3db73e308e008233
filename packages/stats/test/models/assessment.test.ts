import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assess, type Model, type Prediction } from '@sml/stats';

// Reference: scikit-learn metrics on the same labels and scores (fixtures/gen_assessment.py).
const ref = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'assessment.json'), 'utf8'));

const fixed = (targetNames: string[], predictions: Prediction[]): Model => ({
  algo: 'fixed', inputNames: [], targetNames, info: () => ({}), extra: () => ({}), predict: () => predictions, state: () => null,
});

function close(a: number, b: number): void {
  expect(Math.abs(a - b)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(b)));
}

describe('model assessment equals scikit-learn', () => {
  it('regression: rmse, mae, r2', () => {
    const r = ref.regression;
    const got = assess('regression', fixed(['y'], r.yhat.map((v: number) => ({ res: String(v) }))), { names: ['y'], rows: r.y.map((v: number) => [String(v)]) });
    for (const k of ['rmse', 'mae', 'r2']) close(got[k], r[k]);
  });

  it('binary: auc from the score, accuracy, precision, recall, f1, mcc from the label', () => {
    const b = ref.binary;
    const predictions = b.label.map((l: number, i: number) => ({ res: String(l), prob: String(b.score[i]) }));
    const got = assess('binary', fixed(['t'], predictions), { names: ['t'], rows: b.t.map((v: number) => [String(v)]) });
    for (const k of ['auc', 'accuracy', 'precision', 'recall', 'f1', 'mcc']) close(got[k], b[k]);
  });

  it('multiclass with one-hot targets: accuracy, macro f1, kappa', () => {
    const c = ref.multiclass;
    const classes = ['a', 'b', 'c'];
    const rows = c.actual.map((a: string) => classes.map((k) => (k === a ? '1' : '0')));
    const got = assess('multiclass', fixed(classes, c.pred.map((p: string) => ({ res: p }))), { names: classes, rows });
    for (const k of ['accuracy', 'f1_macro', 'kappa']) close(got[k], c[k]);
  });
});

import { areaUnder, classificationMetrics, regressionMetrics, rocCurve } from '../src/metrics';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Fixture {
  binary: { t: number[]; label: number[]; score: number[]; accuracy: number; auc: number; confusion: number[][]; roc: { fpr: number[]; tpr: number[]; threshold: number[] } };
  multiclass: { classes: string[]; actual: string[]; pred: string[]; proba: number[][]; accuracy: number; auc: number; aucByClass: Record<string, number>; confusion: number[][] };
  regression: { y: number[]; yhat: number[]; rmse: number; mae: number; r2: number };
}
const fixture = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'metrics.json'), 'utf8')) as Fixture;

// scikit-learn's values for the same rows: fixtures/gen_metrics.py (scripts/regen-fixtures.sh).
describe('holdout metrics against scikit-learn', () => {
  describe('binary', () => {
    const b = fixture.binary;
    const rows = b.t.map((t, i) => ({ actual: String(t), predicted: String(b.label[i]), scores: { 1: b.score[i] } }));
    const got = classificationMetrics(rows, ['0', '1']);

    it('accuracy, AUC (scores with ties) and the confusion matrix', () => {
      expect(got.n).toBe(b.t.length);
      expect(got.accuracy).toBeCloseTo(b.accuracy, 12);
      expect(got.auc).toBeCloseTo(b.auc, 12);
      expect(got.confusion).toEqual(b.confusion);
      expect(Object.keys(got.aucByClass)).toEqual(['1']);
    });

    it('the ROC curve: roc_curve(drop_intermediate=False), one point per distinct score', () => {
      const curve = got.roc['1'];
      expect(curve.map((p) => p.fpr)).toEqual(b.roc.fpr.map((v) => expect.closeTo(v, 12)));
      expect(curve.map((p) => p.tpr)).toEqual(b.roc.tpr.map((v) => expect.closeTo(v, 12)));
      expect(curve.slice(1).map((p) => p.threshold)).toEqual(b.roc.threshold);
      expect(areaUnder(curve)).toBeCloseTo(b.auc, 12);
    });
  });

  describe('multi-class', () => {
    const mc = fixture.multiclass;
    const rows = mc.actual.map((actual, i) => ({
      actual, predicted: mc.pred[i], scores: Object.fromEntries(mc.classes.map((c, k) => [c, mc.proba[i][k]])),
    }));
    const got = classificationMetrics(rows, mc.classes);

    it('accuracy, macro one-vs-rest AUC and each class\'s AUC, the confusion matrix in the model\'s class order', () => {
      expect(got.accuracy).toBeCloseTo(mc.accuracy, 12);
      expect(got.auc).toBeCloseTo(mc.auc, 12);
      for (const c of mc.classes) expect(got.aucByClass[c]).toBeCloseTo(mc.aucByClass[c], 12);
      expect(got.classes).toEqual(mc.classes);
      expect(got.confusion).toEqual(mc.confusion);
    });

    it('a class the model does not know (seen in the rows) is added after its classes; without scores the AUC is NaN', () => {
      const m = classificationMetrics([{ actual: 'a', predicted: 'b', scores: {} }, { actual: 'c', predicted: 'a', scores: {} }], ['b', 'a']);
      expect(m.classes).toEqual(['b', 'a', 'c']);
      expect(m.confusion).toEqual([[0, 0, 0], [1, 0, 0], [0, 1, 0]]);
      expect(m.auc).toBeNaN();
      expect(m.accuracy).toBe(0);
    });
  });

  it('regression: RMSE, MAE, R² and residuals actual − predicted', () => {
    const r = fixture.regression;
    const got = regressionMetrics(r.y, r.yhat);
    expect(got.n).toBe(r.y.length);
    expect(got.rmse).toBeCloseTo(r.rmse, 12);
    expect(got.mae).toBeCloseTo(r.mae, 12);
    expect(got.r2).toBeCloseTo(r.r2, 12);
    expect(got.residuals[0]).toEqual({ predicted: r.yhat[0], residual: r.y[0] - r.yhat[0] });
  });

  it('a ROC curve needs both a positive and a negative row', () => {
    expect(rocCurve([true, true], [0.1, 0.2])).toEqual([]);
    expect(areaUnder([])).toBeNaN();
  });
});

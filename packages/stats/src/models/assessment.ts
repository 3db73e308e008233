import { targetValues } from './rows';
import type { Algorithm, Model, PredictFrame, Prediction } from './types';

/**
 * How well a model does on a scoring frame (STATS.md §4, selectModel): regression rmse,
 * mae, r2, rmslogp1e; binary auc, accuracy, precision, recall, f1, mcc; multiclass
 * accuracy, f1_macro, mf1_w, kappa (alias mkappa). Rows without a target value are left out.
 */
export function assess(task: Algorithm['task'], model: Model, frame: PredictFrame): Record<string, number> {
  if (model.targetNames.length === 0 || task === 'other' || task === 'anomaly') return {};
  const y = targetValues(frame, model.targetNames[0]);
  const predictions = model.predict(frame);
  if (task === 'regression') {
    let n = 0, se = 0, ae = 0, sum = 0, sumSq = 0, sle = 0;
    predictions.forEach((p, r) => {
      const t = y[r];
      const v = Number(p.res);
      if (Number.isNaN(t) || Number.isNaN(v)) return;
      n++;
      se += (v - t) ** 2;
      ae += Math.abs(v - t);
      sum += t;
      sumSq += t * t;
      // NaN once a value is ≤ −1 (scikit-learn's mean_squared_log_error refuses those).
      sle += (Math.log1p(v) - Math.log1p(t)) ** 2;
    });
    const ss = sumSq - (sum * sum) / n;
    // rmslogp1e (SymetryML's auto-select-with-symetryml.md): root mean squared log(1 + ·) error.
    return { n, rmse: Math.sqrt(se / n), mae: ae / n, r2: ss > 0 ? 1 - se / ss : NaN, rmslogp1e: Math.sqrt(sle / n) };
  }
  if (task === 'binary') {
    const pairs: Array<[number, number, number]> = [];
    predictions.forEach((p, r) => {
      const t = y[r];
      const label = Number(p.res);
      // The model's own confidence when it has one (lr prob, bayes Prob, lsvm score, lda resZ).
      const score = Number(p.prob ?? p.Prob ?? p.score ?? p.resZ ?? p.res);
      if (!Number.isNaN(t) && !Number.isNaN(label)) pairs.push([t, label, score]);
    });
    let tp = 0, tn = 0, fp = 0, fn = 0;
    for (const [t, l] of pairs) {
      if (t === 1 && l === 1) tp++;
      else if (t === 0 && l === 0) tn++;
      else if (t === 0) fp++;
      else fn++;
    }
    const precision = tp / (tp + fp);
    const recall = tp / (tp + fn);
    const mcc = (tp * tn - fp * fn) / Math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn));
    return { n: pairs.length, auc: auc(pairs), accuracy: (tp + tn) / pairs.length, precision, recall, f1: (2 * precision * recall) / (precision + recall), mcc };
  }
  if (task === 'multiclass') return multiclass(model, frame, predictions);
  return {};
}

/**
 * Multiclass (one-hot targets): the actual class of a row is the target that is 1 in it.
 * accuracy, macro-averaged F1, support-weighted F1 (`mf1_w`, scikit-learn's
 * f1_score(average='weighted')), Cohen's kappa (also as `mkappa`, SymetryML's name).
 */
function multiclass(model: Model, frame: PredictFrame, predictions: Prediction[]): Record<string, number> {
  const columns = model.targetNames.map((t) => targetValues(frame, t));
  const classes = [...model.targetNames];
  const pairs: Array<[string, string]> = [];
  predictions.forEach((p, r) => {
    const k = columns.findIndex((c) => c[r] === 1);
    if (k >= 0) pairs.push([classes[k], String(p.res)]);
  });
  const n = pairs.length;
  const correct = pairs.filter(([a, b]) => a === b).length;
  let f1 = 0;
  let f1Weighted = 0;
  let chance = 0;
  for (const c of classes) {
    const tp = pairs.filter(([a, b]) => a === c && b === c).length;
    const actual = pairs.filter(([a]) => a === c).length;
    const predicted = pairs.filter(([, b]) => b === c).length;
    const f1c = actual + predicted > 0 ? (2 * tp) / (actual + predicted) : 0;
    f1 += f1c;
    f1Weighted += (actual / n) * f1c;
    chance += (actual / n) * (predicted / n);
  }
  const accuracy = correct / n;
  const kappa = (accuracy - chance) / (1 - chance);
  return { n, accuracy, f1_macro: f1 / classes.length, mf1_w: f1Weighted, kappa, mkappa: kappa };
}

/** Area under the ROC curve by the rank-sum (Mann-Whitney) formula, ties averaged. */
function auc(pairs: Array<[number, number, number]>): number {
  const sorted = pairs.map(([t, , s]) => ({ t, s })).sort((a, b) => a.s - b.s);
  let rankSum = 0;
  let positives = 0;
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j < sorted.length && sorted[j].s === sorted[i].s) j++;
    const rank = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) if (sorted[k].t === 1) {
      rankSum += rank;
      positives++;
    }
    i = j;
  }
  const negatives = sorted.length - positives;
  return (rankSum - (positives * (positives + 1)) / 2) / (positives * negatives);
}

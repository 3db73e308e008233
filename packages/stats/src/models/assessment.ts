import { targetValues } from './rows';
import type { Algorithm, Model, PredictFrame } from './types';

/**
 * How well a model does on a scoring frame (STATS.md §4, selectModel): regression rmse,
 * mae, r2; binary auc, accuracy, precision, recall, f1, mcc. Rows without a target value
 * are left out.
 */
export function assess(task: Algorithm['task'], model: Model, frame: PredictFrame): Record<string, number> {
  if (model.targetNames.length === 0) return {};
  const y = targetValues(frame, model.targetNames[0]);
  const predictions = model.predict(frame);
  if (task === 'regression') {
    let n = 0, se = 0, ae = 0, sum = 0, sumSq = 0;
    predictions.forEach((p, r) => {
      const t = y[r];
      const v = Number(p.res);
      if (Number.isNaN(t) || Number.isNaN(v)) return;
      n++;
      se += (v - t) ** 2;
      ae += Math.abs(v - t);
      sum += t;
      sumSq += t * t;
    });
    const ss = sumSq - (sum * sum) / n;
    return { n, rmse: Math.sqrt(se / n), mae: ae / n, r2: ss > 0 ? 1 - se / ss : NaN };
  }
  if (task === 'binary') {
    const pairs: Array<[number, number, number]> = [];
    predictions.forEach((p, r) => {
      const t = y[r];
      const label = Number(p.res);
      const score = Number(p.prob ?? p.score ?? p.res);
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
  return {};
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

/**
 * Holdout metrics of a model from its predictions of rows whose answer is known (`model build
 * --test`): the service assesses a model only on selectModel/autoSelect scoring rows and gives
 * no confusion matrix or ROC curve, so the CLI computes them. Definitions as scikit-learn's
 * (accuracy_score, roc_auc_score, roc_curve(drop_intermediate=False), confusion_matrix,
 * mean_squared_error, mean_absolute_error, r2_score); test/fixtures/gen_metrics.py.
 */

/** One point of a ROC curve: the rates of the rows whose score is at least `threshold`. */
export interface RocPoint {
  fpr: number;
  tpr: number;
  threshold: number;
}

/** A row of a classifier's test: its class, the predicted class, and per class a score (higher: more likely) when the model gives one. */
export interface ClassifiedRow {
  actual: string;
  predicted: string;
  scores: Record<string, number>;
}

export interface ClassificationMetrics {
  n: number;
  /** Classes in the confusion matrix's order: the model's, then any other seen in the rows. */
  classes: string[];
  accuracy: number;
  /**
   * Binary: the AUC of the positive class's score. Multi-class: the mean of the one-vs-rest
   * AUCs (scikit-learn's roc_auc_score(multi_class='ovr', average='macro')). NaN without scores.
   */
  auc: number;
  /** One-vs-rest AUC and ROC curve of each class the rows carry a score for. */
  aucByClass: Record<string, number>;
  roc: Record<string, RocPoint[]>;
  /** confusion[i][j]: rows of class i predicted as class j. */
  confusion: number[][];
}

export interface RegressionMetrics {
  n: number;
  rmse: number;
  mae: number;
  r2: number;
  /** actual − predicted, per row, for a residual plot. */
  residuals: Array<{ predicted: number; residual: number }>;
}

/**
 * The ROC curve of `scores` for the rows where `positive` holds: from (0, 0) at threshold
 * +Infinity, one point per distinct score, highest first (ties move together, a diagonal step).
 * Empty when the rows have no positive or no negative (the rates are undefined).
 */
export function rocCurve(positive: boolean[], scores: number[]): RocPoint[] {
  const rows = scores.map((s, i) => ({ s, p: positive[i] })).filter((r) => !Number.isNaN(r.s)).sort((a, b) => b.s - a.s);
  const positives = rows.filter((r) => r.p).length;
  const negatives = rows.length - positives;
  if (positives === 0 || negatives === 0) return [];
  const curve: RocPoint[] = [{ fpr: 0, tpr: 0, threshold: Infinity }];
  let tp = 0;
  let fp = 0;
  for (let i = 0; i < rows.length;) {
    const threshold = rows[i].s;
    for (; i < rows.length && rows[i].s === threshold; i++) if (rows[i].p) tp++;
    else fp++;
    curve.push({ fpr: fp / negatives, tpr: tp / positives, threshold });
  }
  return curve;
}

/** The area under a ROC curve by the trapezoid rule (equal to the rank-sum AUC, ties counted half); NaN for an empty curve. */
export function areaUnder(curve: RocPoint[]): number {
  if (curve.length === 0) return NaN;
  let area = 0;
  for (let i = 1; i < curve.length; i++) area += ((curve[i].fpr - curve[i - 1].fpr) * (curve[i].tpr + curve[i - 1].tpr)) / 2;
  return area;
}

/** Accuracy, AUC, ROC curves and confusion matrix of a classifier's test rows (`classes`: the model's, in its order). */
export function classificationMetrics(rows: ClassifiedRow[], classes: string[]): ClassificationMetrics {
  const all = [...classes];
  const others = new Set<string>();
  for (const r of rows) for (const c of [r.actual, r.predicted]) if (!all.includes(c)) others.add(c);
  all.push(...[...others].sort());
  const index = new Map(all.map((c, i) => [c, i]));
  const confusion = all.map(() => all.map(() => 0));
  for (const r of rows) confusion[index.get(r.actual)!][index.get(r.predicted)!]++;
  const correct = rows.filter((r) => r.actual === r.predicted).length;
  const scored = all.filter((c) => rows.length > 0 && rows.every((r) => r.scores[c] !== undefined));
  const roc: Record<string, RocPoint[]> = {};
  const aucByClass: Record<string, number> = {};
  for (const c of scored) {
    roc[c] = rocCurve(rows.map((r) => r.actual === c), rows.map((r) => r.scores[c]));
    aucByClass[c] = areaUnder(roc[c]);
  }
  const aucs = Object.values(aucByClass);
  return {
    n: rows.length,
    classes: all,
    accuracy: correct / rows.length,
    auc: aucs.length === 0 ? NaN : aucs.reduce((s, a) => s + a, 0) / aucs.length,
    aucByClass,
    roc,
    confusion,
  };
}

/** RMSE, MAE, R² and the residuals of a regression's test rows (rows where either value is missing left out). */
export function regressionMetrics(actual: number[], predicted: number[]): RegressionMetrics {
  const pairs = actual.map((a, i) => [a, predicted[i]]).filter(([a, p]) => Number.isFinite(a) && Number.isFinite(p));
  const n = pairs.length;
  const mean = pairs.reduce((s, [a]) => s + a, 0) / n;
  const se = pairs.reduce((s, [a, p]) => s + (a - p) ** 2, 0);
  const ss = pairs.reduce((s, [a]) => s + (a - mean) ** 2, 0);
  return {
    n,
    rmse: Math.sqrt(se / n),
    mae: pairs.reduce((s, [a, p]) => s + Math.abs(a - p), 0) / n,
    r2: ss > 0 ? 1 - se / ss : NaN,
    residuals: pairs.map(([a, p]) => ({ predicted: p, residual: a - p })),
  };
}

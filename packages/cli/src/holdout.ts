import { CliError } from './errors';
import { classificationMetrics, regressionMetrics, type ClassificationMetrics, type ClassifiedRow, type RegressionMetrics } from './metrics';
import type { ModelInfo } from './models';
import { xyChart } from './svg';
import { decimal, table } from './table';

// `--test <csv>`: a built model scored on rows whose answers are known, from its predictions
// (the service assesses only selectModel/autoSelect scoring rows, and without a confusion matrix).

/** One test row: the cells of the model's targets, by name, and what predict answered for it. */
export interface TestRow {
  targets: Record<string, string>;
  prediction: Record<string, string>;
}

export type Holdout =
  | { kind: 'classification'; metrics: ClassificationMetrics }
  | { kind: 'regression'; metrics: RegressionMetrics };

/** A cell as a number; a missing cell (empty, NA, NaN, null, ?) is NaN. */
const number = (cell: string | undefined): number => (cell === undefined || /^\s*(|na|nan|null|\?)\s*$/i.test(cell) ? NaN : Number(cell));
const zeroOne = (v: number) => v === 0 || v === 1;
/** The binary classifiers' confidence, in the order the service's own assessment reads it (lr prob, bayes Prob, lsvm score, lda resZ). */
const binaryScore = (p: Record<string, string>) => Number(p.prob ?? p.Prob ?? p.score ?? p.resZ ?? p.res);

/**
 * mlda's and mqda's class scores are log posteriors up to a constant of the row (a linear or
 * quadratic discriminant): as such they rank one class against another within a row but not
 * rows against each other, which a one-vs-rest ROC does (the middle one of three classes along
 * a line would score ≈ 0.5). Their softmax is the posterior probability of each class.
 */
export function posteriors(classes: string[], scores: number[]): Record<string, number> {
  const top = Math.max(...scores);
  const weights = scores.map((s) => Math.exp(s - top));
  const total = weights.reduce((a, w) => a + w, 0);
  return Object.fromEntries(classes.map((c, k) => [c, weights[k] / total]));
}

/**
 * The task of a model, read from its predictions (the CLI knows no algorithm's task):
 * - several targets each a prediction key (mlda, mqda): one-hot classes, scored by their posteriors;
 * - `p_<class>` keys (rf_classifier): the target's values are the classes, the keys their probabilities;
 * - one target, 0/1 answers and 0/1 targets: binary, scored by the model's confidence;
 * - otherwise: regression on the first target.
 * Rows whose answer is missing are left out.
 */
export function holdout(model: ModelInfo, rows: TestRow[]): Holdout {
  const targets = model.targetAttributeNames ?? [];
  if (targets.length === 0) throw new CliError(`model ${model.modelId} (${model.algo}) has no target to test against`);
  if (rows.length === 0) throw new CliError('the test file has no data rows');
  const first = rows[0].prediction;
  if (targets.length > 1 && targets.every((t) => first[t] !== undefined)) {
    const classified = rows.flatMap((r): ClassifiedRow[] => {
      const actual = targets.find((t) => number(r.targets[t]) === 1);
      return actual === undefined ? [] : [{ actual, predicted: r.prediction.res, scores: posteriors(targets, targets.map((t) => Number(r.prediction[t]))) }];
    });
    return { kind: 'classification', metrics: classificationMetrics(classified, targets) };
  }
  const [target] = targets;
  const probabilities = Object.keys(first).filter((k) => k.startsWith('p_')).map((k) => k.slice(2));
  if (probabilities.length > 0) {
    const classified = rows.filter((r) => (r.targets[target] ?? '').trim() !== '').map((r) => ({
      actual: (r.targets[target] ?? '').trim(), predicted: r.prediction.res, scores: Object.fromEntries(probabilities.map((c) => [c, Number(r.prediction[`p_${c}`])])),
    }));
    return { kind: 'classification', metrics: classificationMetrics(classified, probabilities) };
  }
  const known = rows.filter((r) => !Number.isNaN(number(r.targets[target])));
  if (known.length > 0 && known.every((r) => zeroOne(number(r.targets[target])) && zeroOne(number(r.prediction.res)))) {
    const classified = known.map((r) => ({
      actual: String(number(r.targets[target])), predicted: String(number(r.prediction.res)), scores: { 1: binaryScore(r.prediction) },
    }));
    return { kind: 'classification', metrics: classificationMetrics(classified, ['0', '1']) };
  }
  return { kind: 'regression', metrics: regressionMetrics(known.map((r) => number(r.targets[target])), known.map((r) => number(r.prediction.res))) };
}

const figure = (v: number) => (Number.isNaN(v) ? 'NaN' : decimal(Number(v.toPrecision(6))));

/** The holdout as text: the figures, then (a classifier) the AUC of each class and the confusion matrix. */
export function describeHoldout(h: Holdout, file: string): string {
  const heading = `HOLDOUT on ${file}: ${h.metrics.n} rows, computed by the CLI from the model's predictions`;
  if (h.kind === 'regression') {
    const { rmse, mae, r2 } = h.metrics;
    return [heading, table(['METRIC', 'VALUE'], [['rmse', figure(rmse)], ['mae', figure(mae)], ['r2', figure(r2)]])].join('\n');
  }
  const m = h.metrics;
  const binary = m.classes.length === 2 && m.classes[0] === '0' && m.classes[1] === '1';
  const aucName = binary ? 'auc' : 'auc (macro one-vs-rest)';
  const blocks = [`${heading}\n${table(['METRIC', 'VALUE'], [['accuracy', figure(m.accuracy)], [aucName, figure(m.auc)]])}`];
  if (!binary && Object.keys(m.aucByClass).length > 0) blocks.push(table(['CLASS', 'AUC (one-vs-rest)'], Object.entries(m.aucByClass).map(([c, a]) => [c, figure(a)])));
  blocks.push(`CONFUSION MATRIX (rows: actual, columns: predicted)\n${table(['ACTUAL', ...m.classes], m.confusion.map((row, i) => [m.classes[i], ...row.map(String)]))}`);
  return blocks.join('\n\n');
}

/** The holdout's figures for `--json` (the ROC curves and residuals only go to the plot). */
export function holdoutValues(h: Holdout): Record<string, unknown> {
  if (h.kind === 'regression') {
    const { n, rmse, mae, r2 } = h.metrics;
    return { n, rmse, mae, r2 };
  }
  const { n, accuracy, auc, aucByClass, classes, confusion } = h.metrics;
  return { n, accuracy, auc, aucByClass, classes, confusion };
}

/** A classifier's ROC curves (one per scored class, with its AUC) or a regression's residuals against its predictions. */
export function holdoutPlot(h: Holdout, title: string): string {
  if (h.kind === 'regression') {
    const points = h.metrics.residuals.map((r) => ({ x: r.predicted, y: r.residual }));
    const xs = points.map((p) => p.x);
    return xyChart({
      title: `Residuals: ${title}`, xLabel: 'predicted', yLabel: 'residual (actual − predicted)',
      series: [{ name: 'rows', points, kind: 'points' }],
      references: [{ from: { x: Math.min(...xs), y: 0 }, to: { x: Math.max(...xs), y: 0 } }],
    });
  }
  const m = h.metrics;
  const binary = m.classes.length === 2 && m.classes[0] === '0' && m.classes[1] === '1';
  return xyChart({
    title: `ROC: ${title}`, xLabel: 'false positive rate', yLabel: 'true positive rate',
    series: Object.entries(m.roc).map(([c, curve]) => ({
      name: `${binary ? 'class 1' : c} (AUC ${figure(m.aucByClass[c])})`, points: curve.map((p) => ({ x: p.fpr, y: p.tpr })), kind: 'line' as const,
    })),
    references: [{ from: { x: 0, y: 0 }, to: { x: 1, y: 1 }, label: 'chance' }],
    xDomain: [0, 1],
    yDomain: [0, 1],
  });
}

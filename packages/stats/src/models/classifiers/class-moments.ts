import { Matrix } from 'ml-matrix';
import type { Summary } from '../../summary';
import { ModelInputError } from '../types';

/**
 * Per-class statistics of the inputs (STATS.md §1). Counts and means are exact for each
 * input over the rows where it and the class attribute are present; variances are
 * population (÷n_k).
 */
export interface ClassStatistics {
  labels: string[];
  /** Rows of each class. */
  counts: number[];
  /** means[k][i]: mean of input i over the rows of class k. */
  means: number[][];
  /** variances[k][i]: population variance of input i over the rows of class k. */
  variances: number[][];
  /** Rows of all classes. */
  n: number;
}

/** A binary target: B, or a categorical level (its values are 0/1 by construction). */
export function requireBinary(summary: Summary, algo: string, target: number): void {
  if (summary.attributeTypes[target] !== 'B') {
    throw new ModelInputError(`${algo} needs a binary target (B or a categorical level); [${summary.attributeNames[target]}] is continuous`);
  }
}

/**
 * The two classes b = 0 and b = 1 of a binary target, from the pair sums of each input x
 * with b: Σb, Σx·b and Σx²·b² = Σx²·b give class 1; the co-present totals Σx, Σx² minus
 * those give class 0.
 */
export function binaryClasses(summary: Summary, algo: string, inputs: readonly number[], target: number): ClassStatistics {
  requireBinary(summary, algo, target);
  const name = summary.attributeNames[target];
  const n = summary.count(target);
  const n1 = summary.moments(target).sum;
  const n0 = n - n1;
  if (!(n0 > 0 && n1 > 0)) throw new ModelInputError(`${algo} needs rows of both classes of [${name}]: ${n0} rows with 0, ${n1} with 1`);
  const means: number[][] = [[], []];
  const variances: number[][] = [[], []];
  for (const i of inputs) {
    const c = summary.comoments(i, target);
    const ones = c.sumY;
    const zeros = c.count - ones;
    if (!(ones > 0 && zeros > 0)) {
      throw new ModelInputError(`${algo}: [${summary.attributeNames[i]}] has no value in rows where [${name}] is ${ones > 0 ? 0 : 1}`);
    }
    const m1 = c.sumXY / ones;
    const m0 = (c.sumX - c.sumXY) / zeros;
    means[1].push(m1);
    means[0].push(m0);
    variances[1].push(Math.max(0, c.sumXXYY / ones - m1 * m1));
    variances[0].push(Math.max(0, (c.sumXX - c.sumXXYY) / zeros - m0 * m0));
  }
  return { labels: ['0', '1'], counts: [n0, n1], means, variances, n };
}

/**
 * Classes given as one-hot binary targets (each row in exactly one class). Checked from the
 * pair counts: every target present on the same rows, no two targets 1 on one row
 * (Σb_j·b_k = 0), and the class sizes adding up to those rows.
 */
export function oneHotClasses(summary: Summary, algo: string, inputs: readonly number[], targets: readonly number[]): ClassStatistics {
  const names = summary.attributeNames;
  if (targets.length < 2) throw new ModelInputError(`${algo} needs at least two class attributes (one-hot binary targets), got ${targets.length}`);
  for (const t of targets) requireBinary(summary, algo, t);
  const n = summary.count(targets[0]);
  for (let a = 0; a < targets.length; a++) {
    for (let b = a + 1; b < targets.length; b++) {
      const c = summary.comoments(targets[a], targets[b]);
      if (c.count !== n || summary.count(targets[b]) !== n) {
        throw new ModelInputError(`${algo} needs one-hot class attributes present on the same rows: [${names[targets[a]]}] and [${names[targets[b]]}] are not`);
      }
      if (c.sumXY !== 0) throw new ModelInputError(`${algo} needs one-hot class attributes: [${names[targets[a]]}] and [${names[targets[b]]}] are both 1 on ${c.sumXY} rows`);
    }
  }
  const counts = targets.map((t) => summary.moments(t).sum);
  const covered = counts.reduce((s, c) => s + c, 0);
  if (covered !== n) throw new ModelInputError(`${algo} needs one-hot class attributes: ${n - covered} of ${n} rows are in no class`);
  const means: number[][] = [];
  const variances: number[][] = [];
  targets.forEach((t, k) => {
    if (counts[k] === 0) throw new ModelInputError(`${algo}: class [${names[t]}] has no rows`);
    const m = inputs.map((i) => summary.comoments(i, t));
    m.forEach((c, j) => {
      if (c.sumY === 0) throw new ModelInputError(`${algo}: [${names[inputs[j]]}] has no value in class [${names[t]}]`);
    });
    means.push(m.map((c) => c.sumXY / c.sumY));
    variances.push(m.map((c) => Math.max(0, c.sumXXYY / c.sumY - (c.sumXY / c.sumY) ** 2)));
  });
  return { labels: targets.map((t) => names[t]), counts, means, variances, n };
}

/**
 * Pooled within-class covariance Σ_k (n_k/n)·Cov_k (population per class, sklearn's
 * `_class_cov` with priors n_k/n) as the total covariance minus the between-class part:
 * S_w = Cov − Σ_k (n_k/n)(μ_k − μ)(μ_k − μ)ᵀ, μ = Σ_k (n_k/n)·μ_k. The summary has no
 * class-conditional cross products Σx_i·x_j·b (only pairs), but this identity needs none:
 * exact when no input or class cell is missing; with missing cells it mixes the pairwise
 * total covariance with per-input class means (an estimate, as mlr's pairwise moments).
 */
export function pooledWithinCovariance(summary: Summary, algo: string, inputs: readonly number[], classes: ClassStatistics): Matrix {
  const names = summary.attributeNames;
  const p = inputs.length;
  const cov = summary.covariance(inputs);
  for (let a = 0; a < p; a++) {
    for (let b = a; b < p; b++) {
      if (Number.isNaN(cov.get(a, b))) throw new ModelInputError(`${algo}: no rows where both [${names[inputs[a]]}] and [${names[inputs[b]]}] are present`);
    }
  }
  const mu = new Array<number>(p).fill(0);
  classes.means.forEach((m, k) => m.forEach((v, i) => (mu[i] += (classes.counts[k] / classes.n) * v)));
  classes.means.forEach((m, k) => {
    const w = classes.counts[k] / classes.n;
    const d = m.map((v, i) => v - mu[i]);
    for (let a = 0; a < p; a++) for (let b = 0; b < p; b++) cov.set(a, b, cov.get(a, b) - w * d[a] * d[b]);
  });
  return cov;
}

/** Classes = the values of a `partition` project's split column, each with its full sub-summary. */
export interface PartitionClasses {
  /** The `partitionSplit` column. */
  column: string;
  labels: string[];
  counts: number[];
  means: number[][];
  /** Pairwise-complete covariance of the inputs within each class: population (÷n_k), or ÷(n_k − 1) when asked unbiased. */
  covariances: Matrix[];
}

/**
 * Per-class means and covariances from the sub-summary of each partition value (STATS.md
 * §1: per-class covariance needs a `partition` project). Inputs are matched by name, since
 * a sub-summary numbers its attributes in its own order of appearance.
 */
export function partitionClasses(summary: Summary, algo: string, inputNames: readonly string[], options: { unbiased?: boolean } = {}): PartitionClasses {
  const column = summary.options.partitionSplit;
  const labels = summary.partitionValues();
  if (column === undefined || labels.length === 0) throw new ModelInputError(`${algo} needs a partition project`);
  if (labels.length < 2) throw new ModelInputError(`${algo} needs at least two values of the partition column [${column}], got ${labels.length}`);
  const counts: number[] = [];
  const means: number[][] = [];
  const covariances: Matrix[] = [];
  for (const label of labels) {
    const sub = summary.partition(label)!;
    const indexes = inputNames.map((name) => {
      const i = sub.indexOf(name);
      if (i < 0 || sub.count(i) === 0) throw new ModelInputError(`${algo}: [${name}] has no value in class [${label}]`);
      return i;
    });
    const cov = sub.covariance(indexes, options);
    for (let a = 0; a < indexes.length; a++) {
      for (let b = a; b < indexes.length; b++) {
        if (Number.isNaN(cov.get(a, b))) throw new ModelInputError(`${algo}: too few rows of class [${label}] where [${inputNames[a]}] and [${inputNames[b]}] are present for a covariance`);
      }
    }
    counts.push(sub.rowCount);
    means.push(indexes.map((i) => sub.mean(i)));
    covariances.push(cov);
  }
  return { column, labels, counts, means, covariances };
}

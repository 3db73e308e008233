import { Matrix } from 'ml-matrix';
import type { Summary } from '../../summary';
import { inverseOrExplain } from '../linalg';
import { num } from '../rows';
import { type Algorithm, ModelInputError, type ModelSpec } from '../types';
import { binaryClasses, oneHotClasses, partitionClasses, pooledWithinCovariance } from './class-moments';
import { argmax, checkedInputs, SnapshotModel, type SnapshotState } from './model';
import { as, classCount, matrix, number, numbers, readSnapshotState } from '../state-read';

/**
 * Linear discriminant functions δ_k(x) = x·Σ⁻¹μ_k − ½μ_k·Σ⁻¹μ_k + ln π_k with Σ the pooled
 * within-class covariance and π_k = n_k/n: sklearn LinearDiscriminantAnalysis
 * (solver='lsqr', priors from class frequencies), whose `svd` solver gives the same
 * predictions on full-rank data.
 */
function discriminants(sw: Matrix, means: number[][], counts: number[], names: string[], pseudo: boolean): { coef: number[][]; intercept: number[] } {
  const n = counts.reduce((s, c) => s + c, 0);
  const inv = inverseOrExplain(sw, names, pseudo);
  const coef = means.map((m) => inv.mmul(Matrix.columnVector(m)).getColumn(0));
  const intercept = means.map((m, k) => -0.5 * m.reduce((s, v, i) => s + v * coef[k][i], 0) + Math.log(counts[k] / n));
  return { coef, intercept };
}

interface LdaState extends SnapshotState {
  /** Discriminant direction w = Σ⁻¹(μ₁ − μ₀). */
  w: number[];
  /** Threshold on resZ = w·x: class 1 when resZ > z0. */
  z0: number;
  /** Mahalanobis distance between the class means, √(wᵀΣw), the spread of resZ within a class. */
  d: number;
}

/**
 * `lda`: two-class Fisher LDA on a binary target (STATS.md §4), built from class-conditional
 * moments (class means from Σx·b, pooled covariance as total minus between-class, see
 * pooledWithinCovariance). Predictions:
 * - `resZ` = w·x, the discriminant score, w = Σ⁻¹(μ₁ − μ₀);
 * - `z0` = ½w·(μ₀ + μ₁) − ln(n₁/n₀), the threshold (the same for every row);
 * - `res` = 1 when resZ > z0, else 0 (resZ − z0 is sklearn's decision_function);
 * - `normZ` = (resZ − z0)/D with D = √(wᵀΣw) the Mahalanobis distance between the class
 *   means: the standardized score, in within-class standard deviations of resZ.
 * `matrix_use_pseudoinv=true` uses a pseudo-inverse for a singular pooled covariance.
 * Reference: sklearn LinearDiscriminantAnalysis (test/models/classifiers/fixtures).
 */
export const lda: Algorithm = {
  name: 'lda',
  task: 'binary',
  build(summary: Summary, spec: ModelSpec) {
    const inputNames = checkedInputs(summary, spec);
    if (spec.targets.length !== 1) throw new ModelInputError(`lda needs exactly one binary target attribute, got ${spec.targets.length}`);
    const target = spec.targets[0];
    const classes = binaryClasses(summary, 'lda', spec.inputs, target);
    const sw = pooledWithinCovariance(summary, 'lda', spec.inputs, classes);
    const { coef, intercept } = discriminants(sw, classes.means, classes.counts, inputNames, spec.params.matrix_use_pseudoinv === 'true');
    const w = coef[1].map((c, i) => c - coef[0][i]);
    const z0 = intercept[0] - intercept[1];
    const d = Math.sqrt(Math.max(0, w.reduce((s, wi, i) => s + wi * (classes.means[1][i] - classes.means[0][i]), 0)));
    const [n0, n1] = classes.counts;
    const extra: Record<string, string> = { intercept: num(-z0) };
    inputNames.forEach((name, i) => {
      extra[`coef_${name}`] = num(w[i]);
      extra[`mean0_${name}`] = num(classes.means[0][i]);
      extra[`mean1_${name}`] = num(classes.means[1][i]);
    });
    const state: LdaState = {
      algo: 'lda',
      inputNames,
      targetNames: [summary.attributeNames[target]],
      means: spec.inputs.map((i) => summary.mean(i)),
      info: { n: num(classes.n), n0: num(n0), n1: num(n1), z0: num(z0), mahalanobis: num(d) },
      extra,
      w,
      z0,
      d,
    };
    return ldaModel(state);
  },
  restore(state) {
    const { s, p } = readSnapshotState(state, 'lda');
    numbers(s.w, 'state.w', p);
    number(s.z0, 'state.z0');
    number(s.d, 'state.d');
    return ldaModel(as<LdaState>(s));
  },
};

function ldaModel(state: LdaState) {
  return new SnapshotModel(state, (x, s) => {
    let z = 0;
    for (let i = 0; i < x.length; i++) z += s.w[i] * x[i];
    return { res: z - s.z0 > 0 ? '1' : '0', resZ: num(z), z0: num(s.z0), normZ: num((z - s.z0) / s.d) };
  });
}

interface MldaState extends SnapshotState {
  classes: string[];
  coef: number[][];
  intercept: number[];
}

/**
 * `mlda`: multi-class LDA (STATS.md §4). Classes are either several one-hot binary targets
 * (class name = target attribute name) or, with no target on a `partition` project, the
 * values of the partition column (pooled covariance Σ_k (n_k/n)·Cov_k straight from the
 * sub-summaries). Predictions: `res` = the class with the largest discriminant and one key
 * per class name holding its discriminant δ_k(x) (sklearn's decision_function column).
 * Reference: sklearn LinearDiscriminantAnalysis.
 */
export const mlda: Algorithm = {
  name: 'mlda',
  task: 'multiclass',
  build(summary: Summary, spec: ModelSpec) {
    const inputNames = checkedInputs(summary, spec);
    let labels: string[];
    let counts: number[];
    let means: number[][];
    let sw: Matrix;
    let targetNames: string[];
    if (spec.targets.length > 0) {
      const classes = oneHotClasses(summary, 'mlda', spec.inputs, spec.targets);
      ({ labels, counts, means } = classes);
      sw = pooledWithinCovariance(summary, 'mlda', spec.inputs, classes);
      targetNames = labels;
    } else {
      const parts = partitionClasses(summary, 'mlda', inputNames);
      ({ labels, counts, means } = parts);
      const n = counts.reduce((s, c) => s + c, 0);
      sw = new Matrix(inputNames.length, inputNames.length);
      parts.covariances.forEach((cov, k) => sw.add(cov.clone().mul(counts[k] / n)));
      targetNames = [parts.column];
    }
    if (labels.includes('res')) throw new ModelInputError('mlda: a class named [res] would clash with the prediction key res');
    const { coef, intercept } = discriminants(sw, means, counts, inputNames, spec.params.matrix_use_pseudoinv === 'true');
    const extra: Record<string, string> = {};
    labels.forEach((label, k) => {
      extra[`intercept_${label}`] = num(intercept[k]);
      inputNames.forEach((name, i) => {
        extra[`coef_${label}_${name}`] = num(coef[k][i]);
        extra[`mean_${label}_${name}`] = num(means[k][i]);
      });
    });
    const info: Record<string, string> = { n: num(counts.reduce((s, c) => s + c, 0)), classes: labels.join(',') };
    labels.forEach((label, k) => (info[`n_${label}`] = num(counts[k])));
    const state: MldaState = {
      algo: 'mlda',
      inputNames,
      targetNames,
      means: spec.inputs.map((i) => summary.mean(i)),
      info,
      extra,
      classes: labels,
      coef,
      intercept,
    };
    return mldaModel(state);
  },
  restore(state) {
    const { s, p } = readSnapshotState(state, 'mlda');
    const k = classCount(s.classes);
    matrix(s.coef, 'state.coef', k, p);
    numbers(s.intercept, 'state.intercept', k);
    return mldaModel(as<MldaState>(s));
  },
};

function mldaModel(state: MldaState) {
  return new SnapshotModel(state, (x, s) => {
    const scores = s.coef.map((c, k) => c.reduce((acc, ci, i) => acc + ci * x[i], s.intercept[k]));
    const out: Record<string, string> = { res: s.classes[argmax(scores)] };
    s.classes.forEach((label, k) => (out[label] = num(scores[k])));
    return out;
  });
}

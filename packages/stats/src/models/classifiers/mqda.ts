import { CholeskyDecomposition, EigenvalueDecomposition, type Matrix } from 'ml-matrix';
import type { Summary } from '../../summary';
import { flatRows, inverseOrExplain, quadraticForm } from '../linalg';
import { num } from '../rows';
import { type Algorithm, ModelInputError, type ModelSpec } from '../types';
import { partitionClasses } from './class-moments';
import { argmax, checkedInputs, SnapshotModel, type SnapshotState } from './model';
import { as, classCount, list, matrix, numbers, readSnapshotState } from '../state-read';

interface MqdaState extends SnapshotState {
  classes: string[];
  classMeans: number[][];
  /** Inverse of each class covariance. */
  precisions: number[][][];
  /** −½·ln det Σ_k + ln π_k per class. */
  offsets: number[];
}

/**
 * ln det of a symmetric positive definite matrix by Cholesky; with `pseudo` and a singular
 * matrix, the log pseudo-determinant (eigenvalues above 1e-12 of the largest).
 */
function logDeterminant(a: Matrix, pseudo: boolean): number {
  const chol = new CholeskyDecomposition(a);
  if (chol.isPositiveDefinite()) {
    const l = chol.lowerTriangularMatrix;
    let s = 0;
    for (let i = 0; i < a.rows; i++) s += 2 * Math.log(l.get(i, i));
    return s;
  }
  if (!pseudo) throw new ModelInputError('covariance is not positive definite');
  const values = new EigenvalueDecomposition(a, { assumeSymmetric: true }).realEigenvalues;
  const max = Math.max(...values);
  return values.filter((v) => v > max * 1e-12).reduce((s, v) => s + Math.log(v), 0);
}

/**
 * `mqda`: quadratic discriminant analysis on a `partition` project (STATS.md §4): one class
 * per value of the partition column, each with its own mean and unbiased (÷(n_k − 1))
 * covariance from its sub-summary, prior π_k = n_k/n. Score of class k (sklearn
 * QuadraticDiscriminantAnalysis `_decision_function`, reg_param = 0):
 *   δ_k(x) = −½·(ln det Σ_k + (x − μ_k)ᵀΣ_k⁻¹(x − μ_k)) + ln π_k.
 * Predictions: `res` = the class with the largest δ_k, and one key per class value holding
 * δ_k(x). A singular class covariance is refused naming the class and the collinear
 * attributes, unless `matrix_use_pseudoinv=true` (pseudo-inverse, log pseudo-determinant).
 */
export const mqda: Algorithm = {
  name: 'mqda',
  task: 'multiclass',
  build(summary: Summary, spec: ModelSpec) {
    const inputNames = checkedInputs(summary, spec);
    const parts = partitionClasses(summary, 'mqda', inputNames, { unbiased: true });
    if (parts.labels.includes('res')) throw new ModelInputError('mqda: a class named [res] would clash with the prediction key res');
    const pseudo = spec.params.matrix_use_pseudoinv === 'true';
    const n = parts.counts.reduce((s, c) => s + c, 0);
    const precisions: number[][][] = [];
    const offsets: number[] = [];
    const info: Record<string, string> = { n: num(n), classes: parts.labels.join(',') };
    const extra: Record<string, string> = {};
    parts.labels.forEach((label, k) => {
      let precision: Matrix;
      let logDet: number;
      try {
        precision = inverseOrExplain(parts.covariances[k], inputNames, pseudo);
        logDet = logDeterminant(parts.covariances[k], pseudo);
      } catch (e) {
        if (e instanceof ModelInputError) throw new ModelInputError(`mqda: class [${label}]: ${e.message}`, { cause: e });
        throw e;
      }
      const prior = parts.counts[k] / n;
      precisions.push(precision.to2DArray());
      offsets.push(-0.5 * logDet + Math.log(prior));
      info[`n_${label}`] = num(parts.counts[k]);
      extra[`prior_${label}`] = num(prior);
      extra[`logdet_${label}`] = num(logDet);
      inputNames.forEach((name, i) => (extra[`mean_${label}_${name}`] = num(parts.means[k][i])));
    });
    const state: MqdaState = {
      algo: 'mqda',
      inputNames,
      targetNames: [parts.column],
      means: spec.inputs.map((i) => summary.mean(i)),
      info,
      extra,
      classes: parts.labels,
      classMeans: parts.means,
      precisions,
      offsets,
    };
    return mqdaModel(state);
  },
  restore(state) {
    const { s, p } = readSnapshotState(state, 'mqda');
    const k = classCount(s.classes);
    matrix(s.classMeans, 'state.classMeans', k, p);
    list(s.precisions, 'state.precisions', k).forEach((m, c) => matrix(m, `state.precisions[${c}]`, p, p));
    numbers(s.offsets, 'state.offsets', k);
    return mqdaModel(as<MqdaState>(s));
  },
};

function mqdaModel(state: MqdaState) {
  const precisions = state.precisions.map(flatRows);
  const p = state.inputNames.length;
  return new SnapshotModel(state, (x, s) => {
    const scores = s.classes.map((_, k) => s.offsets[k] - 0.5 * quadraticForm(precisions[k], Array.from(x, (v, i) => v - s.classMeans[k][i])));
    const out: Record<string, string> = { res: s.classes[argmax(scores)] };
    s.classes.forEach((label, k) => (out[label] = num(scores[k])));
    return out;
  }, (s) => s.classes.length * p * p);
}

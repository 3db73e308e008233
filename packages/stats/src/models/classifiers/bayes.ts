import type { Summary } from '../../summary';
import { num } from '../rows';
import { type Algorithm, ModelInputError, type ModelSpec } from '../types';
import { binaryClasses } from './class-moments';
import { checkedInputs, numberParam, SnapshotModel, type SnapshotState } from './model';
import { as, choice, list, numbers, object, readSnapshotState } from '../state-read';

/** sklearn GaussianNB's default `var_smoothing`. */
export const DEFAULT_VAR_SMOOTHING = 1e-9;
/** Default `laplace_factor` (sklearn BernoulliNB's alpha = 1). */
export const DEFAULT_LAPLACE_FACTOR = 1;

/** One input's class-conditional likelihood, classes 0 and 1. */
type Likelihood =
  | { kind: 'gaussian'; mean: [number, number]; variance: [number, number] }
  | { kind: 'bernoulli'; logP: [number, number]; logQ: [number, number] };

interface BayesState extends SnapshotState {
  logPrior: [number, number];
  likelihoods: Likelihood[];
}

/**
 * `bayes`: naive Bayes on a binary target (STATS.md §4), from class-conditional moments:
 * - C inputs: Gaussian, class mean and population variance plus ε = `var_smoothing`
 *   (default 1e-9) × the largest population variance of the C inputs (sklearn GaussianNB);
 * - B inputs (and categorical levels): Bernoulli, P(x = 1 | class) = (Σx over the class +
 *   α)/(n_class + 2α) with α = `laplace_factor` (default 1, > 0; sklearn BernoulliNB's
 *   alpha), log-likelihood x·ln p + (1 − x)·ln(1 − p).
 * Class priors are the class frequencies. Each input's class statistics come from the rows
 * where it and the target are present, so missing cells cost no bias. A missing input is
 * imputed with its mean (API.md §7; for a B input, its fraction of ones). Predictions: `Prob` =
 * P(class 1 | x), `res` = 1 when the class-1 joint log-likelihood is larger (ties → 0).
 * References: sklearn GaussianNB (C inputs), GaussianNB + BernoulliNB (mixed).
 */
export const bayes: Algorithm = {
  name: 'bayes',
  task: 'binary',
  build(summary: Summary, spec: ModelSpec) {
    const inputNames = checkedInputs(summary, spec);
    if (spec.targets.length !== 1) throw new ModelInputError(`bayes needs exactly one binary target attribute, got ${spec.targets.length}`);
    const target = spec.targets[0];
    const smoothing = numberParam(spec, 'var_smoothing', DEFAULT_VAR_SMOOTHING, (v) => v >= 0, 'a number ≥ 0');
    const alpha = numberParam(spec, 'laplace_factor', DEFAULT_LAPLACE_FACTOR, (v) => v > 0, 'a number > 0');
    const classes = binaryClasses(summary, 'bayes', spec.inputs, target);
    const types = summary.attributeTypes;
    const gaussian = spec.inputs.filter((i) => types[i] === 'C');
    const epsilon = smoothing * Math.max(0, ...gaussian.map((i) => summary.variance(i)));
    const extra: Record<string, string> = {};
    const likelihoods = spec.inputs.map((i, k): Likelihood => {
      const name = inputNames[k];
      if (types[i] === 'C') {
        const variance: [number, number] = [classes.variances[0][k] + epsilon, classes.variances[1][k] + epsilon];
        variance.forEach((v, c) => {
          if (!(v > 0)) throw new ModelInputError(`bayes: [${name}] is constant in class ${c} of [${summary.attributeNames[target]}] and var_smoothing gives no variance`);
        });
        [0, 1].forEach((c) => {
          extra[`mean${c}_${name}`] = num(classes.means[c][k]);
          extra[`var${c}_${name}`] = num(variance[c]);
        });
        return { kind: 'gaussian', mean: [classes.means[0][k], classes.means[1][k]], variance };
      }
      const m = summary.comoments(i, target);
      const ones: [number, number] = [m.sumX - m.sumXY, m.sumXY];
      const rows: [number, number] = [m.count - m.sumY, m.sumY];
      const p = [0, 1].map((c) => (ones[c] + alpha) / (rows[c] + 2 * alpha));
      extra[`p0_${name}`] = num(p[0]);
      extra[`p1_${name}`] = num(p[1]);
      return { kind: 'bernoulli', logP: [Math.log(p[0]), Math.log(p[1])], logQ: [Math.log1p(-p[0]), Math.log1p(-p[1])] };
    });
    const [n0, n1] = classes.counts;
    const state: BayesState = {
      algo: 'bayes',
      inputNames,
      targetNames: [summary.attributeNames[target]],
      means: spec.inputs.map((i) => summary.mean(i)),
      info: { n: num(classes.n), n0: num(n0), n1: num(n1), epsilon: num(epsilon), laplace_factor: num(alpha) },
      extra,
      logPrior: [Math.log(n0 / classes.n), Math.log(n1 / classes.n)],
      likelihoods,
    };
    return bayesModel(state);
  },
  restore(state) {
    const { s, p } = readSnapshotState(state, 'bayes');
    numbers(s.logPrior, 'state.logPrior', 2);
    list(s.likelihoods, 'state.likelihoods', p).forEach((l, i) => {
      const path = `state.likelihoods[${i}]`;
      const o = object(l, path);
      const keys = choice(o.kind, `${path}.kind`, ['gaussian', 'bernoulli'] as const) === 'gaussian' ? ['mean', 'variance'] : ['logP', 'logQ'];
      for (const k of keys) numbers(o[k], `${path}.${k}`, 2);
    });
    return bayesModel(as<BayesState>(s));
  },
};

function bayesModel(state: BayesState) {
  return new SnapshotModel(state, (x, s) => {
    const jll = [s.logPrior[0], s.logPrior[1]];
    s.likelihoods.forEach((l, i) => {
      for (let c = 0; c < 2; c++) {
        if (l.kind === 'gaussian') jll[c] -= 0.5 * Math.log(2 * Math.PI * l.variance[c]) + (0.5 * (x[i] - l.mean[c]) ** 2) / l.variance[c];
        else jll[c] += x[i] * l.logP[c] + (1 - x[i]) * l.logQ[c];
      }
    });
    return { res: jll[1] > jll[0] ? '1' : '0', Prob: num(1 / (1 + Math.exp(jll[0] - jll[1]))) };
  });
}

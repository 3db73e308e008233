import type { Summary } from '../summary';
import type { ModelSpec } from './types';

/**
 * Algorithms whose build reads only the statistics of the spec's inputs and targets (and of
 * their categorical columns' levels), by index or by their names: each builds the same model
 * from `restrictedBuild`'s sub-summary as from the whole summary (conformance-all.test.ts).
 * The others read more: powerreg the power columns, mqda the partitions by name, kmeans and
 * rf_* the project's clusters and forest, evt, km, mc and hmm their own project-wide state.
 */
export const RESTRICTABLE_ALGORITHMS: ReadonlySet<string> = new Set([
  'mlr', 'ridge', 'lasso', 'elasticnet', 'pcr', 'plsq', 'lsvr', 'lsvm', 'lr', 'lda', 'mlda', 'bayes', 'covest', 'repca', 'oospca', 'hba', 'ecod',
]);

/**
 * The sub-summary a model build needs (Summary.restrict of the spec's attributes and their
 * categorical siblings) and the spec renumbered to it: a build worker is then sent ≈ 130 KB
 * for 50 attributes instead of the whole summary (≈ 200 MB at 2000 attributes).
 */
export function restrictedBuild(summary: Summary, spec: ModelSpec): { summary: Summary; spec: ModelSpec } {
  const kept = summary.withSiblingLevels([...spec.inputs, ...spec.targets]);
  const position = new Map(kept.map((i, a) => [i, a]));
  const local = (i: number) => position.get(i)!;
  return { summary: summary.restrict(kept), spec: { ...spec, inputs: spec.inputs.map(local), targets: spec.targets.map(local) } };
}

import type { SequenceCounts } from './counts';
import type { Summary } from '../../summary';
import { ModelInputError, type ModelSpec } from '../types';

/** The summary's sequence counts; ModelInputError when the project is not a `sequence` project. */
export function sequenceCounts(summary: Summary, algo: string): SequenceCounts {
  const seq = summary.sequences;
  if (seq === undefined) throw new ModelInputError(`${algo} needs a sequence project (type=sequence, sml_project_order)`);
  return seq;
}

/** One role of a sequence model and where its variable may be named. */
export interface VariableRole {
  /** The extraParameter naming the variable directly: `variable`, `hidden` or `observed`. */
  param: string;
  /** The MLContext attributes of the role (summary indexes): the spec's `inputs` or `targets`. */
  indexes: readonly number[];
  /** For messages: `input`, `target`. */
  what: string;
}

/** What a role names: a sequence variable, an attribute that is not one, or nothing. */
export type Named = { kind: 'variable'; name: string } | { kind: 'attribute'; index: number; name: string } | { kind: 'none' };

/**
 * The variable a role names (README "Choosing the variable"). The extraParameter is a
 * sequence variable or an attribute name. The MLContext attributes arrive resolved to summary
 * attributes: a categorical column `Place` as its levels `Place$kitchen`, …, which map back
 * to the variable `Place`; a B column is an attribute and a variable of the same name. When
 * both are given they must agree.
 */
export function resolveRole(summary: Summary, seq: SequenceCounts, spec: ModelSpec, role: VariableRole): Named {
  const variables = seq.variableNames();
  const fromParam = paramNamed(summary, variables, spec, role);
  const fromIndexes = indexesNamed(summary, variables, spec.algo, role);
  if (fromParam.kind !== 'none' && fromIndexes.kind !== 'none' && fromParam.name !== fromIndexes.name) {
    throw new ModelInputError(`${spec.algo}: parameter [${role.param}] names [${fromParam.name}] but the ${role.what}s name [${fromIndexes.name}]`);
  }
  return fromParam.kind !== 'none' ? fromParam : fromIndexes;
}

function paramNamed(summary: Summary, variables: readonly string[], spec: ModelSpec, role: VariableRole): Named {
  const name = paramText(spec.params, role.param);
  if (name === undefined) return { kind: 'none' };
  if (variables.includes(name)) return { kind: 'variable', name };
  const index = summary.indexOf(name);
  if (index >= 0) return { kind: 'attribute', index, name };
  throw new ModelInputError(`${spec.algo}: parameter [${role.param}] names [${name}], which is neither a sequence variable (${variables.join(', ') || 'none learned'}) nor an attribute`);
}

function indexesNamed(summary: Summary, variables: readonly string[], algo: string, role: VariableRole): Named {
  if (role.indexes.length === 0) return { kind: 'none' };
  const names = summary.attributeNames;
  const separator = summary.options.categorySeparator;
  const variableOf = (name: string) => (variables.includes(name) ? name : variables.find((v) => name.startsWith(v + separator)));
  const found = new Set<string>();
  const others: number[] = [];
  for (const i of role.indexes) {
    if (!Number.isInteger(i) || i < 0 || i >= names.length) throw new ModelInputError(`${algo}: unknown attribute index [${i}]`);
    const v = variableOf(names[i]);
    if (v === undefined) others.push(i);
    else found.add(v);
  }
  if (found.size > 1) throw new ModelInputError(`${algo} needs one ${role.what} sequence variable, the ${role.what}s name ${[...found].sort().join(', ')}`);
  if (found.size === 1) {
    const name = [...found][0];
    if (others.length > 0) throw new ModelInputError(`${algo}: ${role.what} [${names[others[0]]}] is not part of sequence variable [${name}]`);
    return { kind: 'variable', name };
  }
  if (others.length > 1) return { kind: 'attribute', index: -1, name: others.map((i) => names[i]).join(', ') };
  return { kind: 'attribute', index: others[0], name: names[others[0]] };
}

/** A trimmed, non-empty extraParameter, or undefined. */
export function paramText(params: Record<string, string>, name: string): string | undefined {
  const text = params[name]?.trim();
  return text === undefined || text === '' ? undefined : text;
}

/** `sequence_initial`: how the first state of a sequence is scored. */
export type Initial = 'starts' | 'unigrams';

/**
 * `sequence_initial` (README "First state"): `starts` (first states of the learned
 * sequences) or `unigrams` (state frequencies). Default: `starts` in `rows` layout, where
 * every row is a sequence, `unigrams` in `steps` layout, which is one running sequence
 * whose single start says nothing about where a new sequence begins.
 */
export function initialParam(spec: ModelSpec, seq: SequenceCounts): Initial {
  const text = paramText(spec.params, 'sequence_initial');
  if (text === undefined) return seq.layout === 'rows' ? 'starts' : 'unigrams';
  if (text !== 'starts' && text !== 'unigrams') throw new ModelInputError(`parameter [sequence_initial] must be one of starts, unigrams, got "${text}"`);
  return text;
}

/** Counts as sorted [state, count] pairs (the JSON form a model keeps). */
export function countPairs(counts: Map<string, number>): [string, number][] {
  return [...counts].filter(([, c]) => c > 0).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

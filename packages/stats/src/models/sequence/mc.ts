import { categoryOf } from '../../frame';
import type { SequenceLayout } from './counts';
import type { Summary } from '../../summary';
import { num } from '../rows';
import { type Algorithm, ModelInputError, type ModelSpec, type PredictFrame, type Prediction } from '../types';
import { countPairs, paramText, resolveRole, sequenceCounts } from './variables';
import { StateModel } from '../base';
import { as, choice, integer, list, number, readModelState, text, texts } from '../state-read';

/**
 * How `seq.like` scores the start of a sequence (`sequence_initial`): `ngrams` (default,
 * STATS.md §4) = the first min(T, n) states as one n-gram, its share of all learned n-grams
 * (order 1: the first state's share of all states), then the order-n transitions; `starts` /
 * `unigrams` = the first state's share of the sequence starts / of all states, then the
 * shorter chains for the first n − 1 transitions (README "First state").
 */
type McInitial = 'ngrams' | 'starts' | 'unigrams';

/** One row of an order-k chain: a history of k states and the counts of the state after it. */
type ChainRow = [history: string[], next: [string, number][]];

interface McState {
  algo: 'mc';
  inputNames: string[];
  targetNames: string[];
  layout: SequenceLayout;
  order: number;
  initialKind: McInitial;
  /** Counts of the first state: sequence starts (`starts`) or unigrams. */
  initial: [string, number][];
  /** chains[k − 1]: the order-k chain (k = 1..order), from the (k + 1)-gram counts. */
  chains: ChainRow[][];
  info: Record<string, string>;
  extra: Record<string, string>;
}

/** A categorical distribution by counts: total, [state, count] sorted by state, count by state. */
interface Distribution {
  total: number;
  counts: [string, number][];
  byState: Map<string, number>;
}

/**
 * `mc`: Markov chain of order n = `sml_project_order` (STATS.md §4, §7), from the
 * summary's n-gram counts, no smoothing: P(j | i) = count(i → j)/count(i as predecessor),
 * i a history of n states, count(i as predecessor) = Σ_j count(i → j). A sequence's
 * `seq.like` = ln P(first) + Σ ln P(transition) (natural log), P(first) = the share of the
 * sequence's first min(T, n) states among all learned n-grams (order 1: the first state's
 * share of all states), as SymetryML's published weather example; `sequence_initial=starts`
 * or `unigrams` score the first state alone and the first n − 1 transitions with the chain of
 * that shorter order (the k-gram counts).
 * `next` = the most likely state after the sequence's last n states (ties: the first in
 * sorted order), `next.p` its probability. Decisions (first state, missing cells, unseen
 * histories): README.
 */
export const mc: Algorithm = {
  name: 'mc',
  task: 'other',
  build(summary: Summary, spec: ModelSpec) {
    const seq = sequenceCounts(summary, 'mc');
    if (spec.targets.length > 0) throw new ModelInputError('mc takes no target attribute (the chain predicts its own variable)');
    const named = resolveRole(summary, seq, spec, { param: 'variable', indexes: spec.inputs, what: 'input' });
    const variables = seq.variableNames();
    let variable: string;
    if (named.kind === 'variable') variable = named.name;
    else if (named.kind === 'attribute' && seq.layout === 'steps') {
      throw new ModelInputError(`mc: [${named.name}] is not a sequence variable (sequence variables: ${variables.join(', ') || 'none learned'})`);
    } else if (variables.length === 1) variable = variables[0];
    else throw new ModelInputError(`mc needs its variable named (input attribute or parameter [variable]): the project has ${variables.length === 0 ? 'no sequence variable learned' : `sequence variables ${variables.join(', ')}`}`);
    const unigrams = seq.unigrams(variable);
    if (unigrams.size === 0) throw new ModelInputError(`mc: no states learned for sequence variable [${variable}]`);
    const initialKind = mcInitialParam(spec);
    const initial = countPairs(initialKind === 'starts' ? seq.starts(variable) : unigrams);
    const chains = Array.from({ length: seq.order }, (_, k) => chainRows(seq.ngrams(variable, k + 2)));
    const top = chains[seq.order - 1];
    const extra: Record<string, string> = {
      initial: JSON.stringify(Object.fromEntries(initial.map(([s, c]) => [s, c / sum(initial)]))),
      transitions: JSON.stringify(Object.fromEntries(top.map(([h, next]) => [h.join(','), Object.fromEntries(next.map(([s, c]) => [s, c / sum(next)]))]))),
    };
    const state: McState = {
      algo: 'mc',
      inputNames: [variable],
      targetNames: [],
      layout: seq.layout,
      order: seq.order,
      initialKind,
      initial,
      chains,
      info: {
        order: num(seq.order),
        layout: seq.layout,
        sequence_initial: initialKind,
        states: num(unigrams.size),
        steps: num(sum(countPairs(unigrams))),
        sequences: num(sum(countPairs(seq.starts(variable)))),
      },
      extra,
    };
    return new McModel(state);
  },
  restore(state) {
    const s = readModelState(state, 'mc');
    texts(s.inputNames, 'state.inputNames', 1);
    choice(s.layout, 'state.layout', ['steps', 'rows'] as const);
    choice(s.initialKind, 'state.initialKind', ['ngrams', 'starts', 'unigrams'] as const);
    const order = integer(s.order, 'state.order', 1);
    counts(s.initial, 'state.initial');
    list(s.chains, 'state.chains', order).forEach((rows, c) => list(rows, `state.chains[${c}]`).forEach((row, r) => {
      const [history, next] = list(row, `state.chains[${c}][${r}]`, 2);
      texts(history, `state.chains[${c}][${r}][0]`, c + 1);
      counts(next, `state.chains[${c}][${r}][1]`);
    }));
    return new McModel(as<McState>(s));
  },
};

/** `sequence_initial` of mc: `ngrams` unless `starts` or `unigrams` is asked for. */
function mcInitialParam(spec: ModelSpec): McInitial {
  const text = paramText(spec.params, 'sequence_initial') ?? 'ngrams';
  if (text !== 'ngrams' && text !== 'starts' && text !== 'unigrams') throw new ModelInputError(`parameter [sequence_initial] must be one of ngrams, starts, unigrams, got "${text}"`);
  return text;
}

function chainRows(ngrams: readonly { states: string[]; count: number }[]): ChainRow[] {
  const byHistory = new Map<string, ChainRow>();
  for (const g of ngrams) {
    if (g.count <= 0) continue;
    const history = g.states.slice(0, -1);
    const key = JSON.stringify(history);
    let row = byHistory.get(key);
    if (!row) byHistory.set(key, (row = [history, []]));
    row[1].push([g.states[g.states.length - 1], g.count]);
  }
  const rows = [...byHistory.values()];
  for (const row of rows) row[1].sort((a, b) => compare(a[0], b[0]));
  return rows.sort((a, b) => compare(JSON.stringify(a[0]), JSON.stringify(b[0])));
}

/** [state, count] pairs (state-read.ts). */
function counts(v: unknown, path: string): void {
  list(v, path).forEach((pair, i) => {
    const [state, count] = list(pair, `${path}[${i}]`, 2);
    text(state, `${path}[${i}][0]`);
    number(count, `${path}[${i}][1]`);
  });
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const sum = (pairs: readonly [string, number][]) => pairs.reduce((s, [, c]) => s + c, 0);

function distribution(counts: [string, number][]): Distribution {
  return { total: sum(counts), counts, byState: new Map(counts) };
}

class McModel extends StateModel<McState> {
  private readonly initial: Distribution;
  /** chains[k − 1]: JSON of a k-state history → the distribution of the state after it. */
  private readonly chains: Map<string, Distribution>[];

  constructor(s: McState) {
    super(s);
    this.initial = distribution(s.initial);
    this.chains = s.chains.map((rows) => new Map(rows.map(([h, next]) => [JSON.stringify(h), distribution(next)])));
  }

  /** `rows` layout: one map per row (each row a sequence); `steps`: one map for the frame's one sequence. */
  predict(frame: PredictFrame): Prediction[] {
    if (frame.rows.length === 0) return [];
    if (this.s.layout === 'rows') return frame.rows.map((cells) => this.score(present(cells)));
    const variable = this.s.inputNames[0];
    let column = frame.names.indexOf(variable);
    if (column < 0 && frame.names.length === 1) column = 0;
    if (column < 0) throw new ModelInputError(`mc: the frame has no column [${variable}] (a steps-layout sequence is one column)`);
    return [this.score(present(frame.rows.map((cells) => cells[column])))];
  }

  private score(states: string[]): Prediction {
    let like = 0;
    let from = 1;
    if (this.s.initialKind === 'ngrams') {
      from = Math.min(states.length, this.s.order);
      if (from > 0) like += Math.log(this.ngramShare(states.slice(0, from)));
    } else if (states.length > 0) like += Math.log(probability(this.initial, states[0]));
    for (let t = from; t < states.length && like > -Infinity; t++) {
      const k = Math.min(t, this.s.order);
      like += Math.log(probability(this.chains[k - 1].get(JSON.stringify(states.slice(t - k, t))), states[t]));
    }
    const k = Math.min(states.length, this.s.order);
    const after = k === 0 ? this.initial : this.chains[k - 1].get(JSON.stringify(states.slice(states.length - k)));
    const best = mostLikely(after);
    return { next: best?.[0] ?? '', 'next.p': best === undefined ? 'NaN' : num(best[1]), 'seq.like': num(like) };
  }

  /** count(g)/Σ count(k-grams) of a k-gram g (k ≤ order): unigrams, else the order-(k − 1) chain's counts. */
  private ngramShare(g: readonly string[]): number {
    if (g.length === 1) return probability(this.initial, g[0]);
    const chain = this.chains[g.length - 2];
    let total = 0;
    for (const d of chain.values()) total += d.total;
    const d = chain.get(JSON.stringify(g.slice(0, -1)));
    return total === 0 || d === undefined ? 0 : (d.byState.get(g[g.length - 1]) ?? 0) / total;
  }
}

/** The present cells as states (trimmed, lower-cased): missing cells are dropped (README). */
function present(cells: readonly unknown[]): string[] {
  return cells.map(categoryOf).filter((s): s is string => s !== null);
}

/** count/total; 0 for an unseen state or history (no smoothing). */
function probability(d: Distribution | undefined, state: string): number {
  if (d === undefined || d.total === 0) return 0;
  return (d.byState.get(state) ?? 0) / d.total;
}

function mostLikely(d: Distribution | undefined): [string, number] | undefined {
  if (d === undefined || d.total === 0) return undefined;
  let best = d.counts[0];
  for (const c of d.counts) if (c[1] > best[1]) best = c;
  return [best[0], best[1] / d.total];
}

import { cellText, categoryOf, parseDecimal } from '../../frame';
import type { SequenceCounts } from './counts';
import type { Summary } from '../../summary';
import { numberParam } from '../classifiers/model';
import { num } from '../rows';
import { type Algorithm, ModelInputError, type ModelSpec, type PredictFrame, type Prediction } from '../types';
import { countPairs, type Initial, initialParam, type Named, resolveRole, sequenceCounts } from './variables';
import { StateModel } from '../base';
import { as, choice, matrix, ModelStateError, numbers, object, readModelState, texts } from '../state-read';

/** Default `hmm_var_smoothing`: Gaussian emission variances get this × the observed variable's variance (sklearn GaussianNB's var_smoothing). */
export const DEFAULT_HMM_VAR_SMOOTHING = 1e-9;

type Emission =
  /** counts[i][m]: steps where hidden state i and symbol m were observed together. */
  | { kind: 'categorical'; symbols: string[]; counts: number[][] }
  /** Per hidden state: rows with the state and the observed value present, their mean and (smoothed) population variance. */
  | { kind: 'gaussian'; count: number[]; mean: number[]; variance: number[] };

interface HmmState {
  algo: 'hmm';
  inputNames: string[];
  targetNames: string[];
  /** Hidden states, sorted: the index order of every table (and of Viterbi's tie-breaking). */
  states: string[];
  initialKind: Initial;
  initial: number[];
  /** transitions[i][j]: count of state j right after state i. */
  transitions: number[][];
  emission: Emission;
  info: Record<string, string>;
  extra: Record<string, string>;
}

/**
 * `hmm`: supervised hidden Markov model (STATS.md §4, §7), hidden = the target variable,
 * observed = the input variable, from the counts of a `steps`-layout sequence project, no
 * smoothing: P(j | i) = lag-1 count(i → j)/Σ_j count(i → j); P(o | i) = same-step count(i, o)/
 * Σ_o count(i, o); start probabilities from the start or unigram counts (`sequence_initial`).
 * A continuous observed attribute has Gaussian emissions with each state's mean and
 * population variance of it (from Σx·b, Σx²·b with b the state's level of the hidden
 * variable) plus `hmm_var_smoothing` × its variance. Viterbi decoding in log space (ties: the
 * state first in sorted order). Decisions: README.
 */
export const hmm: Algorithm = {
  name: 'hmm',
  task: 'other',
  build(summary: Summary, spec: ModelSpec) {
    const seq = sequenceCounts(summary, 'hmm');
    if (seq.layout !== 'steps') throw new ModelInputError('hmm needs a steps-layout sequence project (rows are time steps, one column per variable)');
    const hiddenNamed = resolveRole(summary, seq, spec, { param: 'hidden', indexes: spec.targets, what: 'target' });
    if (hiddenNamed.kind !== 'variable') {
      throw new ModelInputError(hiddenNamed.kind === 'none' ? 'hmm needs the hidden variable as its target attribute (or parameter [hidden])' : `hmm: target [${hiddenNamed.name}] is not a sequence variable`);
    }
    const hidden = hiddenNamed.name;
    const observedNamed = resolveRole(summary, seq, spec, { param: 'observed', indexes: spec.inputs, what: 'input' });
    if (observedNamed.kind === 'none') throw new ModelInputError('hmm needs the observed variable as its input attribute (or parameter [observed])');
    if (observedNamed.name === hidden) throw new ModelInputError(`hmm: [${hidden}] cannot be both the hidden and the observed variable`);
    const unigrams = seq.unigrams(hidden);
    const states = countPairs(unigrams).map(([s]) => s);
    if (states.length === 0) throw new ModelInputError(`hmm: no states learned for hidden variable [${hidden}]`);
    const initialKind = initialParam(spec, seq);
    const initialCounts = initialKind === 'starts' ? seq.starts(hidden) : unigrams;
    const initial = states.map((s) => initialCounts.get(s) ?? 0);
    const pairs = seq.lagPairs(hidden, 1);
    const transitions = states.map((from) => states.map((to) => pairs.get(from)?.get(to) ?? 0));
    const emission = observedNamed.kind === 'variable' ? categorical(seq, hidden, observedNamed.name, states) : gaussian(summary, spec, hidden, observedNamed, states);
    const observed = observedNamed.name;
    const state: HmmState = {
      algo: 'hmm',
      inputNames: [observed],
      targetNames: [hidden],
      states,
      initialKind,
      initial,
      transitions,
      emission,
      info: {
        states: num(states.length),
        emission: emission.kind,
        sequence_initial: initialKind,
        steps: num([...unigrams.values()].reduce((a, b) => a + b, 0)),
      },
      extra: extraOf(states, initial, transitions, emission),
    };
    return new HmmModel(state);
  },
  restore(state) {
    const s = readModelState(state, 'hmm');
    texts(s.inputNames, 'state.inputNames', 1);
    const n = texts(s.states, 'state.states').length;
    if (n === 0) throw new ModelStateError('state.states is empty');
    choice(s.initialKind, 'state.initialKind', ['starts', 'unigrams'] as const);
    numbers(s.initial, 'state.initial', n);
    matrix(s.transitions, 'state.transitions', n, n);
    const e = object(s.emission, 'state.emission');
    if (choice(e.kind, 'state.emission.kind', ['categorical', 'gaussian'] as const) === 'categorical') {
      matrix(e.counts, 'state.emission.counts', n, texts(e.symbols, 'state.emission.symbols').length);
    } else {
      for (const k of ['count', 'mean', 'variance']) numbers(e[k], `state.emission.${k}`, n);
    }
    return new HmmModel(as<HmmState>(s));
  },
};

function categorical(seq: SequenceCounts, hidden: string, observed: string, states: readonly string[]): Emission {
  const together = seq.cooccurrences(hidden, observed);
  const symbols = [...new Set([...together.values()].flatMap((row) => [...row].filter(([, c]) => c > 0).map(([o]) => o)))].sort();
  if (symbols.length === 0) throw new ModelInputError(`hmm: [${hidden}] and [${observed}] were never observed at the same step`);
  return { kind: 'categorical', symbols, counts: states.map((s) => symbols.map((o) => together.get(s)?.get(o) ?? 0)) };
}

function gaussian(summary: Summary, spec: ModelSpec, hidden: string, observed: Named & { kind: 'attribute' }, states: readonly string[]): Emission {
  if (observed.index < 0) throw new ModelInputError(`hmm needs one observed attribute, got ${observed.name}`);
  if (summary.attributeTypes[observed.index] !== 'C') {
    throw new ModelInputError(`hmm: input [${observed.name}] is neither a sequence variable nor a continuous attribute`);
  }
  const smoothing = numberParam(spec, 'hmm_var_smoothing', DEFAULT_HMM_VAR_SMOOTHING, (v) => v >= 0, 'a number ≥ 0');
  const epsilon = smoothing * summary.variance(observed.index);
  const separator = summary.options.categorySeparator;
  const count: number[] = [];
  const mean: number[] = [];
  const variance: number[] = [];
  for (const s of states) {
    const level = summary.indexOf(`${hidden}${separator}${s}`);
    if (level < 0) {
      throw new ModelInputError(`hmm: Gaussian emissions of [${observed.name}] need the hidden variable [${hidden}] learned as a categorical (T) column; it has no level [${s}]`);
    }
    const m = summary.conditionalMoments(observed.index, level);
    count.push(m.count);
    mean.push(m.count > 0 ? m.mean : 0);
    const v = m.count > 0 ? m.variance + epsilon : 0;
    if (m.count > 0 && !(v > 0)) throw new ModelInputError(`hmm: [${observed.name}] is constant in state [${s}] of [${hidden}] and hmm_var_smoothing gives no variance`);
    variance.push(v);
  }
  return { kind: 'gaussian', count, mean, variance };
}

function extraOf(states: readonly string[], initial: readonly number[], transitions: readonly number[][], emission: Emission): Record<string, string> {
  const normalized = (counts: readonly number[], keys: readonly string[]) => {
    const total = counts.reduce((a, b) => a + b, 0);
    return Object.fromEntries(keys.flatMap((k, i) => (counts[i] > 0 ? [[k, counts[i] / total]] : [])));
  };
  const emissions =
    emission.kind === 'categorical'
      ? Object.fromEntries(states.map((s, i) => [s, normalized(emission.counts[i], emission.symbols)]))
      : Object.fromEntries(states.map((s, i) => [s, { count: emission.count[i], mean: emission.mean[i], variance: emission.variance[i] }]));
  return {
    initial: JSON.stringify(normalized(initial, states)),
    transitions: JSON.stringify(Object.fromEntries(states.map((s, i) => [s, normalized(transitions[i], states)]))),
    emissions: JSON.stringify(emissions),
  };
}

/** Natural logs of count/row total (−Infinity for a zero count or an empty row). */
function logRow(counts: readonly number[]): Float64Array {
  const total = counts.reduce((a, b) => a + b, 0);
  return Float64Array.from(counts, (c) => (total > 0 ? Math.log(c / total) : -Infinity));
}

class HmmModel extends StateModel<HmmState> {
  private readonly logInitial: Float64Array;
  private readonly logTransitions: Float64Array[];
  /** Categorical: per symbol, the log emission of each state. */
  private readonly logEmissions = new Map<string, Float64Array>();

  constructor(s: HmmState) {
    super(s);
    this.logInitial = logRow(s.initial);
    this.logTransitions = s.transitions.map(logRow);
    const e = s.emission;
    if (e.kind === 'categorical') {
      const rows = e.counts.map(logRow);
      e.symbols.forEach((o, m) => this.logEmissions.set(o, Float64Array.from(rows, (row) => row[m])));
    }
  }

  /**
   * Every row answers its state and the whole decoded sequence (`seq`, the states joined by
   * commas): characters grow with the square of the rows.
   */
  predictionChars(rows: number): number {
    const longest = this.s.states.reduce((m, state) => Math.max(m, state.length), 0);
    const seq = rows * (longest + 1);
    return rows * ('state'.length + longest + 'seq'.length + seq);
  }

  /** Viterbi: every step weighs every pair of states. */
  predictionSteps(rows: number): number {
    const n = this.s.states.length;
    return rows * n * (n + 1);
  }

  /** The frame is one observation sequence, rows = steps; one map per row. */
  predict(frame: PredictFrame): Prediction[] {
    if (frame.rows.length === 0) return [];
    const observed = this.s.inputNames[0];
    let column = frame.names.indexOf(observed);
    if (column < 0 && frame.names.length === 1) column = 0;
    if (column < 0) throw new ModelInputError(`hmm: the frame has no column [${observed}] (the observation sequence)`);
    const path = this.viterbi(frame.rows.map((cells) => this.logEmission(cells[column])));
    const decoded = path === null ? frame.rows.map(() => '') : path.map((i) => this.s.states[i]);
    const seq = path === null ? '' : decoded.join(',');
    return decoded.map((state) => ({ state, seq }));
  }

  /**
   * ln P(observation | state) per state; null when the observation carries no information (a
   * missing cell, text that is no number for a Gaussian, a symbol never observed with any
   * state): the step is decoded by the transitions alone.
   */
  private logEmission(cell: unknown): Float64Array | null {
    const e = this.s.emission;
    if (e.kind === 'categorical') {
      const symbol = categoryOf(cell);
      return symbol === null ? null : this.logEmissions.get(symbol) ?? null;
    }
    const text = cellText(cell);
    const x = text === null ? NaN : parseDecimal(text);
    if (Number.isNaN(x)) return null;
    return Float64Array.from(e.mean, (m, i) => (e.count[i] > 0 ? -0.5 * Math.log(2 * Math.PI * e.variance[i]) - (x - m) ** 2 / (2 * e.variance[i]) : -Infinity));
  }

  /** The most likely state path; null when every path has probability 0. */
  private viterbi(emissions: (Float64Array | null)[]): number[] | null {
    const n = this.s.states.length;
    const steps = emissions.length;
    const back = new Int32Array(steps * n);
    let delta = Float64Array.from(this.logInitial, (p, j) => p + (emissions[0]?.[j] ?? 0));
    for (let t = 1; t < steps; t++) {
      const next = new Float64Array(n);
      const e = emissions[t];
      for (let j = 0; j < n; j++) {
        let best = 0;
        let bestScore = delta[0] + this.logTransitions[0][j];
        for (let i = 1; i < n; i++) {
          const score = delta[i] + this.logTransitions[i][j];
          if (score > bestScore) {
            best = i;
            bestScore = score;
          }
        }
        back[t * n + j] = best;
        next[j] = bestScore + (e?.[j] ?? 0);
      }
      delta = next;
    }
    let last = 0;
    for (let j = 1; j < n; j++) if (delta[j] > delta[last]) last = j;
    if (delta[last] === -Infinity) return null;
    const path = new Array<number>(steps);
    path[steps - 1] = last;
    for (let t = steps - 1; t > 0; t--) path[t - 1] = back[t * n + path[t]];
    return path;
  }
}

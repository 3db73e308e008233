import { ByteReader, ByteWriter } from '../../binary';
import { addCounts, checkSubtractable, type Counts, fromTupleKey, increment, readCounts, tupleKey, writeCounts } from '../../counts';
import { CapacityError, SummaryError } from '../../errors';
import { categoryOf, type ParsedFrame } from '../../frame';
import type { Sign, SummaryPart } from '../../parts';

/**
 * `steps`: rows are consecutive time steps, each T/S/B column a variable, one running
 * sequence per variable continued across learn calls. `rows`: each row is one whole
 * sequence of a single variable, its non-X columns in order (STATS.md §7).
 */
export type SequenceLayout = 'steps' | 'rows';

/** The name of the only variable of a `rows` layout summary. */
export const ROWS_LAYOUT_VARIABLE = 'sequence';

/** A contiguous run of states and how often it occurred. */
export interface NgramCount {
  readonly states: string[];
  readonly count: number;
}

interface VariableCounts {
  readonly unigrams: Counts;
  /** First state of each sequence. */
  readonly starts: Counts;
  /** lagPairs[k − 1]: [state at t − k, state at t] for k = 1..order. */
  readonly lagPairs: Counts[];
  /** ngrams[len − 3]: runs of len contiguous states, len = 3..order + 1 (len 2 = lag-1 pairs). */
  readonly ngrams: Counts[];
}

/** Where a sequence stands: the last `order` states (oldest first, null = missing) and whether it has begun. */
interface Running {
  readonly history: (string | null)[];
  started: boolean;
}

/**
 * Sequence counts (STATS.md §1, §7), states trimmed and lower-cased. A missing cell is a
 * gap: no pair or n-gram spans it, and it does not start a new sequence.
 *
 * Forget: in `rows` layout a row is a whole sequence, so forget subtracts exactly what
 * learning the rows added. In `steps` layout forget subtracts the counts the frame
 * produces on its own: unigrams, co-occurrences and the pairs and n-grams lying inside the
 * frame. The pairs that crossed from the previous learn call into the frame (at most
 * `order` per variable) and the sequence's start are kept, and the running history is not
 * rewound, because the summary does not know which rows preceded the frame.
 *
 * Merge and subtract add or remove the other summary's counts as independent sequences;
 * the running `steps` sequence continues from this summary's own history.
 */
export class SequenceCounts implements SummaryPart<SequenceCounts> {
  private readonly variables = new Map<string, VariableCounts>();
  private readonly running = new Map<string, Running>();
  /** Key [v, w] with v < w (by name): [state of v, state of w] at the same step. */
  private readonly pairCounts = new Map<string, Counts>();

  constructor(
    readonly order: number,
    readonly layout: SequenceLayout,
  ) {}

  /**
   * learn(parsed, -1) removes removedBy(parsed) (see the class comment): throws SummaryError
   * and changes nothing if a count would go negative.
   */
  learn(parsed: ParsedFrame, sign: Sign): void {
    if (sign === -1) this.merge(this.removedBy(parsed), -1);
    else if (this.layout === 'rows') this.learnRows(parsed);
    else this.learnSteps(parsed, true);
  }

  /**
   * The counts forgetting the frame removes, as counts of their own: in `steps` layout the
   * frame's counts without its starts (see the class comment). A summary forgetting a frame
   * checks every part's removal before it changes any.
   */
  removedBy(parsed: ParsedFrame): SequenceCounts {
    const removed = new SequenceCounts(this.order, this.layout);
    if (this.layout === 'rows') removed.learnRows(parsed);
    else removed.learnSteps(parsed, false);
    return removed;
  }

  private learnRows(parsed: ParsedFrame): void {
    const columns = parsed.types.flatMap((type, c) => (type === 'X' ? [] : [c]));
    const counts = this.variable(ROWS_LAYOUT_VARIABLE);
    for (const row of parsed.rows) {
      const running = this.newRunning();
      for (const c of columns) this.step(counts, running, categoryOf(row[c]), true);
    }
  }

  private learnSteps(parsed: ParsedFrame, countStarts: boolean): void {
    parsed.types.forEach((type, c) => {
      if (type === 'T' || type === 'S' || type === 'B') this.variable(parsed.names[c]);
    });
    // Variables absent from the frame are missing at each of its steps.
    const names = [...this.variables.keys()].sort();
    const columns = names.map((name) => {
      const c = parsed.names.indexOf(name);
      const type = parsed.types[c];
      return type === 'T' || type === 'S' || type === 'B' ? c : -1;
    });
    const counts = names.map((name) => this.variables.get(name)!);
    const running = names.map((name) => {
      if (!this.running.has(name)) this.running.set(name, this.newRunning());
      return this.running.get(name)!;
    });
    const states = new Array<string | null>(names.length);
    for (const row of parsed.rows) {
      for (let a = 0; a < names.length; a++) {
        states[a] = columns[a] < 0 ? null : categoryOf(row[columns[a]]);
        this.step(counts[a], running[a], states[a], countStarts);
      }
      for (let a = 0; a < names.length; a++) {
        const sa = states[a];
        if (sa === null) continue;
        for (let b = a + 1; b < names.length; b++) {
          const sb = states[b];
          if (sb !== null) increment(this.cooccurrence(names[a], names[b]), tupleKey([sa, sb]));
        }
      }
    }
  }

  private step(counts: VariableCounts, running: Running, state: string | null, countStarts: boolean): void {
    const h = running.history;
    const n = this.order;
    if (state !== null) {
      increment(counts.unigrams, state);
      if (!running.started) {
        if (countStarts) increment(counts.starts, state);
        running.started = true;
      }
      for (let k = 1; k <= n; k++) {
        const before = h[n - k];
        if (before !== null) increment(counts.lagPairs[k - 1], tupleKey([before, state]));
      }
      for (let len = 3; len <= n + 1; len++) {
        const run = h.slice(n - len + 1);
        if (run.every((s) => s !== null)) increment(counts.ngrams[len - 3], tupleKey([...run, state]));
      }
    }
    h.shift();
    h.push(state);
  }

  private newRunning(): Running {
    return { history: new Array<string | null>(this.order).fill(null), started: false };
  }

  private variable(name: string): VariableCounts {
    let counts = this.variables.get(name);
    if (!counts) {
      counts = {
        unigrams: new Map(),
        starts: new Map(),
        lagPairs: Array.from({ length: this.order }, (): Counts => new Map()),
        ngrams: Array.from({ length: this.order - 1 }, (): Counts => new Map()),
      };
      this.variables.set(name, counts);
    }
    return counts;
  }

  private cooccurrence(v: string, w: string): Counts {
    const key = tupleKey([v, w]);
    let counts = this.pairCounts.get(key);
    if (!counts) this.pairCounts.set(key, (counts = new Map<string, number>()));
    return counts;
  }

  /** Adds or removes the other's counts as independent sequences; the running history stays this one's. */
  merge(other: SequenceCounts, sign: Sign): void {
    this.checkMerge(other, sign);
    if (sign === -1) {
      // checkMerge found every key here: nothing is created.
      for (const [name, source] of other.variables) {
        const target = this.variables.get(name);
        if (target) countMaps(source).forEach((s, i) => addCounts(countMaps(target)[i], s, -1));
      }
      for (const [key, source] of other.pairCounts) {
        const target = this.pairCounts.get(key);
        if (target) addCounts(target, source, -1);
      }
      return;
    }
    for (const [name, source] of other.variables) {
      const target = countMaps(this.variable(name));
      countMaps(source).forEach((s, i) => addCounts(target[i], s, 1));
    }
    for (const [key, source] of other.pairCounts) {
      const [v, w] = fromTupleKey(key) as [string, string];
      addCounts(this.cooccurrence(v, w), source, 1);
    }
  }

  checkMerge(other: SequenceCounts, sign: Sign): void {
    if (sign === 1) return;
    for (const [name, source] of other.variables) {
      const target = this.variables.get(name);
      countMaps(source).forEach((s, i) => checkSubtractable(target && countMaps(target)[i], s, `sequence [${name}]`));
    }
    for (const [key, source] of other.pairCounts) checkSubtractable(this.pairCounts.get(key), source, 'co-occurrence');
  }

  /** Counted keys held (every map entry): what the state of a sequence project grows with. */
  entries(): number {
    let n = 0;
    for (const counts of this.variables.values()) for (const c of countMaps(counts)) n += c.size;
    for (const c of this.pairCounts.values()) n += c.size;
    return n;
  }

  /**
   * Throws CapacityError when learning `parsed` would make the counts hold more than `max`
   * keys; changes nothing. A cheap upper bound (each step adds at most 2 × order + 1 keys
   * per variable and one per pair of variables) settles most batches; only a batch that
   * might cross the limit is learned on a copy to count exactly.
   */
  checkCapacity(parsed: ParsedFrame, max: number): void {
    const current = this.entries();
    const columns = parsed.types.filter((t) => t !== 'X').length;
    const variables = this.layout === 'rows' ? 1 : Math.max(columns, this.variables.size) + columns;
    const steps = this.layout === 'rows' ? parsed.rows.length * columns : parsed.rows.length;
    const bound = steps * (variables * (2 * this.order + 1) + (this.layout === 'rows' ? 0 : (variables * (variables - 1)) / 2));
    if (current + bound <= max) return;
    const w = new ByteWriter();
    this.write(w);
    const trial = new SequenceCounts(this.order, this.layout);
    trial.read(new ByteReader(w.bytes()));
    trial.learn(parsed, 1);
    const after = trial.entries();
    if (after > max) throw new CapacityError('sequence', 'sequence counts (lag pairs, n-grams, co-occurrences)', after, max);
  }

  /** Variable names, sorted. */
  variableNames(): string[] {
    return [...this.variables.keys()].sort();
  }

  unigrams(variable: string): Map<string, number> {
    return new Map(this.counts(variable).unigrams);
  }

  starts(variable: string): Map<string, number> {
    return new Map(this.counts(variable).starts);
  }

  /** from → to → count of `to` following `from` k steps later, 1 ≤ k ≤ order. */
  lagPairs(variable: string, k: number): Map<string, Map<string, number>> {
    if (!Number.isInteger(k) || k < 1 || k > this.order) throw new SummaryError('summary-input', `lag must be an integer in 1..${this.order}`, variable);
    return nest(this.counts(variable).lagPairs[k - 1]);
  }

  /** Runs of `length` contiguous states, 2 ≤ length ≤ order + 1 (an order-`length − 1` Markov chain's transitions). */
  ngrams(variable: string, length: number): NgramCount[] {
    if (!Number.isInteger(length) || length < 2 || length > this.order + 1) {
      throw new SummaryError('summary-input', `n-gram length must be an integer in 2..${this.order + 1}`, variable);
    }
    const counts = this.counts(variable);
    const source = length === 2 ? counts.lagPairs[0] : counts.ngrams[length - 3];
    return [...source.keys()].sort().map((key) => ({ states: fromTupleKey(key) as string[], count: source.get(key)! }));
  }

  /** state of v → state of w → steps where both were observed (steps layout). */
  cooccurrences(v: string, w: string): Map<string, Map<string, number>> {
    this.counts(v);
    this.counts(w);
    const swapped = w < v;
    const counts = this.pairCounts.get(tupleKey(swapped ? [w, v] : [v, w])) ?? new Map<string, number>();
    if (!swapped) return nest(counts);
    const flipped: Counts = new Map();
    for (const [key, c] of counts) flipped.set(tupleKey((fromTupleKey(key) as string[]).reverse()), c);
    return nest(flipped);
  }

  private counts(variable: string): VariableCounts {
    const counts = this.variables.get(variable);
    if (!counts) throw new SummaryError('summary-input', 'unknown sequence variable', variable);
    return counts;
  }

  write(w: ByteWriter): void {
    const names = this.variableNames();
    w.u32(names.length);
    for (const name of names) {
      const counts = this.variables.get(name)!;
      w.string(name);
      const running = this.running.get(name);
      w.u8(running === undefined ? 0 : running.started ? 2 : 1);
      for (const state of running?.history ?? []) {
        w.u8(state === null ? 0 : 1);
        if (state !== null) w.string(state);
      }
      for (const c of countMaps(counts)) writeCounts(w, c);
    }
    // Pairs of variables never observed together leave empty maps; they are not state.
    const keys = [...this.pairCounts.keys()].filter((key) => this.pairCounts.get(key)!.size > 0).sort();
    w.u32(keys.length);
    for (const key of keys) {
      w.string(key);
      writeCounts(w, this.pairCounts.get(key)!);
    }
  }

  read(r: ByteReader): void {
    for (let n = r.u32(); n > 0; n--) {
      const name = r.string();
      const counts = this.variable(name);
      const runningFlag = r.u8();
      if (runningFlag !== 0) {
        const running = this.newRunning();
        running.started = runningFlag === 2;
        for (let i = 0; i < this.order; i++) running.history[i] = r.u8() === 0 ? null : r.string();
        this.running.set(name, running);
      }
      for (const c of countMaps(counts)) addCounts(c, readCounts(r), 1);
    }
    for (let n = r.u32(); n > 0; n--) {
      const key = r.string();
      this.pairCounts.set(key, readCounts(r));
    }
  }
}

/** A variable's count maps in a fixed order, so two variables' maps can be matched up. */
function countMaps(counts: VariableCounts): Counts[] {
  return [counts.unigrams, counts.starts, ...counts.lagPairs, ...counts.ngrams];
}

function nest(pairs: Counts): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const key of [...pairs.keys()].sort()) {
    const [from, to] = fromTupleKey(key) as [string, string];
    let row = out.get(from);
    if (!row) out.set(from, (row = new Map<string, number>()));
    row.set(to, pairs.get(key)!);
  }
  return out;
}

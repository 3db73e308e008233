import type { Summary } from '../summary';
import { lda } from './classifiers/lda';
import { mlr } from './mlr';
import { type Algorithm, type Model, ModelInputError, type ModelSpec } from './types';

/** The algorithms reduce supports: `lda` as SymetryML documents it, and `mlr`. */
export const REDUCE_ALGORITHMS = ['lda', 'mlr'] as const;
export type ReduceAlgorithm = (typeof REDUCE_ALGORITHMS)[number];
/** reduce's `heuristic`: SymetryML documents only this one. */
export const REDUCE_HEURISTICS = ['default'] as const;
/** Relative criterion change that counts (the default `delta`). */
export const DEFAULT_REDUCE_DELTA = 0.001;
/** Swap passes after the backward elimination (the default `numIterations`). */
export const DEFAULT_REDUCE_ITERATIONS = 5;

const ALGORITHM: Record<ReduceAlgorithm, Algorithm> = { lda, mlr };

/**
 * reduce's criterion of a built model, higher is better: `lda` the squared
 * Mahalanobis distance D² between the class means with the pooled within-class covariance
 * (the model's `mahalanobis` is D); `mlr` the adjusted R².
 */
export function reduceCriterion(algo: ReduceAlgorithm, model: Model): number {
  const info = model.info();
  return algo === 'lda' ? Number(info.mahalanobis) ** 2 : Number(info.adj_r2);
}

export interface ReduceOptions {
  algo: ReduceAlgorithm;
  /** Relative change of the criterion that counts; default DEFAULT_REDUCE_DELTA. */
  delta?: number;
  /** Swap passes at most; default DEFAULT_REDUCE_ITERATIONS. */
  numIterations?: number;
  /** Called after each subset is built: a worker checks its budget here and throws to stop. */
  checkpoint?: (tried: number) => Promise<void> | void;
}

export interface Reduction {
  /** The model built on the surviving inputs. */
  model: Model;
  /** The surviving inputs (summary indexes), in the order the spec gave them. */
  inputs: number[];
  /** The inputs left out (summary indexes), in the order the spec gave them. */
  dropped: number[];
  /** The criterion of `model`. */
  criterion: number;
  /** Distinct input subsets built (including those whose build failed). */
  tried: number;
}

/** Checks reduce's options before a job starts: a supported algorithm, delta ≥ 0, numIterations ≥ 0. */
export function checkReduce(opts: ReduceOptions): Required<Omit<ReduceOptions, 'checkpoint'>> {
  const { algo } = opts;
  if (!(REDUCE_ALGORITHMS as readonly string[]).includes(algo)) throw new ModelInputError(`reduce supports ${REDUCE_ALGORITHMS.join(', ')}, got [${algo}]`);
  const delta = opts.delta ?? DEFAULT_REDUCE_DELTA;
  if (!(delta >= 0) || !Number.isFinite(delta)) throw new ModelInputError(`reduce's delta must be a finite number ≥ 0, got ${delta}`);
  const numIterations = opts.numIterations ?? DEFAULT_REDUCE_ITERATIONS;
  if (!Number.isSafeInteger(numIterations) || numIterations < 0) throw new ModelInputError(`reduce's numIterations must be an integer ≥ 0, got ${numIterations}`);
  return { algo, delta, numIterations };
}

/** Relative change from `from` to `to`; a zero criterion makes any change count. */
function relative(from: number, to: number): number {
  return (to - from) / Math.max(Math.abs(from), Number.MIN_VALUE);
}

interface Candidate { positions: number[]; model: Model; criterion: number }

/**
 * reduce (SymetryML's POST projects/{p}/reduce), from the summary only: starting from every input of
 * `spec`, backward elimination drops the input whose removal loses the least criterion
 * while that relative loss is below `delta`; then up to `numIterations` swap passes each
 * make the one move (re-add a dropped input or drop a kept one) that gains the most, when
 * it gains more than `delta` relatively. At least one input is kept. A subset whose build
 * fails (ModelInputError: singular pooled covariance, …) is skipped; the full set must build.
 */
export async function reduceInputs(summary: Summary, spec: ModelSpec, opts: ReduceOptions): Promise<Reduction> {
  const { algo, delta, numIterations } = checkReduce(opts);
  const algorithm = ALGORITHM[algo];
  const p = spec.inputs.length;
  if (p === 0) throw new ModelInputError('reduce needs at least one input attribute');
  const seen = new Map<string, Candidate | null>();
  const evaluate = async (positions: number[]): Promise<Candidate | null> => {
    const sorted = [...positions].sort((a, b) => a - b);
    const key = sorted.join(',');
    const known = seen.get(key);
    if (known !== undefined) return known;
    let candidate: Candidate | null = null;
    try {
      const model = algorithm.build(summary, { ...spec, inputs: sorted.map((k) => spec.inputs[k]) });
      candidate = { positions: sorted, model, criterion: reduceCriterion(algo, model) };
    } catch (err) {
      if (!(err instanceof ModelInputError)) throw err;
      if (sorted.length === p) throw err;
    }
    seen.set(key, candidate);
    if (opts.checkpoint) await opts.checkpoint(seen.size);
    return candidate;
  };
  /** The candidate of `subsets` with the highest criterion (the earlier on ties), or null. */
  const best = async (subsets: number[][]): Promise<Candidate | null> => {
    let top: Candidate | null = null;
    for (const s of subsets) {
      const c = await evaluate(s);
      if (c !== null && !Number.isNaN(c.criterion) && (top === null || c.criterion > top.criterion)) top = c;
    }
    return top;
  };

  let current = (await evaluate(Array.from({ length: p }, (_, k) => k)))!;
  while (current.positions.length > 1) {
    const kept = current.positions;
    const next = await best(kept.map((drop) => kept.filter((k) => k !== drop)));
    if (next === null || -relative(current.criterion, next.criterion) >= delta) break;
    current = next;
  }
  for (let pass = 0; pass < numIterations; pass++) {
    const kept = current.positions;
    const moves = [
      ...Array.from({ length: p }, (_, k) => k).filter((k) => !kept.includes(k)).map((add) => [...kept, add]),
      ...(kept.length > 1 ? kept.map((drop) => kept.filter((k) => k !== drop)) : []),
    ];
    const next = await best(moves);
    if (next === null || !(relative(current.criterion, next.criterion) > delta)) break;
    current = next;
  }
  const dropped = spec.inputs.filter((_, k) => !current.positions.includes(k));
  return { model: current.model, inputs: current.positions.map((k) => spec.inputs[k]), dropped, criterion: current.criterion, tried: seen.size };
}

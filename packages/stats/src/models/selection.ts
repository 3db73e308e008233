import type { Summary } from '../summary';
import { assess } from './assessment';
import { type Algorithm, type Model, ModelInputError, type ModelSpec, type PredictFrame } from './types';

/** `selector_type` of selectModel (API.md §7). */
export const SELECTOR_TYPES = ['selector_type_none', 'selector_type_fw_bw', 'selector_type_simple', 'selector_type_brute', 'selector_type_iteration'] as const;
export type SelectorType = (typeof SELECTOR_TYPES)[number];

/** Random subsets `selector_type_iteration` scores when `selector_iterations` is not given. */
export const DEFAULT_SELECTOR_ITERATIONS = 50;
/** Seed of `selector_type_iteration`'s generator when none is given. */
export const DEFAULT_SELECTOR_SEED = 1;
/** `selector_type_brute` scores 2^p − 1 subsets; 16 inputs is 65 535 builds. */
export const MAX_BRUTE_INPUTS = 16;

/**
 * `sml_model_assessment_type` per task (STATS.md §4): the first is the default. Errors are
 * better lower, every other criterion higher.
 */
export const ASSESSMENT_CRITERIA: Readonly<Record<'regression' | 'binary' | 'multiclass', readonly string[]>> = {
  regression: ['rmse', 'mae', 'r2', 'rmslogp1e'],
  binary: ['auc', 'accuracy', 'precision', 'recall', 'f1', 'mcc'],
  multiclass: ['accuracy', 'f1_macro', 'mf1_w', 'kappa', 'mkappa'],
};
const LOWER_IS_BETTER = new Set(['rmse', 'mae', 'rmslogp1e']);

/** Whether a smaller value of the criterion is better (errors: rmse, mae, rmslogp1e). */
export function lowerIsBetter(criterion: string): boolean {
  return LOWER_IS_BETTER.has(criterion);
}

export interface SelectionOptions {
  selector: SelectorType;
  /** `sml_model_assessment_type`; default: the task's first criterion. */
  criterion?: string;
  /** `selector_type_iteration`: random subsets to score (default 50). */
  iterations?: number;
  /** `selector_type_iteration`: seed of the subset generator (default 1). */
  seed?: number;
  /**
   * Called after each candidate subset is built and scored: a service yields to its event
   * loop here (so a long selection does not hold other requests), and throws to stop it
   * (cancelled, over its time budget).
   */
  checkpoint?: (tried: number) => Promise<void> | void;
}

export interface Selection {
  model: Model;
  /** The chosen inputs (summary indexes), in the order the spec gave them. */
  inputs: number[];
  /** The chosen model's assessment on the frame (`assess`). */
  assessment: Record<string, number>;
  /** Distinct input subsets built (including those whose build failed). */
  tried: number;
  /** The criterion that ranked the subsets; undefined for tasks without an assessment. */
  criterion?: string;
}

/** Selection options with defaults filled in, as `checkSelection` accepted them. */
export interface CheckedSelection {
  selector: SelectorType;
  criterion?: string;
  lowerIsBetter: boolean;
  iterations: number;
  seed: number;
}

/**
 * Validates selection options against the algorithm without building anything, so that a
 * request can be refused before its job starts: a known selector, a criterion of the
 * algorithm's task, iterations ≥ 1, an integer seed, feature selection only for tasks with
 * an assessment (regression, binary, multiclass).
 */
export function checkSelection(algorithm: Algorithm, opts: SelectionOptions): CheckedSelection {
  const { selector } = opts;
  if (!(SELECTOR_TYPES as readonly string[]).includes(selector)) {
    throw new ModelInputError(`unknown selector_type [${selector}]; expected one of ${SELECTOR_TYPES.join(', ')}`);
  }
  const task = algorithm.task;
  const criteria = task === 'anomaly' || task === 'other' ? undefined : ASSESSMENT_CRITERIA[task];
  const given = opts.criterion?.trim() || undefined;
  if (criteria === undefined) {
    if (given !== undefined) throw new ModelInputError(`${algorithm.name} is an ${task} model and has no assessment criterion; got sml_model_assessment_type [${given}]`);
    if (selector !== 'selector_type_none') {
      throw new ModelInputError(`${selector} needs an assessment to compare input subsets; ${algorithm.name} is an ${task} model: use selector_type_none`);
    }
  } else if (given !== undefined && !criteria.includes(given)) {
    throw new ModelInputError(`unknown sml_model_assessment_type [${given}] for a ${task} model (${algorithm.name}); expected one of ${criteria.join(', ')}`);
  }
  const iterations = opts.iterations ?? DEFAULT_SELECTOR_ITERATIONS;
  if (!Number.isInteger(iterations) || iterations < 1) throw new ModelInputError(`selector_iterations must be an integer ≥ 1, got ${iterations}`);
  const seed = opts.seed ?? DEFAULT_SELECTOR_SEED;
  if (!Number.isSafeInteger(seed)) throw new ModelInputError(`the selector seed must be an integer, got ${seed}`);
  const criterion = criteria === undefined ? undefined : given ?? criteria[0];
  return { selector, criterion, iterations, seed, lowerIsBetter: criterion !== undefined && LOWER_IS_BETTER.has(criterion) };
}

/** One input subset, built and scored; `positions` index into `spec.inputs`, ascending. */
interface Candidate {
  positions: number[];
  model: Model;
  assessment: Record<string, number>;
  score: number;
}

/**
 * selectModel's feature selection (STATS.md §4): models are rebuilt from the summary for
 * input subsets of `spec.inputs` and scored with `assess` on `frame` by the criterion.
 * - `selector_type_none`: the given inputs.
 * - `selector_type_fw_bw`: forward selection from no input (add the input that scores best
 *   while that improves the score), then backward elimination (drop the input whose removal
 *   scores best while that improves it).
 * - `selector_type_simple`: rank the inputs by their one-input model's score, then add them
 *   in that order while each addition improves the score.
 * - `selector_type_brute`: every non-empty subset (at most 16 inputs), by size then
 *   lexicographically, so a tie goes to the smaller subset.
 * - `selector_type_iteration`: `iterations` random subsets (size uniform in 1..p, then a
 *   uniform subset of that size) from a seeded generator: the same seed gives the same result.
 * Improvement is strict and the first subset found wins a tie. A subset whose build fails
 * (ModelInputError: singular system, …) is skipped; when none builds, the last failure is
 * thrown. A NaN score ranks below any number.
 */
export async function selectFeatures(algorithm: Algorithm, summary: Summary, spec: ModelSpec, frame: PredictFrame, opts: SelectionOptions): Promise<Selection> {
  const checked = checkSelection(algorithm, opts);
  const { selector, criterion, lowerIsBetter } = checked;
  const p = spec.inputs.length;
  if (selector === 'selector_type_none') {
    const model = algorithm.build(summary, spec);
    return { model, inputs: [...spec.inputs], assessment: assess(algorithm.task, model, frame), tried: 1, criterion };
  }
  if (p === 0) throw new ModelInputError(`${selector} needs at least one input attribute to select from`);
  if (selector === 'selector_type_brute' && p > MAX_BRUTE_INPUTS) {
    throw new ModelInputError(`selector_type_brute supports at most ${MAX_BRUTE_INPUTS} inputs, got ${p}`);
  }

  const seen = new Map<string, Candidate | null>();
  let lastError: unknown;
  /** Builds and scores a subset once; null when its build fails. */
  const evaluate = (positions: number[]): Candidate | null => {
    const sorted = [...positions].sort((a, b) => a - b);
    const key = sorted.join(',');
    const known = seen.get(key);
    if (known !== undefined) return known;
    let model: Model;
    try {
      model = algorithm.build(summary, { ...spec, inputs: sorted.map((k) => spec.inputs[k]) });
    } catch (err) {
      if (!(err instanceof ModelInputError)) throw err;
      lastError = err;
      seen.set(key, null);
      return null;
    }
    const assessment = assess(algorithm.task, model, frame);
    // Every subset is scored on the same rows: none means nothing can be compared.
    if (!(assessment.n > 0)) {
      throw new ModelInputError(`${selector} scores input subsets on the request's dataframe, which has no row with a value of the target [${model.targetNames.join(', ')}]`);
    }
    const candidate = { positions: sorted, model, assessment, score: assessment[criterion!] };
    seen.set(key, candidate);
    return candidate;
  };
  const better = (a: Candidate, b: Candidate | null): boolean => {
    if (b === null) return true;
    if (Number.isNaN(a.score)) return false;
    if (Number.isNaN(b.score)) return true;
    return lowerIsBetter ? a.score < b.score : a.score > b.score;
  };
  /** The best of `best` and the subsets (the earlier on ties), or null when none builds. */
  const checkpoint = async () => {
    if (opts.checkpoint) await opts.checkpoint(seen.size);
  };
  const bestOf = async (subsets: Iterable<number[]>, best: Candidate | null = null): Promise<Candidate | null> => {
    for (const s of subsets) {
      const c = evaluate(s);
      await checkpoint();
      if (c !== null && better(c, best)) best = c;
    }
    return best;
  };

  const all = Array.from({ length: p }, (_, k) => k);
  let chosen: Candidate | null = null;
  switch (selector) {
    case 'selector_type_fw_bw': {
      for (;;) {
        const current = chosen?.positions ?? [];
        const next = await bestOf(all.filter((k) => !current.includes(k)).map((k) => [...current, k]));
        if (next === null || !better(next, chosen)) break;
        chosen = next;
      }
      while (chosen !== null && chosen.positions.length > 1) {
        const current: number[] = chosen.positions;
        const next = await bestOf(current.map((drop) => current.filter((k) => k !== drop)));
        if (next === null || !better(next, chosen)) break;
        chosen = next;
      }
      break;
    }
    case 'selector_type_simple': {
      const singles: Candidate[] = [];
      for (const k of all) {
        const c = evaluate([k]);
        await checkpoint();
        if (c !== null) singles.push(c);
      }
      // Stable sort: equal scores keep the inputs' order.
      const ranked = singles.sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
      chosen = ranked[0] ?? null;
      for (const single of ranked.slice(1)) {
        const next = evaluate([...chosen.positions, single.positions[0]]);
        await checkpoint();
        if (next === null) continue;
        if (!better(next, chosen)) break;
        chosen = next;
      }
      break;
    }
    case 'selector_type_brute':
      for (let size = 1; size <= p; size++) chosen = await bestOf(combinations(p, size), chosen);
      break;
    case 'selector_type_iteration': {
      const next = mulberry32(checked.seed);
      for (let i = 0; i < checked.iterations; i++) {
        const size = 1 + Math.floor(next() * p);
        const pool = [...all];
        // Partial Fisher-Yates: the first `size` entries are a uniform subset of that size.
        for (let k = 0; k < size; k++) {
          const j = k + Math.floor(next() * (p - k));
          [pool[k], pool[j]] = [pool[j], pool[k]];
        }
        chosen = await bestOf([pool.slice(0, size)], chosen);
      }
      break;
    }
  }
  if (chosen === null) throw lastError;
  return { model: chosen.model, inputs: chosen.positions.map((k) => spec.inputs[k]), assessment: chosen.assessment, tried: seen.size, criterion };
}

/** The `size`-element subsets of 0..n−1 in lexicographic order (as Python's itertools.combinations). */
function* combinations(n: number, size: number): Generator<number[]> {
  const c = Array.from({ length: size }, (_, k) => k);
  for (;;) {
    yield [...c];
    let i = size - 1;
    while (i >= 0 && c[i] === n - size + i) i--;
    if (i < 0) return;
    c[i]++;
    for (let j = i + 1; j < size; j++) c[j] = c[j - 1] + 1;
  }
}

/** Mulberry32: a small, fast 32-bit generator, uniform in [0, 1); the same seed gives the same sequence. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

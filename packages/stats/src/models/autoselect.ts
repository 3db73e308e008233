import type { Summary } from '../summary';
import { ALGORITHM_NAMES, ALGORITHMS } from './registry';
import { ASSESSMENT_CRITERIA, lowerIsBetter, selectFeatures, type SelectionOptions, type SelectorType } from './selection';
import { type Algorithm, type Model, ModelInputError, type ModelSpec, type PredictFrame } from './types';

/** autoSelect's `task` (SymetryML's auto-select-with-symetryml.md; both binary spellings are in use) → the models' task. */
export const AUTOSELECT_TASKS: Readonly<Record<string, 'binary' | 'regression' | 'multiclass'>> = {
  binary_classification: 'binary',
  binary_classifier: 'binary',
  regression: 'regression',
  multiclass_classifier: 'multiclass',
};

/** `sml_model_assessment_type` when the request gives none (auto-select-with-symetryml.md): auc, rmse, mf1_w. */
export const AUTOSELECT_DEFAULT_CRITERIA: Readonly<Record<'binary' | 'regression' | 'multiclass', string>> = {
  binary: 'auc',
  regression: 'rmse',
  multiclass: 'mf1_w',
};

/** The selector autoSelect uses when `selector_type` is absent (auto-select-with-symetryml.md). */
export const AUTOSELECT_DEFAULT_SELECTOR: SelectorType = 'selector_type_fw_bw';

/** Entries of the leaderboard a finished autoSelect keeps (the best first). */
export const AUTOSELECT_LEADERBOARD_SIZE = 20;

export const AUTOSELECT_GRID_TYPES = ['autoselect_grid_type_tiny', 'autoselect_grid_type_small', 'autoselect_grid_type_normal', 'autoselect_grid_type_large'] as const;
export type AutoSelectGridType = (typeof AUTOSELECT_GRID_TYPES)[number];
export const DEFAULT_AUTOSELECT_GRID: AutoSelectGridType = 'autoselect_grid_type_tiny';

/**
 * The parameter grids of `autoselect_grid_type`, as SymetryML documents them for elastic net
 * (select-model-with-symetryml.md, "Selector Grid"; repository symetryml/smldocgb63,
 * symetryml-rest-client/rest-documentation/):
 *
 * | grid   | eta                          | lambda                                               |
 * |--------|------------------------------|------------------------------------------------------|
 * | tiny   | 0, 0.5, 1                    | 1e-3, 1e-2, 0.1                                      |
 * | small  | 0, 0.5, 1                    | 1e-3, 1e-2, 0.1, 1                                   |
 * | normal | 0, 0.3333, 0.6666, 1         | 1e-4, 1e-3, 1e-2, 0.1, 1, 10                         |
 * | large  | 0, 0.2, 0.4, 0.6, 0.8, 1     | 1e-9 … 1e-1 (each power of ten), 1, 10, 100, 1000    |
 *
 * How the algorithms of a task use them (GRID_AXES): `elasticnet` tries eta × lambda; the
 * other penalised models try the lambda axis as their one penalty (`lasso`, `ridge`: lambda;
 * `lsvr`, `lsvm`: sml_model_svm_nu); every other algorithm is tried once, with its defaults.
 */
export const AUTOSELECT_GRIDS: Readonly<Record<AutoSelectGridType, { eta: readonly number[]; lambda: readonly number[] }>> = {
  autoselect_grid_type_tiny: { eta: [0, 0.5, 1], lambda: [1e-3, 1e-2, 0.1] },
  autoselect_grid_type_small: { eta: [0, 0.5, 1], lambda: [1e-3, 1e-2, 0.1, 1] },
  autoselect_grid_type_normal: { eta: [0, 0.3333, 0.6666, 1], lambda: [1e-4, 1e-3, 1e-2, 0.1, 1, 10] },
  autoselect_grid_type_large: {
    eta: [0, 0.2, 0.4, 0.6, 0.8, 1],
    lambda: [1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1, 10, 100, 1000],
  },
};

type Grid = (typeof AUTOSELECT_GRIDS)[AutoSelectGridType];
const GRID_AXES: Readonly<Record<string, (g: Grid) => Array<Record<string, string>>>> = {
  elasticnet: (g) => g.eta.flatMap((eta) => g.lambda.map((lambda) => ({ eta: String(eta), lambda: String(lambda) }))),
  lasso: (g) => g.lambda.map((lambda) => ({ lambda: String(lambda) })),
  ridge: (g) => g.lambda.map((lambda) => ({ lambda: String(lambda) })),
  lsvr: (g) => g.lambda.map((nu) => ({ sml_model_svm_nu: String(nu) })),
  lsvm: (g) => g.lambda.map((nu) => ({ sml_model_svm_nu: String(nu) })),
};
/** Request parameters a grid point replaces (`alpha` is `lambda`'s alias). */
const GRID_REPLACES: Readonly<Record<string, readonly string[]>> = { lambda: ['lambda', 'alpha'], eta: ['eta'], sml_model_svm_nu: ['sml_model_svm_nu'] };

/** One algorithm with one grid point (the parameters the grid sets; the request's others apply too). */
export interface AutoSelectCandidate {
  algo: string;
  params: Record<string, string>;
}

export interface AutoSelectOptions {
  /** `task` query parameter: a key of AUTOSELECT_TASKS. */
  task: string;
  /** `autoselect_grid_type`; default tiny. */
  gridType?: string;
  /** Feature selection per candidate; `selector` defaults to fw_bw, `criterion` to the task's. */
  selection: Omit<SelectionOptions, 'checkpoint' | 'selector'> & { selector?: SelectorType };
  /** Entries kept in the leaderboard (default AUTOSELECT_LEADERBOARD_SIZE). */
  leaderboardSize?: number;
  /** Called after every input subset built, with the number built so far over all candidates; throws to stop. */
  checkpoint?: (tried: number) => Promise<void> | void;
  /** Algorithms to draw from (default: every one this build implements). */
  algorithms?: Readonly<Record<string, Algorithm>>;
}

/** What `checkAutoSelect` accepted: the task, its criterion, the grid and the candidates in the order they are tried. */
export interface AutoSelectPlan {
  task: 'binary' | 'regression' | 'multiclass';
  criterion: string;
  gridType: AutoSelectGridType;
  selector: SelectorType;
  candidates: AutoSelectCandidate[];
}

/** One candidate's feature selection, as the leaderboard lists it. */
export interface LeaderboardEntry {
  algo: string;
  /** The grid point (empty for an algorithm tried with its defaults). */
  params: Record<string, string>;
  /** The inputs its selection chose. */
  inputs: string[];
  /** Its value of the criterion. */
  score: number;
  assessment: Record<string, number>;
}

export interface AutoSelection {
  algo: string;
  /** Every parameter the winner was built with: the request's, then its grid point. */
  params: Record<string, string>;
  model: Model;
  assessment: Record<string, number>;
  criterion: string;
  gridType: AutoSelectGridType;
  selector: SelectorType;
  /** Input subsets built over every candidate. */
  tried: number;
  /** Candidates (algorithm × grid point) whose selection finished, and those none of whose subsets built. */
  candidates: number;
  failed: number;
  /** The best candidates, best first (at most `leaderboardSize`); the first is the winner. */
  leaderboard: LeaderboardEntry[];
}

/**
 * Validates an autoSelect request without building anything (ModelInputError naming what is
 * wrong): a known task and grid, a criterion of the task; the candidates are the algorithms
 * this build implements for the task (in API.md §7's order) × their grid points.
 */
export function checkAutoSelect(opts: Omit<AutoSelectOptions, 'checkpoint'>): AutoSelectPlan {
  const task = AUTOSELECT_TASKS[opts.task];
  if (task === undefined) throw new ModelInputError(`unknown task [${opts.task}]; expected one of ${Object.keys(AUTOSELECT_TASKS).join(', ')}`);
  const gridType = (opts.gridType?.trim() || DEFAULT_AUTOSELECT_GRID) as AutoSelectGridType;
  if (!(AUTOSELECT_GRID_TYPES as readonly string[]).includes(gridType)) {
    throw new ModelInputError(`unknown autoselect_grid_type [${gridType}]; expected one of ${AUTOSELECT_GRID_TYPES.join(', ')}`);
  }
  const criterion = opts.selection.criterion?.trim() || AUTOSELECT_DEFAULT_CRITERIA[task];
  if (!ASSESSMENT_CRITERIA[task].includes(criterion)) {
    throw new ModelInputError(`unknown sml_model_assessment_type [${criterion}] for task ${opts.task}; expected one of ${ASSESSMENT_CRITERIA[task].join(', ')}`);
  }
  const selector = opts.selection.selector ?? AUTOSELECT_DEFAULT_SELECTOR;
  const algorithms = opts.algorithms ?? ALGORITHMS;
  const grid = AUTOSELECT_GRIDS[gridType];
  const candidates = ALGORITHM_NAMES.filter((name) => algorithms[name]?.task === task)
    .flatMap((algo) => (GRID_AXES[algo]?.(grid) ?? [{}]).map((params) => ({ algo, params })));
  return { task, criterion, gridType, selector, candidates };
}

/** The request's parameters with a grid point's in place of those it replaces. */
export function candidateParams(requested: Record<string, string>, point: Record<string, string>): Record<string, string> {
  const out = { ...requested };
  for (const k of Object.keys(point)) for (const r of GRID_REPLACES[k] ?? [k]) delete out[r];
  return { ...out, ...point };
}

/**
 * autoSelect (SymetryML's auto-select-with-symetryml.md): for every candidate (algorithm of
 * the task × grid point, `checkAutoSelect`), the feature selection selectModel runs
 * (`selectFeatures`, same selector, criterion and seed) on `frame`; the best candidate by the
 * criterion wins, the earlier on a tie (a NaN score ranks last). A candidate none of whose
 * subsets builds (a binary classifier on a non-binary target, mqda outside a partition
 * project, …) is skipped; when none builds, the last failure is thrown. Deterministic: the
 * same summary, frame and options give the same winner and leaderboard.
 */
export async function autoSelect(summary: Summary, base: Omit<ModelSpec, 'algo'>, frame: PredictFrame, opts: AutoSelectOptions): Promise<AutoSelection> {
  const plan = checkAutoSelect(opts);
  const algorithms = opts.algorithms ?? ALGORITHMS;
  const lower = lowerIsBetter(plan.criterion);
  const better = (a: number, b: number): boolean => {
    if (Number.isNaN(a)) return false;
    if (Number.isNaN(b)) return true;
    return lower ? a < b : a > b;
  };
  let tried = 0;
  let failed = 0;
  let lastError: unknown;
  const finished: Array<{ entry: LeaderboardEntry; model: Model; params: Record<string, string> }> = [];
  for (const c of plan.candidates) {
    const params = candidateParams(base.params, c.params);
    const before = tried;
    let selected;
    try {
      selected = await selectFeatures(algorithms[c.algo], summary, { ...base, algo: c.algo, params }, frame, {
        ...opts.selection,
        selector: plan.selector,
        criterion: plan.criterion,
        checkpoint: async (n) => {
          tried = before + n;
          if (opts.checkpoint) await opts.checkpoint(tried);
        },
      });
    } catch (err) {
      if (!(err instanceof ModelInputError)) throw err;
      lastError = err;
      failed++;
      continue;
    }
    tried = before + selected.tried;
    finished.push({
      entry: { algo: c.algo, params: c.params, inputs: [...selected.model.inputNames], score: selected.assessment[plan.criterion], assessment: selected.assessment },
      model: selected.model,
      params,
    });
  }
  if (finished.length === 0) throw lastError instanceof Error ? lastError : new ModelInputError(`no algorithm of this build fits task ${opts.task}`);
  // Stable: ties keep the candidates' order.
  const ranked = [...finished].sort((a, b) => (better(a.entry.score, b.entry.score) ? -1 : better(b.entry.score, a.entry.score) ? 1 : 0));
  const best = ranked[0];
  return {
    algo: best.entry.algo,
    params: best.params,
    model: best.model,
    assessment: best.entry.assessment,
    criterion: plan.criterion,
    gridType: plan.gridType,
    selector: plan.selector,
    tried,
    candidates: finished.length,
    failed,
    leaderboard: ranked.slice(0, opts.leaderboardSize ?? AUTOSELECT_LEADERBOARD_SIZE).map((r) => r.entry),
  };
}

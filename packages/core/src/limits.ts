import type { Config } from './config';
import { smlError } from './errors';

/**
 * Bounds of the numeric parameters customers send (project create `params`, MLContext
 * `extraParameters`, the EVT wrapper body). SML is a shared service: a parameter that sizes
 * state (sequence order, bins, centroids, windows) or work (iterations, candidates) is
 * bounded before anything is built, logged or queued, so no request can exhaust a process
 * that serves every customer. The maxima come from the config (README "Resource limits");
 * the algorithms still check their own, often narrower, ranges.
 */
export interface ParameterBound {
  integer: boolean;
  min: number;
  max: number;
  /** The config variable that sets `max`, when one does. */
  limit?: keyof Config;
}

/** Real-valued parameters (penalties, quantiles, tolerances) are finite and at most this large. */
const REAL_MAGNITUDE = 1e12;

/** What parameterBounds reads of the configuration: a process that checks parameters loads this slice. */
export const PARAMETER_LIMITS_CONFIG = [
  'SML_MAX_SEQUENCE_ORDER', 'SML_MAX_HISTOGRAM_BINS', 'SML_MAX_SELECTION_CANDIDATES', 'SML_MAX_ITERATIONS', 'SML_MAX_CENTROIDS', 'SML_MAX_EVT_WINDOW',
] as const satisfies readonly (keyof Config)[];
type Limits = Pick<Config, (typeof PARAMETER_LIMITS_CONFIG)[number]>;

/** The bound of every numeric parameter SML reads, by name. */
export function parameterBounds(c: Limits): Readonly<Record<string, ParameterBound>> {
  const int = (max: number, limit?: keyof Config, min = 1): ParameterBound => ({ integer: true, min, max, ...(limit ? { limit } : {}) });
  const real = (min = -REAL_MAGNITUDE, max = REAL_MAGNITUDE): ParameterBound => ({ integer: false, min, max });
  return {
    // state kept by a project
    sml_project_order: int(c.SML_MAX_SEQUENCE_ORDER, 'SML_MAX_SEQUENCE_ORDER'),
    cluster_num_centroids: int(c.SML_MAX_CENTROIDS, 'SML_MAX_CENTROIDS'),
    cluster_warmup_period: int(Number.MAX_SAFE_INTEGER),
    // the online forest (packages/stats forest.ts: MAX_FOREST_TREES, MAX_FOREST_CLASSES, MAX_FOREST_DEPTH; nodes capped there)
    rf_num_trees: int(100), rf_num_classes: int(64, undefined, 2), rf_complexity: int(64),
    rf_rnd_seed: int(Number.MAX_SAFE_INTEGER, undefined, Number.MIN_SAFE_INTEGER),
    rf_step: real(), rf_dirichlet: real(), rf_max_split_time: real(), rf_missing_value: real(),
    // each power is a column of the summary (packages/stats power.ts: MAX_POWER_STEPS, MAX_POWER_ABS)
    sml_project_power_steps: int(100),
    sml_project_power_min: real(-10, 10), sml_project_power_max: real(-10, 10),
    // state or work of one request
    hba_bins: int(c.SML_MAX_HISTOGRAM_BINS, 'SML_MAX_HISTOGRAM_BINS'),
    hist_bins: int(c.SML_MAX_HISTOGRAM_BINS, 'SML_MAX_HISTOGRAM_BINS'),
    selector_iterations: int(c.SML_MAX_SELECTION_CANDIDATES, 'SML_MAX_SELECTION_CANDIDATES'),
    selector_seed: int(Number.MAX_SAFE_INTEGER, undefined, Number.MIN_SAFE_INTEGER),
    max_iter: int(c.SML_MAX_ITERATIONS, 'SML_MAX_ITERATIONS'),
    // reduce's query (SymetryML's POST projects/{p}/reduce): swap passes, each ≤ p builds; the relative change that counts
    numIterations: int(c.SML_MAX_ITERATIONS, 'SML_MAX_ITERATIONS', 0),
    delta: real(0),
    evt_window_size: int(c.SML_MAX_EVT_WINDOW, 'SML_MAX_EVT_WINDOW', 0), // 0 = no sliding window
    evt_warmup_size: int(c.SML_MAX_EVT_WINDOW, 'SML_MAX_EVT_WINDOW'),
    evt_max_exceedances: int(c.SML_MAX_EVT_WINDOW, 'SML_MAX_EVT_WINDOW'),
    // real-valued: their ranges are the algorithms' (STATS.md); here only finite and sane
    lambda: real(), alpha: real(), eta: real(), tol: real(), q: real(),
    laplace_factor: real(), var_smoothing: real(), hmm_var_smoothing: real(), lr_approx_radius: real(),
    sml_model_svm_nu: real(), hba_alpha: real(), hba_tol: real(), hba_threshold_sd: real(),
    ecod_threshold_sd: real(), covest_quantile: real(), repca_quantile: real(),
    oospca_ratio: real(), oospca_threshold_sd: real(), evt_alpha: real(), evt_quantile: real(),
    svd_tolerance: real(),
  };
}

/** Why `text` is outside `bound`, or undefined when it is inside. */
export function boundViolation(text: string, bound: ParameterBound): string | undefined {
  const trimmed = text.trim();
  const v = trimmed === '' ? NaN : Number(trimmed);
  const range = `[${bound.min}, ${bound.max}]`;
  const expected = `expected ${bound.integer ? 'an integer' : 'a number'} in ${range}${bound.limit ? ` (${bound.limit})` : ''}`;
  if (!Number.isFinite(v) || (bound.integer && !Number.isSafeInteger(v))) return expected;
  if (v < bound.min || v > bound.max) return expected;
  return undefined;
}

/**
 * Checks the parameters of a string map against their bounds: 400 INVALID_PARAMETER naming
 * the first one outside. Names without a bound are not numeric parameters of SML and pass
 * (the algorithms ignore what they do not read). The value echoed in the message is cut
 * short, so a huge value is never copied into a reply or a log line.
 */
export function checkParameters(params: Readonly<Record<string, string>> | null | undefined, bounds: Readonly<Record<string, ParameterBound>>): void {
  if (!params) return;
  for (const [name, text] of Object.entries(params)) {
    const bound = bounds[name];
    if (!bound) continue;
    const reason = boundViolation(String(text), bound);
    if (reason) throw smlError('INVALID_PARAMETER', { name, value: clip(String(text)), reason });
  }
}

/** At most 64 characters of a value, for messages. */
export function clip(text: string, max = 64): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

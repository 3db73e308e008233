import { integerParam, numberParam } from '../classifiers/model';
import { ModelInputError, type ModelSpec } from '../types';

/** The EVT parameters (STATS.md §5, API.md §7 `evtwrapper`), resolved. */
export interface EvtParams {
  /** Scores calibrating the first threshold. */
  warmupSize: number;
  /** q: the tail probability of the anomaly threshold z_q. */
  alpha: number;
  /** The level of the initial threshold t, in (0, 1). */
  quantile: number;
  /** t follows the running quantile of a t-digest instead of staying at its calibrated value. */
  tdigest: boolean;
  /** d > 0: DSPOT on the score minus the mean of the last d normal scores. */
  windowSize: number;
  /** Excesses kept for the fit (the oldest are dropped). */
  maxExceedances: number;
  /** Grimshaw's maximum likelihood (else the method of moments). */
  grimshaw: boolean;
}

export const EVT_DEFAULTS: Readonly<EvtParams> = {
  warmupSize: 1000,
  alpha: 1e-3,
  quantile: 0.98,
  tdigest: false,
  windowSize: 0,
  maxExceedances: 100000,
  grimshaw: true,
};

/**
 * The `evt_*` parameters of a flat string map (extraParameters, or the evtwrapper body);
 * ModelInputError naming the parameter when one is invalid. `evt_quantile` above 1 is read
 * as percent. `evt_alpha` must be below 1 − evt_quantile, or z_q would fall below t.
 */
export function evtParams(params: Record<string, string>): EvtParams {
  const spec: ModelSpec = { algo: 'evt', inputs: [], targets: [], params };
  const warmupSize = integerParam(spec, 'evt_warmup_size', (v) => v >= 2, 'an integer ≥ 2') ?? EVT_DEFAULTS.warmupSize;
  const alpha = numberParam(spec, 'evt_alpha', EVT_DEFAULTS.alpha, (v) => v > 0 && v < 1, 'a number in (0, 1)');
  const level = numberParam(spec, 'evt_quantile', EVT_DEFAULTS.quantile, (v) => (v > 0 && v < 1) || (v > 1 && v < 100), 'a number in (0, 1), or a percent in (1, 100)');
  const quantile = level > 1 ? level / 100 : level;
  const windowSize = integerParam(spec, 'evt_window_size', (v) => v >= 0, 'an integer ≥ 0') ?? EVT_DEFAULTS.windowSize;
  const maxExceedances = integerParam(spec, 'evt_max_exceedances', (v) => v >= 1, 'an integer ≥ 1') ?? EVT_DEFAULTS.maxExceedances;
  const tdigest = booleanParam(params, 'evt_tdigest', EVT_DEFAULTS.tdigest);
  const grimshaw = booleanParam(params, 'evt_grimshaw', EVT_DEFAULTS.grimshaw);
  if (!(alpha < 1 - quantile)) throw new ModelInputError(`parameter [evt_alpha] must be below 1 − evt_quantile (${1 - quantile}), got "${params.evt_alpha}"`);
  if (warmupSize - windowSize < 2) {
    throw new ModelInputError(`parameter [evt_window_size] must leave at least 2 warm-up scores to calibrate on (evt_warmup_size ${warmupSize}), got "${params.evt_window_size}"`);
  }
  return { warmupSize, alpha, quantile, tdigest, windowSize, maxExceedances, grimshaw };
}

function booleanParam(params: Record<string, string>, name: string, fallback: boolean): boolean {
  const text = params[name]?.trim().toLowerCase();
  if (text === undefined || text === '') return fallback;
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw new ModelInputError(`parameter [${name}] must be true or false, got "${params[name]}"`);
}

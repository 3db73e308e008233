import { parseDecimal } from '../../frame';
import type { Prediction } from '../types';
import { extremeQuantile, type GpdFit, grimshaw, momentsFit, tailProbability } from './gpd';
import { type EvtParams, evtParams } from './params';
import { TDigest, type TDigestState } from './tdigest';
import { flag, integer, ModelStateError, number, numbers, object, text } from '../state-read';

/** What EVT adds to a prediction (STATS.md §5). */
export interface EvtResult {
  evt_is_anomaly: '0' | '1';
  /** z_q in the score's units (DSPOT: plus the moving mean); `NaN` during warm-up. */
  evt_threshold: string;
  /** 1 − the estimated tail probability of the score, in [0, 1]; 0 at or below t. */
  evt_anomaly_confidence: string;
}

export const EVT_KEYS: readonly (keyof EvtResult)[] = ['evt_is_anomaly', 'evt_threshold', 'evt_anomaly_confidence'];

/** The prediction keys read as the score when `sml_evt_wrapper_res_key` is not given, first present wins. */
export const DEFAULT_SCORE_KEYS: readonly string[] = ['score', 'ecodscore', 'res'];

/** Everything the wrapper knows, JSON-serializable (finite numbers only). */
export interface EvtState {
  params: EvtParams;
  /** `sml_evt_wrapper_res_key`, when given. */
  scoreKey: string | null;
  /** Warm-up scores, until calibration. */
  warmup: number[];
  calibrated: boolean;
  /** DSPOT: the last `windowSize` normal scores, oldest first. */
  window: number[];
  /** Scores counted (warm-up, then every one that was not an anomaly). */
  n: number;
  /** N_t: excesses over t ever counted (the kept ones may be fewer). */
  exceedances: number;
  t: number;
  /** SPOT: kept excesses over t, oldest first. t-digest: kept scores that were above t when they came. */
  peaks: number[];
  gamma: number;
  sigma: number;
  /** z_q for the residual (DSPOT) or the score. */
  z: number;
  /** t-digest mode: the digest (kept live beside this state, filled in by `state()`). */
  digest: TDigestState | null;
  /** t-digest: normal scores since t was last moved to the digest's quantile. */
  sinceRefit: number;
}

/**
 * SPOT / DSPOT (Siffer et al., KDD 2017; STATS.md §5) over a stream of scores, one at a
 * time. Calibration on the first `evt_warmup_size` scores: t = their `evt_quantile`
 * (sorted[⌊level·n⌋], the authors' reference code), excesses over t fitted by a generalized
 * Pareto distribution (Grimshaw or moments), z_q = t + (σ/γ)((q·n/N_t)^(−γ) − 1). Then each
 * score x: an anomaly if x > z_q (nothing learned); else, if x > t, its excess is added
 * (at most `evt_max_exceedances` kept, oldest dropped; N_t counts them all), the
 * distribution refitted and z_q updated. DSPOT (`evt_window_size` d > 0) does the same on
 * x minus the mean of the last d normal scores (the first d warm-up scores only fill the
 * window). `evt_tdigest`: t is the running quantile of a t-digest of every normal score,
 * re-read (and the distribution refitted on the kept scores above it) when a score above t
 * is kept and at least every ⌈1/(1 − level)⌉ scores; N_t/n is 1 − level. README: decisions.
 */
export class EvtWrapper {
  private readonly s: EvtState;
  private digest: TDigest | null;

  /**
   * From a flat string map (extraParameters, or the evtwrapper body): the `evt_*` parameters
   * (defaults for absent ones) and `sml_evt_wrapper_res_key`; ModelInputError naming a bad one.
   */
  constructor(params: Record<string, string> = {}) {
    const resolved = evtParams(params);
    const key = params.sml_evt_wrapper_res_key?.trim();
    this.s = {
      params: resolved,
      scoreKey: key === undefined || key === '' ? null : key,
      warmup: [],
      calibrated: false,
      window: [],
      n: 0,
      exceedances: 0,
      t: 0,
      peaks: [],
      gamma: 0,
      sigma: 0,
      z: 0,
      digest: null,
      sinceRefit: 0,
    };
    this.digest = resolved.tdigest ? new TDigest() : null;
  }

  static restore(state: unknown, path = 'evt'): EvtWrapper {
    const s = readEvtState(state, path);
    const wrapper = new EvtWrapper();
    Object.assign(wrapper.s, { ...s, params: { ...s.params }, warmup: [...s.warmup], window: [...s.window], peaks: [...s.peaks], digest: null });
    wrapper.digest = s.digest === null ? null : TDigest.restore(s.digest);
    return wrapper;
  }

  get params(): Readonly<EvtParams> {
    return this.s.params;
  }

  /** Tests one score and learns from it. A non-finite score is neither tested nor learned. */
  update(score: number): EvtResult {
    const s = this.s;
    if (!Number.isFinite(score)) return this.noEvidence();
    if (!s.calibrated) {
      s.warmup.push(score);
      if (s.warmup.length === s.params.warmupSize) this.calibrate();
      return { evt_is_anomaly: '0', evt_threshold: 'NaN', evt_anomaly_confidence: '0' };
    }
    const mean = this.windowMean();
    const x = score - mean;
    const result: EvtResult = {
      evt_is_anomaly: x > s.z ? '1' : '0',
      evt_threshold: String(s.z + mean),
      evt_anomaly_confidence: String(x > s.t ? Math.min(1, Math.max(0, 1 - tailProbability(x, s.t, this.fit, this.ratio))) : 0),
    };
    if (x > s.z) return result;
    s.n++;
    if (this.digest !== null) this.learnTracked(x);
    else if (x > s.t) {
      this.keep(x - s.t);
      s.exceedances++;
      this.refit(s.peaks);
    }
    this.slide(score);
    return result;
  }

  /**
   * Adds the EVT keys to each prediction, the score read from `sml_evt_wrapper_res_key`
   * (default: the first of `score`, `ecodscore`, `res` present); a row without a numeric
   * score gets no-evidence values and teaches nothing.
   */
  annotate(predictions: readonly Prediction[]): Prediction[] {
    return predictions.map((p) => {
      const key = this.s.scoreKey ?? DEFAULT_SCORE_KEYS.find((k) => p[k] !== undefined);
      const text = key === undefined ? undefined : p[key]?.trim();
      return { ...p, ...this.update(text === undefined || text === '' ? NaN : parseDecimal(text)) };
    });
  }

  state(): EvtState {
    const s = this.s;
    return { ...s, params: { ...s.params }, warmup: [...s.warmup], window: [...s.window], peaks: [...s.peaks], digest: this.digest?.state() ?? null };
  }

  private noEvidence(): EvtResult {
    const s = this.s;
    return { evt_is_anomaly: '0', evt_threshold: s.calibrated ? String(s.z + this.windowMean()) : 'NaN', evt_anomaly_confidence: '0' };
  }

  private calibrate(): void {
    const s = this.s;
    const d = s.params.windowSize;
    const values: number[] = [];
    s.window = s.warmup.slice(0, d);
    for (const score of s.warmup.slice(d)) {
      values.push(score - this.windowMean());
      this.slide(score);
    }
    s.warmup = [];
    s.n = values.length;
    s.calibrated = true;
    if (this.digest !== null) {
      for (const v of values) this.digest.add(v);
      s.t = this.digest.quantile(s.params.quantile);
      for (const v of values) if (v > s.t) this.keep(v);
      this.refit(this.trackedExcesses());
      return;
    }
    s.t = [...values].sort((a, b) => a - b)[Math.floor(s.params.quantile * values.length)];
    for (const v of values) {
      if (v > s.t) {
        this.keep(v - s.t);
        s.exceedances++;
      }
    }
    this.refit(s.peaks);
  }

  /**
   * t-digest mode: the digest learns x; t moves to its running quantile and the fit follows
   * when x is kept as an excess, or after as many scores as there are per excess on average
   * (refitting on every score would cost a Grimshaw fit per score).
   */
  private learnTracked(x: number): void {
    const s = this.s;
    this.digest!.add(x);
    s.sinceRefit++;
    const above = x > s.t;
    if (above) this.keep(x);
    if (!above && s.sinceRefit < Math.ceil(1 / (1 - s.params.quantile))) return;
    s.sinceRefit = 0;
    s.t = this.digest!.quantile(s.params.quantile);
    this.refit(this.trackedExcesses());
  }

  private trackedExcesses(): number[] {
    const t = this.s.t;
    return this.s.peaks.filter((v) => v > t).map((v) => v - t);
  }

  private keep(value: number): void {
    const peaks = this.s.peaks;
    peaks.push(value);
    if (peaks.length > this.s.params.maxExceedances) peaks.shift();
  }

  private refit(excesses: readonly number[]): void {
    const s = this.s;
    const fit = s.params.grimshaw ? grimshaw(excesses) : momentsFit(excesses);
    s.gamma = fit.gamma;
    s.sigma = fit.sigma;
    s.z = extremeQuantile(s.t, fit, s.params.alpha, this.ratio);
  }

  private get fit(): GpdFit {
    return { gamma: this.s.gamma, sigma: this.s.sigma };
  }

  /** N_t/n: the fraction of scores above t (t-digest: 1 − level, by construction of t). */
  private get ratio(): number {
    const s = this.s;
    return this.digest !== null ? 1 - s.params.quantile : s.n > 0 ? s.exceedances / s.n : 0;
  }

  private windowMean(): number {
    const w = this.s.window;
    return w.length === 0 ? 0 : w.reduce((a, b) => a + b, 0) / w.length;
  }

  private slide(score: number): void {
    const s = this.s;
    if (s.params.windowSize === 0) return;
    s.window.push(score);
    if (s.window.length > s.params.windowSize) s.window.shift();
  }
}

/**
 * An EvtState read back (state-read.ts): its parameters as evtParams would give them, and the
 * lists within the sizes those parameters keep them to (a longer warm-up would never calibrate).
 */
function readEvtState(state: unknown, path: string): EvtState {
  const s = object(state, path);
  const p = object(s.params, `${path}.params`);
  const given = {
    warmupSize: integer(p.warmupSize, `${path}.params.warmupSize`, 2), alpha: number(p.alpha, `${path}.params.alpha`), quantile: number(p.quantile, `${path}.params.quantile`),
    tdigest: flag(p.tdigest, `${path}.params.tdigest`), windowSize: integer(p.windowSize, `${path}.params.windowSize`), maxExceedances: integer(p.maxExceedances, `${path}.params.maxExceedances`, 1),
    grimshaw: flag(p.grimshaw, `${path}.params.grimshaw`),
  };
  let checked: EvtParams;
  try {
    checked = evtParams({
      evt_warmup_size: String(given.warmupSize), evt_alpha: String(given.alpha), evt_quantile: String(given.quantile), evt_tdigest: String(given.tdigest),
      evt_window_size: String(given.windowSize), evt_max_exceedances: String(given.maxExceedances), evt_grimshaw: String(given.grimshaw),
    });
  } catch (err) {
    throw new ModelStateError(`${path}.params: ${(err as Error).message}`);
  }
  if (checked.quantile !== given.quantile) throw new ModelStateError(`${path}.params.quantile is not in (0, 1)`);
  if (s.scoreKey !== null) text(s.scoreKey, `${path}.scoreKey`);
  const calibrated = flag(s.calibrated, `${path}.calibrated`);
  const warmup = numbers(s.warmup, `${path}.warmup`);
  if (warmup.length >= (calibrated ? 1 : given.warmupSize)) throw new ModelStateError(`${path}.warmup has ${warmup.length} scores, more than a warm-up of ${given.warmupSize} keeps`);
  if (numbers(s.window, `${path}.window`).length > given.windowSize) throw new ModelStateError(`${path}.window is longer than windowSize`);
  if (numbers(s.peaks, `${path}.peaks`).length > given.maxExceedances) throw new ModelStateError(`${path}.peaks has more than maxExceedances`);
  for (const k of ['n', 'exceedances', 't', 'gamma', 'sigma', 'z', 'sinceRefit']) number(s[k], `${path}.${k}`);
  if (given.tdigest !== (s.digest !== null)) throw new ModelStateError(`${path}.digest is ${s.digest === null ? 'missing' : 'there'} while params.tdigest is ${given.tdigest}`);
  if (s.digest !== null) {
    const d = object(s.digest, `${path}.digest`);
    const compression = number(d.compression, `${path}.digest.compression`);
    if (!(compression >= 1 && compression <= MAX_TDIGEST_COMPRESSION)) throw new ModelStateError(`${path}.digest.compression is not in [1, ${MAX_TDIGEST_COMPRESSION}]`);
    numbers(d.weights, `${path}.digest.weights`, numbers(d.means, `${path}.digest.means`).length);
    if (numbers(d.buffer, `${path}.digest.buffer`).length >= 5 * compression) throw new ModelStateError(`${path}.digest.buffer holds more than a merge leaves`);
    for (const k of ['min', 'max']) number(d[k], `${path}.digest.${k}`);
  }
  return s as unknown as EvtState;
}

/** The largest t-digest compression a state may have (the wrapper's is DEFAULT_TDIGEST_COMPRESSION). */
const MAX_TDIGEST_COMPRESSION = 10_000;

import type { ByteReader, ByteWriter } from '../../binary';
import { addCompensated, combineCompensated, compensatedValue } from '../../compensated';
import { FrameError, SummaryError } from '../../errors';
import type { NumericColumn, ParsedFrame } from '../../frame';
import type { Sign, SummaryPart } from '../../parts';

/**
 * The `sml_project_power_*` create parameters of a project (SymetryML modeling-api.md,
 * "About Power Regression Model"): the column whose Yeo-Johnson transforms are tracked, and
 * the grid of powers, `steps` intervals from `min` to `max` (so `steps + 1` powers).
 */
export interface PowerOptions {
  column: string;
  min: number;
  max: number;
  steps: number;
}

/**
 * Defaults where SymetryML documents none: its example columns run from `pt_<col>^-2.0` to
 * `pt_<col>^2.0` by 0.2, i.e. min −2, max 2, 20 intervals.
 */
export const POWER_DEFAULTS = { min: -2, max: 2, steps: 20 };

/** SymetryML's default prefix and separator of power column names (`pt_sepal_width^-1.8`). */
export const POWER_PREFIX = 'pt_';
export const POWER_SEPARATOR = '^';

/**
 * Bounds of the grid. Each power is one more attribute, and every attribute costs a row of
 * co-moments with every other, so the grid is at most 101 columns. |power| ≤ 10: beyond,
 * (1 + y)^λ leaves the summary's range (MAX_ABS_VALUE) for any but tiny targets.
 */
export const MAX_POWER_STEPS = 100;
export const MAX_POWER_ABS = 10;

/** Why `o` is not a valid set of power options, or null. */
export function powerOptionsProblem(o: PowerOptions): string | null {
  if (typeof o.column !== 'string' || o.column.trim() === '') return 'sml_project_power_column must name the column to transform';
  for (const [name, v] of [['sml_project_power_min', o.min], ['sml_project_power_max', o.max]] as const) {
    if (typeof v !== 'number' || !Number.isFinite(v) || Math.abs(v) > MAX_POWER_ABS) return `${name} must be a number in [-${MAX_POWER_ABS}, ${MAX_POWER_ABS}]`;
  }
  if (!(o.min < o.max)) return 'sml_project_power_min must be smaller than sml_project_power_max';
  if (!Number.isSafeInteger(o.steps) || o.steps < 1 || o.steps > MAX_POWER_STEPS) return `sml_project_power_steps must be an integer in [1, ${MAX_POWER_STEPS}]`;
  return null;
}

/** The power options of the project parameters `sml_project_power_*`, or null when sml_project_power_column is absent. */
export function powerOptionsOf(params: Readonly<Record<string, string>>): PowerOptions | null {
  const column = params.sml_project_power_column?.trim();
  if (!column) return null;
  const number = (text: string | undefined, fallback: number) => (text === undefined || text.trim() === '' ? fallback : Number(text));
  return {
    column,
    min: number(params.sml_project_power_min, POWER_DEFAULTS.min),
    max: number(params.sml_project_power_max, POWER_DEFAULTS.max),
    steps: number(params.sml_project_power_steps, POWER_DEFAULTS.steps),
  };
}

/**
 * The powers of the grid: min + k·(max − min)/steps, k = 0..steps, rounded to 12 significant
 * digits so that a grid by 0.2 gives 1.8 and not 1.7999999999999998 (the name and the
 * transform use the same rounded power).
 */
export function powerGrid(o: PowerOptions): number[] {
  return Array.from({ length: o.steps + 1 }, (_, k) => {
    const p = k === o.steps ? o.max : Number((o.min + (k * (o.max - o.min)) / o.steps).toPrecision(12));
    return p === 0 ? 0 : p; // no -0
  });
}

/** `pt_<column>^<power>`, the power printed as Java prints a double (`-2.0`, `1.8`), as SymetryML names them. */
export function powerColumnName(column: string, power: number): string {
  const text = Number.isInteger(power) ? `${power}.0` : String(power);
  return `${POWER_PREFIX}${column}${POWER_SEPARATOR}${text}`;
}

/**
 * The Yeo-Johnson transform of x for power λ (Yeo & Johnson 2000), with SciPy's branches
 * (λ = 0 and λ = 2 within machine epsilon). ((1 + x)^λ − 1)/λ is computed as
 * expm1(λ·log1p(x))/λ, which keeps the digits of small |x| that forming 1 + x drops (SciPy
 * 1.10 forms the power; the two agree within 1e-15 relative at scale 1).
 */
export function yeoJohnson(x: number, lambda: number): number {
  if (x >= 0) {
    if (Math.abs(lambda) < Number.EPSILON) return Math.log1p(x);
    return Math.expm1(lambda * Math.log1p(x)) / lambda;
  }
  if (Math.abs(lambda - 2) > Number.EPSILON) return -Math.expm1((2 - lambda) * Math.log1p(-x)) / (2 - lambda);
  return -Math.log1p(-x);
}

/**
 * The inverse transform (scikit-learn's PowerTransformer.inverse_transform). A t beyond the
 * range of the transform (t ≥ −1/λ for λ < 0, t ≤ 1/(λ − 2) for λ > 2) has no preimage:
 * NaN, as scikit-learn gives.
 */
export function yeoJohnsonInverse(t: number, lambda: number): number {
  if (t >= 0) {
    if (Math.abs(lambda) < Number.EPSILON) return Math.expm1(t);
    return Math.expm1(Math.log1p(lambda * t) / lambda);
  }
  if (Math.abs(lambda - 2) > Number.EPSILON) return -Math.expm1(Math.log1p(-(2 - lambda) * t) / (2 - lambda));
  return -Math.expm1(-t);
}

/**
 * The Yeo-Johnson profile log-likelihood of λ over n values (SciPy's `yeojohnson_llf`):
 * −n/2·ln σ²_λ + (λ − 1)·Σ sign(x)·ln(1 + |x|), σ²_λ the population variance of the
 * transformed values; +∞ when that variance is below the smallest normal double, as SciPy.
 */
export function yeoJohnsonLogLikelihood(n: number, variance: number, jacobianSum: number, lambda: number): number {
  if (!(n > 0)) return NaN;
  if (variance < 2 ** -1022) return Infinity; // numpy's finfo(float64).tiny
  return (-n / 2) * Math.log(variance) + (lambda - 1) * jacobianSum;
}

/**
 * The power columns of a project (STATS.md §1 "online models", §4 `powerreg`). Before a
 * frame is learned or forgotten, `augment` adds the column `pt_<column>^<p>` = YJ(column, p)
 * for each power p of the grid: they are then ordinary attributes of the summary, whose
 * moments and co-moments with every input are what powerreg builds from, and which learn,
 * forget, merge and serialize as every other attribute (forget stays the exact inverse).
 *
 * The one statistic the columns do not give is the log-likelihood's Jacobian term
 * Σ sign(y)·ln(1 + |y|) over the rows where the column is present: this class keeps it
 * (compensated, so forget returns it to 0) with the count of those rows.
 */
export class PowerColumns implements SummaryPart<PowerColumns> {
  readonly powers: readonly number[];
  readonly names: readonly string[];
  private count = 0;
  /** Compensated Σ sign(y)·ln(1 + |y|): value at 0, compensation at 1. */
  private readonly jacobian = new Float64Array(2);

  constructor(readonly options: PowerOptions) {
    this.powers = powerGrid(options);
    this.names = this.powers.map((p) => powerColumnName(options.column, p));
  }

  /** Rows learned (minus forgotten) where the column was present. */
  get rowCount(): number {
    return this.count;
  }

  /** Σ sign(y)·ln(1 + |y|) over those rows. */
  get jacobianSum(): number {
    return compensatedValue(this.jacobian, 0);
  }

  /**
   * The frame with the power columns appended (unchanged when it lacks the column). Throws
   * FrameError when the column is not numeric or the frame already carries a power column.
   */
  augment(parsed: ParsedFrame): ParsedFrame {
    const taken = new Set(this.names);
    const clash = parsed.names.find((name) => taken.has(name));
    if (clash !== undefined) throw new FrameError(-1, clash, `[${clash}] is a power column the project computes from [${this.options.column}] (sml_project_power_column); a frame cannot carry it`);
    if (parsed.categorical.some((c) => c.name === this.options.column)) {
      throw new FrameError(-1, this.options.column, 'the power column (sml_project_power_column) must be of type C or B');
    }
    const source = parsed.numeric.find((c) => c.name === this.options.column);
    if (source === undefined) return parsed;
    const x = source.values;
    const added: NumericColumn[] = this.powers.map((p, k) => {
      const values = new Float64Array(x.length);
      for (let r = 0; r < x.length; r++) values[r] = Number.isNaN(x[r]) ? NaN : yeoJohnson(x[r], p);
      return { kind: 'C', name: this.names[k], values };
    });
    return {
      ...parsed,
      names: [...parsed.names, ...this.names],
      types: [...parsed.types, ...this.names.map(() => 'C' as const)],
      numeric: [...parsed.numeric, ...added],
    };
  }

  /** Adds (sign 1) or removes (-1) the Jacobian term of the frame's rows. */
  learn(parsed: ParsedFrame, sign: Sign): void {
    if (sign === -1) {
      const rows = new PowerColumns(this.options);
      rows.learn(parsed, 1);
      return this.merge(rows, -1);
    }
    const source = parsed.numeric.find((c) => c.name === this.options.column);
    if (source === undefined) return;
    for (const v of source.values) {
      if (Number.isNaN(v)) continue;
      addCompensated(this.jacobian, 0, Math.sign(v) * Math.log1p(Math.abs(v)));
      this.count++;
    }
  }

  merge(other: PowerColumns, sign: Sign): void {
    this.checkMerge(other, sign);
    this.count += sign * other.count;
    combineCompensated(this.jacobian, 0, other.jacobian, 0, sign);
  }

  checkMerge(other: PowerColumns, sign: Sign): void {
    if (sign === -1 && other.count > this.count) throw new SummaryError('not-learned', 'cannot forget rows that were never learned', this.options.column);
  }

  write(w: ByteWriter): void {
    w.f64(this.count);
    w.f64s(this.jacobian);
  }

  /** Reads what write() wrote. */
  read(r: ByteReader): void {
    const count = r.f64();
    const jacobian = r.f64s();
    if (!Number.isSafeInteger(count) || count < 0 || jacobian.length !== 2 || !jacobian.every(Number.isFinite)) throw new SummaryError('damaged', 'damaged summary serialization: power columns');
    this.count = count;
    this.jacobian.set(jacobian);
  }
}

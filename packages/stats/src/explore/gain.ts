import type { Attributes } from './attributes';
import { ExploreInputError } from './errors';
import { alignHistograms, conditionalHistogram } from './histograms';
import type { ExploreOptions, MetricInput, MetricMap } from './types';

/** A 0/1 indicator: binary attribute `index`, or 1 − it when `complement`. */
interface Indicator {
  readonly index: number;
  readonly complement: boolean;
}

function both(index: number): Indicator[] {
  return [
    { index, complement: true },
    { index, complement: false },
  ];
}

/**
 * `gain`: information gain in bits of each input X about the target T,
 * H(T) − Σᵥ P(X=v)·H(T | X=v), from the joint counts n(v, t) (equivalently the mutual
 * information Σ p(v,t)·log₂(p(v,t)/(p(v)p(t)))). One map `{<X name>: gain}` per X, in input order.
 *
 * - T: one binary target → its values 0 and 1; several binary targets (one-hot classes, or
 *   the levels of a categorical) → one class per target, rows where none is 1 left out.
 * - X: the levels of a categorical attribute together (all its levels, named by the
 *   categorical); a plain binary attribute → its values 0 and 1; a continuous attribute → the
 *   values (exact histogram) or bins (streaming) of its histogram.
 * - Binary X: n(v, t) counts rows where X and the class indicator are both present, from the
 *   pair co-moments (Σ x·t, Σx, Σt, co-present count).
 * - Continuous X: n(bin, t) from `conditionalHistogram(t, X)`; for a single binary target the
 *   t = 0 column is X's histogram minus the t = 1 one, so rows where T is missing count as
 *   t = 0 (the summary has no histogram of X over the rows where T is present).
 */
export function gain(attributes: Attributes, input: MetricInput, options: ExploreOptions): MetricMap[] {
  if (input.inputs.length < 1) throw new ExploreInputError('gain needs at least 1 input attribute, got 0');
  if (input.targets.length < 1) throw new ExploreInputError('gain needs at least 1 binary target, got 0');
  for (const t of input.targets) attributes.requireBinary(t, 'gain');
  const target = input.targets.length === 1 ? both(input.targets[0]) : input.targets.map((index) => ({ index, complement: false }));

  return [...variablesOf(attributes, input)].map(([name, x]) => {
    let table: number[][];
    if (typeof x !== 'number') table = binaryTable(attributes, x.map((index) => ({ index, complement: false })), target);
    else if (attributes.isBinary(x)) table = binaryTable(attributes, both(x), target);
    else table = continuousTable(attributes, x, target, options);
    return { [name]: informationGain(table) };
  });
}

/** gain's variables in input order: a categorical's levels together under its base name, any other attribute alone. */
function variablesOf(attributes: Attributes, input: MetricInput): Map<string, number[] | number> {
  const variables = new Map<string, number[] | number>();
  for (const x of input.inputs) {
    const base = attributes.base(x);
    if (base !== null) variables.set(base, attributes.levels(base));
    else variables.set(attributes.name(x), x);
  }
  return variables;
}

/**
 * Per map of `gain`, its approximate keys: a continuous X read from a streaming histogram is
 * binned by the stored bins, not by its values, so its gain is that of the binned X (at most
 * the gain of the values).
 */
export function gainApproximate(attributes: Attributes, input: MetricInput, options: ExploreOptions): string[][] {
  return [...variablesOf(attributes, input)].map(([name, x]) => {
    const continuous = typeof x === 'number' && !attributes.isBinary(x);
    return continuous && options.histograms && attributes.summary.histogram(x)?.mode === 'streaming' ? [name] : [];
  });
}

/** Rows where indicators u and v are both 1 (and both attributes present). */
function jointCount(attributes: Attributes, u: Indicator, v: Indicator): number {
  const m = attributes.summary.comoments(u.index, v.index);
  if (u.complement && v.complement) return m.count - m.sumX - m.sumY + m.sumXY;
  if (u.complement) return m.sumY - m.sumXY;
  if (v.complement) return m.sumX - m.sumXY;
  return m.sumXY;
}

function binaryTable(attributes: Attributes, x: readonly Indicator[], target: readonly Indicator[]): number[][] {
  return x.map((u) => target.map((v) => jointCount(attributes, u, v)));
}

function continuousTable(attributes: Attributes, x: number, target: readonly Indicator[], options: ExploreOptions): number[][] {
  const summary = attributes.summary;
  const histogram = options.histograms ? summary.histogram(x) : undefined;
  const needHistograms = () => new ExploreInputError(`gain of continuous attribute [${attributes.name(x)}] needs histograms`);
  if (histogram === undefined) throw needHistograms();
  const conditionals = target.map((v) => {
    const h = conditionalHistogram(summary, v.index, x);
    if (h === undefined) throw needHistograms();
    return h;
  });
  const { counts } = alignHistograms([histogram, ...conditionals]);
  const [all, ...given] = counts;
  return all.map((n, bin) => target.map((v, k) => (v.complement ? n - given[k][bin] : given[k][bin])));
}

/** Mutual information in bits of the joint count table (rows: values of X, columns: classes of T); NaN when empty. */
function informationGain(table: readonly number[][]): number {
  if (table.length === 0) return NaN;
  const rows = table.map((cells) => cells.reduce((a, b) => a + b, 0));
  const cols = table[0].map((_, k) => table.reduce((a, cells) => a + cells[k], 0));
  const total = rows.reduce((a, b) => a + b, 0);
  if (!(total > 0)) return NaN;
  let g = 0;
  table.forEach((cells, v) => {
    cells.forEach((n, k) => {
      if (n > 0) g += (n / total) * Math.log2(((n / rows[v]) * total) / cols[k]);
    });
  });
  return g;
}

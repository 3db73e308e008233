import { type Attributes, knownValue } from './attributes';
import { chiSquareTails } from './distributions';
import { ExploreInputError } from './errors';
import type { MetricInput, MetricMap } from './types';

export const CHI2_EXPECTED_PREFIX = 'chi2_expected_';

/** Pearson's χ² = Σ(O − E)²/E; NaN if an expected count is 0. */
function pearson(observed: readonly number[], expected: readonly number[]): number {
  let chi = 0;
  observed.forEach((o, k) => {
    chi += (o - expected[k]) ** 2 / expected[k];
  });
  return expected.some((e) => !(e > 0)) ? NaN : chi;
}

/**
 * `chi2` with targets: test of independence on the contingency table rows = inputAttributes,
 * columns = targets, all binary. Cell (i, j) counts the rows where rowᵢ = 1 and colⱼ = 1,
 * Σ bᵢ·bⱼ from the pair co-moments. A side with a single attribute b stands for its two
 * values, b = 1 and b = 0 (the negated line `!b`), so one binary target gives a k × 2 table.
 * E = RC/N, no continuity correction (scipy `chi2_contingency(correction=False)`): `chiStat`,
 * `df` = (r−1)(c−1), `pval`, `coef` = Tschuprow's T = √(χ²/(N√((r−1)(c−1)))), and
 * `obs$<i>:<j>` per cell, `<i>`, `<j>` the project attribute indexes of the row and column
 * (SymetryML's published output, e.g. `obs$10:12`); a negated line is its index behind `!`
 * (`obs$!10:12`, `obs$10:!12`: README "Exploration and survival").
 *
 * `chi2` without targets whose inputs are all the levels of ≥ 2 categorical attributes (what
 * their base names expand to, e.g. `d1 … d5`): test of homogeneity on the table rows = those
 * attributes, columns = the union of their levels (0 where an attribute never took a level),
 * cell = Σ level = rows where attribute = level; same statistics, keys `obs$<base>:<level>`
 * (SymetryML's published dice example, `obs$d1:4`).
 *
 * `chi2` without targets otherwise: goodness of fit of the counts Σb of the binary inputs
 * (levels of one categorical: `resolveAttributes` expands a categorical's name to them)
 * against uniform, or against proportions `chi2_expected_<attribute name>` given for every
 * input (normalized to sum 1, each > 0) (scipy `chisquare`): `chiStat`, `df` = k − 1, `pval`,
 * and `obs$<attribute name>`.
 */
export function chi2(attributes: Attributes, input: MetricInput): MetricMap {
  if (input.targets.length > 0) return contingency(attributes, input);
  const groups = categoricalGroups(attributes, input.inputs);
  return groups === null ? goodnessOfFit(attributes, input) : homogeneity(attributes, groups);
}

/** One line (row or column) of a contingency table: a binary attribute = 1, or (negated) = 0. */
interface Line {
  index: number;
  negated: boolean;
}

/** A single binary attribute on one side stands for its two values: `name` (= 1) and `!name` (= 0). */
function lines(indexes: readonly number[]): Line[] {
  return indexes.length === 1
    ? [{ index: indexes[0], negated: false }, { index: indexes[0], negated: true }]
    : indexes.map((index) => ({ index, negated: false }));
}

function contingency(attributes: Attributes, input: MetricInput): MetricMap {
  for (const i of [...input.inputs, ...input.targets]) attributes.requireBinary(i, 'chi2');
  const rows = lines(input.inputs);
  const cols = lines(input.targets);
  if (rows.length < 2 || cols.length < 2) {
    throw new ExploreInputError(`chi2 needs at least 2 input attributes (rows) and 2 targets (columns), got ${input.inputs.length} × ${input.targets.length}`);
  }
  // Rows where both attributes are present: n, Σr, Σc, Σr·c give all four combinations.
  const cell = (r: Line, c: Line): number => {
    const m = attributes.summary.comoments(r.index, c.index);
    if (!r.negated && !c.negated) return m.sumXY;
    if (!r.negated) return m.sumX - m.sumXY;
    if (!c.negated) return m.sumY - m.sumXY;
    return m.count - m.sumX - m.sumY + m.sumXY;
  };
  const label = (l: Line) => `${l.negated ? '!' : ''}${attributes.projectIndex(l.index)}`;
  const table = rows.map((r) => cols.map((c) => cell(r, c)));
  return tableStatistics(table, rows.map(label), cols.map(label));
}

/** Pearson's χ² of an r × c table, E = RC/N: `chiStat df pval coef` and `obs$<row>:<col>` per cell. */
function tableStatistics(table: readonly number[][], rowLabels: readonly string[], colLabels: readonly string[]): MetricMap {
  const rowSums = table.map((cells) => cells.reduce((a, b) => a + b, 0));
  const colSums = colLabels.map((_, j) => table.reduce((a, cells) => a + cells[j], 0));
  const total = rowSums.reduce((a, b) => a + b, 0);
  const observed = table.flat();
  const expected = rowSums.flatMap((r) => colSums.map((c) => (r * c) / total));
  const chiStat = pearson(observed, expected);
  const df = (rowLabels.length - 1) * (colLabels.length - 1);
  const out: MetricMap = {
    chiStat,
    df,
    pval: chiSquareTails(chiStat, df)[1],
    coef: Math.sqrt(chiStat / (total * Math.sqrt(df))),
  };
  rowLabels.forEach((r, i) => {
    colLabels.forEach((c, j) => {
      out[`obs$${r}:${c}`] = table[i][j];
    });
  });
  return out;
}

/** A categorical attribute of a homogeneity table: its base name and its levels (level text → index). */
interface Group {
  base: string;
  levels: Map<string, number>;
}

/**
 * The inputs as categorical attributes when they are exactly all the levels of ≥ 2 of them
 * (in the order first named), else null (a goodness-of-fit request).
 */
function categoricalGroups(attributes: Attributes, inputs: readonly number[]): Group[] | null {
  const byBase = new Map<string, Group>();
  for (const i of inputs) {
    const base = attributes.base(i);
    const level = attributes.level(i);
    if (base === null || level === null) return null;
    let group = byBase.get(base);
    if (!group) byBase.set(base, (group = { base, levels: new Map() }));
    group.levels.set(level, i);
  }
  if (byBase.size < 2) return null;
  const groups = [...byBase.values()];
  const complete = groups.every((g) => {
    const all = attributes.levels(g.base);
    return all.length === g.levels.size && all.every((i) => [...g.levels.values()].includes(i));
  });
  return complete ? groups : null;
}

/** Test of homogeneity: rows = the categorical attributes, columns = the union of their levels. */
function homogeneity(attributes: Attributes, groups: readonly Group[]): MetricMap {
  const levels = [...new Set(groups.flatMap((g) => [...g.levels.keys()]))].sort(compareLevels);
  const table = groups.map((g) =>
    levels.map((level) => {
      const i = g.levels.get(level);
      return i === undefined ? 0 : attributes.summary.moments(i).sum;
    }),
  );
  return tableStatistics(
    table,
    groups.map((g) => g.base),
    levels,
  );
}

/** Numbers in numeric order, then text in code-point order. */
function compareLevels(a: string, b: string): number {
  const x = Number(a);
  const y = Number(b);
  const numeric = (v: string, n: number) => v.trim() !== '' && Number.isFinite(n);
  if (numeric(a, x) && numeric(b, y)) return x - y || (a < b ? -1 : a > b ? 1 : 0);
  if (numeric(a, x) !== numeric(b, y)) return numeric(a, x) ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function goodnessOfFit(attributes: Attributes, input: MetricInput): MetricMap {
  const categories = input.inputs;
  if (categories.length < 2) throw new ExploreInputError(`chi2 without targets needs at least 2 categories, got ${categories.length}`);
  for (const i of categories) attributes.requireBinary(i, 'chi2');
  const observed = categories.map((i) => attributes.summary.moments(i).sum);
  const total = observed.reduce((a, b) => a + b, 0);
  const proportions = expectedProportions(categories.map((i) => attributes.name(i)), input.extra);
  const chiStat = pearson(
    observed,
    proportions.map((p) => p * total),
  );
  const df = categories.length - 1;
  const out: MetricMap = { chiStat, df, pval: chiSquareTails(chiStat, df)[1] };
  categories.forEach((i, k) => {
    out[`obs$${attributes.name(i)}`] = observed[k];
  });
  return out;
}

/** Uniform unless some `chi2_expected_*` is given; then every category needs a positive one. */
function expectedProportions(names: readonly string[], extra: Readonly<Record<string, string>>): number[] {
  if (!Object.keys(extra).some((key) => key.startsWith(CHI2_EXPECTED_PREFIX))) return names.map(() => 1 / names.length);
  const weights = names.map((name) => {
    const key = CHI2_EXPECTED_PREFIX + name;
    const w = knownValue(extra, key);
    if (!(w > 0)) throw new ExploreInputError(`extra parameter ${key} must be a positive proportion, not [${extra[key]}]`);
    return w;
  });
  const sum = weights.reduce((a, b) => a + b, 0);
  return weights.map((w) => w / sum);
}

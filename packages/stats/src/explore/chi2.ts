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
 * values, b = 1 and b = 0 (labelled `!b`), so one binary target gives a k × 2 table. E = RC/N, no continuity correction (scipy
 * `chi2_contingency(correction=False)`): `chiStat`, `df` = (r−1)(c−1), `pval`, `coef` =
 * Tschuprow's T = √(χ²/(N√((r−1)(c−1)))), and `obs$<row>:<col>` per cell.
 *
 * `chi2` without targets: goodness of fit of the counts Σb of the binary inputs (levels of a
 * categorical: `resolveAttributes` expands a categorical's name to them) against uniform, or against proportions
 * `chi2_expected_<attribute name>` given for every input (normalized to sum 1, each > 0)
 * (scipy `chisquare`): `chiStat`, `df` = k − 1, `pval`, and `obs$<attribute name>`.
 */
export function chi2(attributes: Attributes, input: MetricInput): MetricMap {
  return input.targets.length > 0 ? contingency(attributes, input) : goodnessOfFit(attributes, input);
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
  const label = (l: Line) => `${l.negated ? '!' : ''}${attributes.name(l.index)}`;
  const table = rows.map((r) => cols.map((c) => cell(r, c)));
  const rowSums = table.map((cells) => cells.reduce((a, b) => a + b, 0));
  const colSums = cols.map((_, j) => table.reduce((a, cells) => a + cells[j], 0));
  const total = rowSums.reduce((a, b) => a + b, 0);
  const observed = table.flat();
  const expected = rowSums.flatMap((r) => colSums.map((c) => (r * c) / total));
  const chiStat = pearson(observed, expected);
  const df = (rows.length - 1) * (cols.length - 1);
  const out: MetricMap = {
    chiStat,
    df,
    pval: chiSquareTails(chiStat, df)[1],
    coef: Math.sqrt(chiStat / (total * Math.sqrt(df))),
  };
  rows.forEach((r, i) => {
    cols.forEach((c, j) => {
      out[`obs$${label(r)}:${label(c)}`] = table[i][j];
    });
  });
  return out;
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

import type { Histogram } from '../histogram';
import type { Summary } from '../summary';
import { Attributes } from './attributes';
import { ExploreInputError } from './errors';
import { conditionalHistogram } from './histograms';

export const DEFAULT_DENSITY_BINS = 20;

export interface DensityOptions {
  /** `hist_bins` (default 20). */
  bins?: number;
  /** `hist_is_normalized`. */
  normalized?: boolean;
}

export interface DensityResult {
  attrName: string;
  min: number;
  max: number;
  width: number;
  histogram: number[];
  valueForMissing: number;
  /** The keys that are approximate (DENSITY_APPROXIMATE), only when they are: from a streaming histogram. */
  approximate?: string[];
}

/**
 * What a density from a streaming histogram gives approximately: min/max bounded by the
 * occupied bins' edges (and the width with them), counts split over the output bins.
 */
export const DENSITY_APPROXIMATE = ['min', 'max', 'width', 'histogram'];

/**
 * `densityEstimate` (STATS.md §3): the attribute's stored histogram redistributed over `bins`
 * equal-width bins on [min, max] (edges min + j·width, the last bin closed: numpy
 * `histogram(values, bins, range=(min, max))`), with min/max as `Summary.min/max`.
 *
 * - An exact histogram's values go to the bin that contains them: exact counts.
 * - A streaming bin [lo, hi) holds values somewhere in [max(lo, min), min(hi, max)]; its count
 *   is split over the output bins in proportion to the length of that interval each one
 *   covers (uniform within the stored bin), so counts may be fractional. A stored bin inside
 *   one output bin stays whole.
 * - A constant attribute (min = max) has width 0 and everything in the first bin; an
 *   attribute without values has NaN min/max/width and a zero histogram.
 *
 * valueForMissing is the number of rows where the attribute is missing. Normalized: the
 * histogram holds fractions of the present values (summing to 1 by itself) and
 * valueForMissing the fraction of rows that are missing.
 */
export function densityEstimate(summary: Summary, attribute: number, options: DensityOptions = {}): DensityResult {
  const attributes = new Attributes(summary);
  attributes.check([attribute]);
  const histogram = summary.histogram(attribute);
  if (histogram === undefined) throw new ExploreInputError('histograms are not enabled');
  return result(attributes.name(attribute), summary.min(attribute), summary.max(attribute), histogram, summary.missing(attribute), summary.rowCount, options);
}

/**
 * `conditionalDensityEstimate`: the density of t over the rows where binary c = 1
 * (`Summary.conditionalHistogram(c, t)`), on t's overall [min, max], as densityEstimate.
 * attrName `conditional_pair[<c>,<t>]`; valueForMissing counts the rows where c = 1 and t is
 * missing (normalized: as a fraction of the rows where c = 1).
 */
export function conditionalDensityEstimate(summary: Summary, conditional: number, target: number, options: DensityOptions = {}): DensityResult {
  const attributes = new Attributes(summary);
  attributes.check([conditional, target]);
  attributes.requireBinary(conditional, 'conditionalDensityEstimate');
  const histogram = conditionalHistogram(summary, conditional, target);
  if (histogram === undefined) throw new ExploreInputError('histograms are not enabled');
  const rows = summary.moments(conditional).sum;
  const present = summary.comoments(conditional, target).sumX;
  const name = `conditional_pair[${attributes.name(conditional)},${attributes.name(target)}]`;
  return result(name, summary.min(target), summary.max(target), histogram, rows - present, rows, options);
}

function result(attrName: string, min: number, max: number, histogram: Histogram, missing: number, rows: number, options: DensityOptions): DensityResult {
  const bins = options.bins ?? DEFAULT_DENSITY_BINS;
  if (!Number.isInteger(bins) || bins < 1) throw new ExploreInputError(`hist_bins must be a positive integer, not [${bins}]`);
  const counts = redistribute(histogram, bins, min, max);
  const present = histogram.count;
  const normalized = options.normalized === true;
  return {
    attrName,
    min,
    max,
    width: (max - min) / bins,
    histogram: normalized ? counts.map((c) => (present > 0 ? c / present : 0)) : counts,
    valueForMissing: normalized ? (rows > 0 ? missing / rows : 0) : missing,
    ...(histogram.mode === 'streaming' ? { approximate: [...DENSITY_APPROXIMATE] } : {}),
  };
}

/** The histogram's counts on `bins` equal-width bins over [lower, upper], the last bin closed. */
export function redistribute(histogram: Histogram, bins: number, lower: number, upper: number): number[] {
  const out = new Array<number>(bins).fill(0);
  if (!(upper >= lower)) return out;
  const width = (upper - lower) / bins;
  const edge = (j: number) => (j === bins ? upper : lower + j * width);
  // numpy's rule: the j with edge(j) ≤ v < edge(j + 1), the last bin closed.
  const binOf = (v: number) => {
    if (width === 0) return 0;
    let j = Math.min(bins - 1, Math.max(0, Math.floor((v - lower) / width)));
    while (j > 0 && v < edge(j)) j--;
    while (j < bins - 1 && v >= edge(j + 1)) j++;
    return j;
  };
  const exact = histogram.mode === 'exact';
  for (const bin of histogram.toBins()) {
    const lo = Math.max(bin.lower, lower);
    const hi = Math.min(bin.upper, upper);
    if (exact || !(hi > lo)) {
      out[binOf(Math.min(upper, lo))] += bin.count;
      continue;
    }
    const first = binOf(lo);
    const last = binOf(hi);
    let assigned = 0;
    for (let j = first; j <= last; j++) {
      const share = j === last ? bin.count - assigned : (bin.count * (Math.min(hi, edge(j + 1)) - Math.max(lo, edge(j)))) / (hi - lo);
      out[j] += share;
      assigned += share;
    }
  }
  return out;
}

import { type ClusterOptions, clusterOptionsProblem } from './models/kmeans/micro-clusters';
import { SummaryError } from './errors';
import { type ForestOptions, canonicalForestOptions, forestOptionsProblem } from './models/forest/mondrian';
import { DEFAULT_EXACT_HISTOGRAM_CAP, DEFAULT_HISTOGRAM_BINS, type HistogramMode } from './histogram';
import { type PowerOptions, powerOptionsProblem } from './models/powerreg/power-columns';
import type { SequenceLayout } from './models/sequence/counts';

/** Default attribute limit per project (API.md §1, Limits). */
export const DEFAULT_MAX_ATTRIBUTES = 2000;

/**
 * How a summary is built. Names follow the project parameters of API.md §4 where one
 * exists (`partitionSplit`, `km_*`); `sequenceOrder` is `sml_project_order`.
 */
export interface SummaryOptions {
  /** Separator of expanded categorical names `<name><separator><value>` (default `$`). */
  categorySeparator?: string;
  /** Attributes (after categorical expansion) the summary may hold (default 2000). */
  maxAttributes?: number;
  /** Per-attribute histograms; none when undefined. */
  histogram?: HistogramMode;
  /**
   * With histograms: also keep, for every binary attribute c, the histogram of every other
   * attribute over the rows where c = 1 (conditional density, gain of continuous inputs).
   * Default true; their size grows with (binary attributes × attributes × bins).
   */
  conditionalHistograms?: boolean;
  /** Bins of a streaming histogram (default 256). */
  histogramBins?: number;
  /** Distinct values an exact histogram holds before it degrades to streaming (default 10 000). */
  exactHistogramCap?: number;
  /** Keep one full sub-summary per value of this column. */
  partitionSplit?: string;
  km_time_column?: string;
  km_event_column?: string;
  km_group_column?: string;
  /** Keep sequence counts of this order (≥ 1). */
  sequenceOrder?: number;
  /** Default `steps`. */
  sequenceLayout?: SequenceLayout;
  /** Keep online micro-clusters over these features (`cluster_*` project parameters, models/kmeans/micro-clusters.ts). */
  clusters?: ClusterOptions;
  /** Keep an online Mondrian forest (`rf_*` project parameters, models/forest/mondrian.ts). */
  forest?: ForestOptions;
  /** Track the Yeo-Johnson power columns of this column (`sml_project_power_*` project parameters, models/powerreg/power-columns.ts). */
  power?: PowerOptions;
}

/** Options with defaults filled in and keys in a fixed order, so equal options serialize equally. */
export type ResolvedOptions = SummaryOptions & {
  readonly categorySeparator: string;
  readonly maxAttributes: number;
  readonly histogramBins: number;
  readonly exactHistogramCap: number;
};

export function resolveOptions(options: SummaryOptions): ResolvedOptions {
  const invalid = (what: string) => new SummaryError('summary-input', `invalid summary option: ${what}`);
  const positiveInteger = (v: unknown, min: number) => typeof v === 'number' && Number.isInteger(v) && v >= min;
  const name = (v: unknown) => v === undefined || (typeof v === 'string' && v !== '');

  const resolved: ResolvedOptions = {
    categorySeparator: options.categorySeparator ?? '$',
    maxAttributes: options.maxAttributes ?? DEFAULT_MAX_ATTRIBUTES,
    histogramBins: options.histogramBins ?? DEFAULT_HISTOGRAM_BINS,
    exactHistogramCap: options.exactHistogramCap ?? DEFAULT_EXACT_HISTOGRAM_CAP,
  };
  if (typeof resolved.categorySeparator !== 'string' || resolved.categorySeparator === '') throw invalid('categorySeparator must be a non-empty string');
  if (!positiveInteger(resolved.maxAttributes, 1)) throw invalid('maxAttributes must be an integer ≥ 1');
  if (!positiveInteger(resolved.histogramBins, 2)) throw invalid('histogramBins must be an integer ≥ 2');
  if (!positiveInteger(resolved.exactHistogramCap, 1)) throw invalid('exactHistogramCap must be an integer ≥ 1');
  if (options.histogram !== undefined) {
    if (options.histogram !== 'streaming' && options.histogram !== 'exact') throw invalid(`histogram must be streaming or exact, not ${String(options.histogram)}`);
    resolved.histogram = options.histogram;
  }
  // Only `false` is recorded, so summaries with the default serialize as before.
  if (options.conditionalHistograms === false) resolved.conditionalHistograms = false;
  if (!name(options.partitionSplit)) throw invalid('partitionSplit must be a column name');
  if (options.partitionSplit !== undefined) resolved.partitionSplit = options.partitionSplit;

  const km = [options.km_time_column, options.km_event_column, options.km_group_column];
  if (!km.every(name)) throw invalid('km_* options must be column names');
  if ((options.km_time_column === undefined) !== (options.km_event_column === undefined)) {
    throw invalid('km_time_column and km_event_column go together');
  }
  if (options.km_group_column !== undefined && options.km_time_column === undefined) throw invalid('km_group_column needs km_time_column and km_event_column');
  if (options.km_time_column !== undefined) {
    resolved.km_time_column = options.km_time_column;
    resolved.km_event_column = options.km_event_column;
    if (options.km_group_column !== undefined) resolved.km_group_column = options.km_group_column;
  }

  if (options.sequenceOrder !== undefined) {
    if (!positiveInteger(options.sequenceOrder, 1)) throw invalid(`sequenceOrder must be an integer ≥ 1, not ${String(options.sequenceOrder)}`);
    const layout = options.sequenceLayout ?? 'steps';
    if (layout !== 'steps' && layout !== 'rows') throw invalid(`sequenceLayout must be steps or rows, not ${String(layout)}`);
    resolved.sequenceOrder = options.sequenceOrder;
    resolved.sequenceLayout = layout;
  } else if (options.sequenceLayout !== undefined) {
    throw invalid('sequenceLayout needs sequenceOrder');
  }
  if (options.clusters !== undefined) {
    const c = options.clusters;
    const problem = clusterOptionsProblem(c);
    if (problem !== null) throw invalid(problem);
    resolved.clusters = { features: [...c.features], centroids: c.centroids, warmup: c.warmup };
  }
  if (options.forest !== undefined) {
    const problem = forestOptionsProblem(options.forest);
    if (problem !== null) throw invalid(problem);
    resolved.forest = canonicalForestOptions(options.forest);
  }
  if (options.power !== undefined) {
    const problem = powerOptionsProblem(options.power);
    if (problem !== null) throw invalid(problem);
    const { column, min, max, steps } = options.power;
    resolved.power = { column, min, max, steps };
  }
  return resolved;
}

/** A partition's sub-summary: the same attributes and histograms, without partitions, survival or sequences. */
export function partitionOptions(options: ResolvedOptions): ResolvedOptions {
  return resolveOptions({
    categorySeparator: options.categorySeparator,
    maxAttributes: options.maxAttributes,
    ...(options.histogram !== undefined ? { histogram: options.histogram } : {}),
    ...(options.conditionalHistograms === false ? { conditionalHistograms: false } : {}),
    histogramBins: options.histogramBins,
    exactHistogramCap: options.exactHistogramCap,
  });
}

/**
 * What a summary shared with other parties is built with (Summary.shareable): the same
 * attributes, histograms as streaming bins and partitions, and none of the parts that are not
 * moments (survival and sequence counts, micro-clusters, forest, power columns' Jacobian).
 */
export function shareableOptions(options: ResolvedOptions): ResolvedOptions {
  return resolveOptions({
    ...partitionOptions(options),
    ...(options.histogram !== undefined ? { histogram: 'streaming' } : {}),
    ...(options.partitionSplit !== undefined ? { partitionSplit: options.partitionSplit } : {}),
  });
}

import type { SmlClient } from '@sml/sdk';
import { isIndex } from './args';
import { CliError } from './errors';

// The REST calls of API.md §6 (exploration) and §8 (survival), and the shapes they answer.

/** MLContext (API.md §1): attributes by index (as strings) or by name. */
export interface MLContext {
  inputAttributes?: string[];
  inputAttributeNames?: string[];
  targets?: string[];
  targetAttributeNames?: string[];
  extraParameters: Record<string, string>;
}

/** A result number; NaN and ±Infinity arrive as the strings "NaN", "Infinity", "-Infinity" (API.md §1). */
export type Num = number | string;

export interface Density {
  attrName: string;
  min: Num;
  max: Num;
  width: Num;
  histogram: Num[];
  valueForMissing: Num;
}

export interface Bin {
  lower: number;
  upper: number;
  count: number;
}

/** DataFrame (API.md §1) as a survival answer carries it: every cell a string. */
export interface Frame {
  attributeNames: string[];
  attributeTypes: string[];
  data: string[][];
}

/** Group (or `Total`) → its curve. */
export type GroupFrames = Record<string, Frame>;

export interface Pca {
  attributeNames: string[];
  pcaVectors: Num[][];
  pcaValues: Num[];
  pcaSumValues: Num[];
}

export interface Svd {
  attributeNames: string[];
  singularValues: Num[];
  u: Num[][];
  v: Num[][];
}

export type MatrixKind = 'pca' | 'svd' | 'vif' | 'svdfs';

/** The finished job's `values` per kind (STATS.md §3). */
export interface MatrixResult {
  pcaList?: Pca[];
  svdList?: Svd[];
  KSVDMap?: { values: Array<Record<string, Num>> };
  KSVSMap?: { values: Array<Record<string, string>> };
}

export const MATRIX_PATHS: Record<MatrixKind, 'explorepca' | 'exploresvd' | 'vif' | 'exploresvdfs'> = { pca: 'explorepca', svd: 'exploresvd', vif: 'vif', svdfs: 'exploresvdfs' };

const flag = (name: string, on: boolean | undefined): Record<string, string> => (on ? { [name]: 'true' } : {});

/** One MLContext; a list of digits only is indexes (`inputAttributes`), anything else names. */
export function mlContext(inputs: string[], targets: string[] = [], extraParameters: Record<string, string> = {}): MLContext {
  const ctx: MLContext = { extraParameters };
  if (inputs.length > 0) ctx[inputs.every(isIndex) ? 'inputAttributes' : 'inputAttributeNames'] = inputs;
  if (targets.length > 0) ctx[targets.every(isIndex) ? 'targets' : 'targetAttributeNames'] = targets;
  return ctx;
}

/**
 * One MLContext per `--inputs`. `--targets` given once applies to every one of them;
 * otherwise it must be given once per `--inputs`, paired in order.
 */
export function mlContexts(inputs: string[][], targets: string[][] | undefined, extraParameters: Record<string, string> = {}): MLContext[] {
  const t = targets ?? [];
  if (t.length > 1 && t.length !== inputs.length) {
    throw new CliError(`--targets is given ${t.length} times for ${inputs.length} --inputs: give it once (the same targets for all) or once per --inputs`);
  }
  return inputs.map((list, i) => mlContext(list, t.length === 1 ? t[0] : t[i], extraParameters));
}

/** `[min, max]` cut into `histogram.length` bins of `width`, the last one ending exactly at max. */
export function densityBins(d: Density): Bin[] {
  const [min, max, width] = [Number(d.min), Number(d.max), Number(d.width)];
  return d.histogram.map((count, i) => ({
    lower: min + i * width,
    upper: i === d.histogram.length - 1 ? max : min + (i + 1) * width,
    count: Number(count),
  }));
}

export function explore(client: SmlClient, pid: string, metric: string, contexts: MLContext[], options: { async?: boolean; useLocal?: boolean }) {
  const query = { metric, ...flag('async', options.async), ...flag('useLocal', options.useLocal) };
  return client.operations.explore<{ KSVDMap?: { values: Array<Record<string, Num>> } }>(pid, { query, json: { values: contexts } });
}

/** `dataDrift` of `analysis` from `baseline` by `metric`, over the attributes of `inputs` (none: every attribute both have). */
export function dataDrift(client: SmlClient, baseline: string, analysis: string, metric: string, inputs: string[] | undefined, extraParameters: Record<string, string> = {}) {
  const context = mlContext(inputs ?? [], undefined, { ...extraParameters, driftPreferenceProjectName: baseline, driftAnalysisProjectName: analysis, driftMetric: metric });
  return client.operations.dataDrift<{ KSVDMap?: { values: Array<Record<string, Num>> } }>({ json: context });
}

/** `densityEstimate`, or `conditionalDensityEstimate` when the context names [conditional, target]. */
export function density(client: SmlClient, pid: string, context: MLContext, options: { conditional: boolean; useLocal?: boolean }) {
  const op = options.conditional ? 'conditionalDensityEstimate' : 'densityEstimate';
  return client.operations[op]<{ densityList: { values: Density[] } }>(pid, { query: flag('useLocal', options.useLocal), json: { values: [context] } });
}

export function kaplanMeier(client: SmlClient, pid: string, query: { times: number[]; group?: string; alpha?: number }) {
  return client.operations.kaplanMeier<{ kmResultList: { values: GroupFrames[] } }>(pid, { json: { values: [{ type: 'survival', ...query }] } });
}

export function cumulativeIncidence(client: SmlClient, pid: string, query: { k: number; times: number[]; group?: string }) {
  return client.operations.cumulativeIncidence<{ cifPredictionList: { values: Array<{ sdfmap: GroupFrames }> } }>(pid, { json: { values: [query] } });
}

/** Submits a matrix exploration; it always runs as a job (202 + `sym-job-id`). */
export function submitMatrix(client: SmlClient, pid: string, kind: MatrixKind, contexts: MLContext[], options: { useLocal?: boolean }) {
  return client.operations[MATRIX_PATHS[kind]](pid, { query: flag('useLocal', options.useLocal), json: { values: contexts } });
}

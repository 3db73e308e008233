import { createReadStream } from 'node:fs';
import type { RestDataFrame } from '@sml/core';
import type { SmlClient, SmlResponse } from '@sml/sdk';
import { csvRecords } from './csv';
import { frameBatches, type FrameBatch } from './frames';
import type { MLContext, Num } from './exploration';
import { cell, fields, keyValues, table } from './table';

// The REST calls of API.md §7 (models) and the shapes they answer.

/** `values.modelInfo` of a built model. */
export interface ModelInfo {
  modelId: string;
  algo: string;
  inputAttributeNames: string[];
  targetAttributeNames: string[];
  info: Record<string, string>;
  extra: Record<string, string>;
  /** Assessment on the selectModel dataframe (STATS.md §4); NaN arrives as "NaN". */
  assessment: Record<string, Num>;
  params: Record<string, string>;
  creationDate: number;
}

export interface ModelReply {
  modelInfo: ModelInfo;
}

/** One string map per predicted row, keys per algorithm (STATS.md §4). */
export interface Predictions {
  KSVSMap: { values: Array<Record<string, string>> };
}

/** `POST /projects/{p}/build`: builds from the given inputs, as a job. */
export function submitBuild(client: SmlClient, pid: string, modelId: string, algo: string, context: MLContext) {
  return client.operations.buildModel(pid, { query: { modelid: modelId, algo }, json: context });
}

/** `POST /projects/{p}/selectModel`: feature selection scored on `dataframe` (`selector_type`), as a job. */
export function submitSelect(client: SmlClient, pid: string, modelId: string, algo: string, context: MLContext, dataframe: RestDataFrame) {
  return client.operations.selectModel(pid, { query: { modelid: modelId, algo }, json: { mlcontext: context, dataframe } });
}

/**
 * `POST /projects/{p}/autoSelect` (scored on `dataframe`) or `autoSelect/{ds}` (scored on a data
 * source's rows, the body the MLContext alone): every algorithm of `task` × grid × input subsets, as a job.
 */
export function submitAutoSelect(client: SmlClient, pid: string, modelId: string, task: string, context: MLContext, scoring: { dataframe: RestDataFrame } | { ds: string }) {
  return 'ds' in scoring
    ? client.operations.autoSelectOnDataSource(pid, scoring.ds, { query: { modelid: modelId, task }, json: context })
    : client.operations.autoSelect(pid, { query: { modelid: modelId, task }, json: { mlcontext: context, dataframe: scoring.dataframe } });
}

export function modelInfo(client: SmlClient, pid: string, modelId: string) {
  return client.operations.modelInfo<ModelReply>(pid, modelId);
}

export function deleteModel(client: SmlClient, pid: string, modelId: string) {
  return client.operations.deleteModel(pid, modelId);
}

export function predict(client: SmlClient, pid: string, modelId: string, frame: RestDataFrame) {
  return client.operations.predict<Predictions>(pid, modelId, { json: frame });
}

/**
 * Predicts the data rows of a CSV file (header first), `batch` rows per request, in order:
 * each request's batch with its answer; the caller stops at a failed one.
 */
export async function* predictFile(client: SmlClient, pid: string, modelId: string, path: string, types: string[], batch: number): AsyncGenerator<FrameBatch & { res: SmlResponse<Predictions> }> {
  const records = csvRecords(createReadStream(path, { encoding: 'utf8' }));
  for await (const b of frameBatches(records, { types, batchSize: batch, errorHandling: 0 })) yield { ...b, res: await predict(client, pid, modelId, b.frame) };
}

/** A modelInfo as blocks: its identity, then assessment, info and extra as key/value tables (empty ones left out). */
export function describeModel(m: ModelInfo): string {
  const identity = fields({
    modelId: m.modelId,
    algo: m.algo,
    inputs: (m.inputAttributeNames ?? []).join(','),
    targets: (m.targetAttributeNames ?? []).join(','),
    created: m.creationDate > 0 ? new Date(m.creationDate).toISOString() : '',
  });
  const blocks: Array<[string, Record<string, unknown> | undefined]> = [['ASSESSMENT', m.assessment], ['INFO', m.info], ['EXTRA', m.extra]];
  return [identity, ...blocks.filter(([, map]) => map && Object.keys(map).length > 0).map(([title, map]) => keyValues(map!, [title, 'VALUE']))].join('\n\n');
}

/**
 * Predictions as one table: a ROW column (1-based data row of the CSV file), then every key
 * in order of first appearance (the keys of one model are the same on every row).
 */
export function predictionTable(rows: Array<{ row: number; values: Record<string, string> }>): string {
  const keys: string[] = [];
  for (const { values } of rows) for (const k of Object.keys(values)) if (!keys.includes(k)) keys.push(k);
  return table(['ROW', ...keys], rows.map(({ row, values }) => [String(row), ...keys.map((k) => cell(values[k]))]));
}

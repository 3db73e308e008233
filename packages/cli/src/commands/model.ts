import { createReadStream } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import type { RestDataFrame } from '@sml/core';
import type { SmlClient, SmlResponse } from '@sml/sdk';
import { attributeList, isIndex, keyValue, positiveInt, positiveSeconds, typeCodes } from '../args';
import { action, type CommandContext } from '../command';
import { csvRecords } from '../csv';
import { CliError } from '../errors';
import { mlContext, type MLContext } from '../exploration';
import { frameBatches } from '../frames';
import { isSuccess, type Output } from '../io';
import { deleteModel, describeModel, modelInfo, predict, predictionTable, submitAutoSelect, submitBuild, submitSelect, type ModelInfo, type ModelReply } from '../models';
import { followJob, jobCreated, restClient } from '../rest';
import { csvHeader, projectTypes } from '../schema';
import { readDocument, saveDocument } from '../documents';
import { cell, table } from '../table';

const SELECTORS = ['none', 'fw_bw', 'simple', 'brute', 'iteration'];
/** autoSelect's tasks (both documented binary spellings) and parameter grids (packages/stats AUTOSELECT_TASKS, AUTOSELECT_GRID_TYPES). */
const TASKS = ['binary_classification', 'binary_classifier', 'regression', 'multiclass_classifier'];
const GRIDS = ['tiny', 'small', 'normal', 'large'];

function task(value: string): string {
  if (!TASKS.includes(value)) throw new InvalidArgumentError(`expected one of ${TASKS.join(', ')}`);
  return value;
}

/** `small` or `autoselect_grid_type_small` → `autoselect_grid_type_small`. */
function gridType(value: string): string {
  const short = value.startsWith('autoselect_grid_type_') ? value.slice('autoselect_grid_type_'.length) : value;
  if (!GRIDS.includes(short)) throw new InvalidArgumentError(`expected one of ${GRIDS.join(', ')}`);
  return `autoselect_grid_type_${short}`;
}

/** sym-rest-rc's `--params k1=v1,k2=v2`: every pair into the map, as repeated --param would. */
function keyValues(value: string, previous: Record<string, string> = {}): Record<string, string> {
  return value.split(',').reduce((map, pair) => keyValue(pair.trim(), map), previous);
}

/** `fw_bw` or `selector_type_fw_bw` → `selector_type_fw_bw`. */
function selectorType(value: string): string {
  const short = value.startsWith('selector_type_') ? value.slice('selector_type_'.length) : value;
  if (!SELECTORS.includes(short)) throw new InvalidArgumentError(`expected one of ${SELECTORS.join(', ')}`);
  return `selector_type_${short}`;
}

function integer(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isSafeInteger(n)) throw new InvalidArgumentError('expected an integer');
  return n;
}

/** Every --inputs (or --targets) occurrence as one list, all names or all indexes. */
function oneList(lists: string[][] | undefined, option: string): string[] {
  const list = (lists ?? []).flat();
  const indexes = list.filter(isIndex).length;
  if (indexes > 0 && indexes < list.length) throw new CliError(`${option} mixes attribute indexes and names; give all of them one way`);
  return list;
}

/**
 * extraParameters: the --param pairs plus the options that name a parameter; the same
 * parameter given both ways with different values is refused.
 */
function extraParameters(params: Record<string, string> = {}, named: Record<string, string | number | undefined> = {}): Record<string, string> {
  const out = { ...params };
  for (const [key, value] of Object.entries(named)) {
    if (value === undefined) continue;
    if (out[key] !== undefined && out[key] !== String(value)) throw new CliError(`${key} is given twice: --param ${key}=${out[key]} and ${value}`);
    out[key] = String(value);
  }
  return out;
}

/** The whole CSV file (header row first) as one DataFrame. */
async function readFrame(path: string, types: string[]): Promise<RestDataFrame> {
  const records = csvRecords(createReadStream(path, { encoding: 'utf8' }));
  for await (const { frame } of frameBatches(records, { types, batchSize: Number.POSITIVE_INFINITY, errorHandling: 0 })) return frame;
  throw new CliError(`${path} has a header row but no data rows`);
}

/** `--val-df`: a DataFrame given as JSON text. */
function parseDataFrame(json: string): RestDataFrame {
  let frame: unknown;
  try {
    frame = JSON.parse(json);
  } catch (err) {
    throw new CliError(`--val-df is not JSON: ${(err as Error).message}`);
  }
  const f = frame as Partial<RestDataFrame> | null;
  if (f === null || typeof f !== 'object' || !Array.isArray(f.attributeNames) || !Array.isArray(f.data)) {
    throw new CliError('--val-df must be a DataFrame: {"attributeNames": [...], "attributeTypes": [...], "data": [[...], ...]}');
  }
  return { ...f, attributeTypes: f.attributeTypes ?? f.attributeNames.map(() => 'C') } as RestDataFrame;
}

/** Without --types, every column of the CSV file is C (sym-rest-rc sends its validation file so). */
async function headerTypes(path: string): Promise<string[]> {
  return (await csvHeader(path)).map(() => 'C');
}

interface JobOptions {
  wait: boolean;
  timeout: number;
}

/** Follows a build or selectModel job to its end and prints the model, or prints the job id with --no-wait. */
async function finish(out: Output, client: SmlClient, submitted: SmlResponse<unknown>, opts: JobOptions): Promise<number> {
  if (!isSuccess(submitted.status) || !opts.wait) return out.envelope(submitted.body, () => jobCreated(submitted));
  const res = await followJob<ModelReply>(out, client, submitted, opts.timeout);
  return out.envelope(res.body, (v) => describeModel(v.modelInfo));
}

/** The leaderboard of an autoSelect (`extra.leaderboard`, JSON) as a table, best first; empty when absent. */
function leaderboard(m: ModelInfo): string {
  let entries: Array<{ algo: string; params: Record<string, string>; inputs: string[]; score: number }>;
  try {
    entries = JSON.parse(m.extra?.leaderboard ?? '[]') as typeof entries;
  } catch {
    return '';
  }
  if (!Array.isArray(entries) || entries.length === 0) return '';
  const rows = entries.map((e, k) => [String(k + 1), e.algo, Object.entries(e.params ?? {}).map(([key, v]) => `${key}=${v}`).join(','), cell(e.score), (e.inputs ?? []).join(',')]);
  return table(['RANK', 'ALGO', 'PARAMS', 'SCORE', 'INPUTS'], rows);
}

interface ContextOptions {
  algo: string;
  inputs: string[][];
  targets?: string[][];
  param?: Record<string, string>;
}

const context = (opts: ContextOptions, named?: Record<string, string | number | undefined>): MLContext =>
  mlContext(oneList(opts.inputs, '--inputs'), oneList(opts.targets, '--targets'), extraParameters(opts.param, named));

/** `sml model build|select|info|list|predict|export|import|delete`: models of a project, over REST (API.md §7). */
export function registerModel(program: Command, ctx: CommandContext): void {
  const model = program.command('model').description("a project's models: build, select inputs, predict (REST: SML_URL, SML_USER, SML_SECRET)");
  const common = (c: Command) => c
    .argument('<pid>', 'project id')
    .argument('<modelid>', 'model id (an existing model of that id is replaced)')
    .requiredOption('--algo <algo>', 'algorithm, e.g. mlr, lr, lda, covest (all: docs/algorithms.md)')
    .requiredOption('--inputs <attributes>', 'input attributes, all names or all indexes, e.g. x1,x2 or 0,1', attributeList)
    .option('--param <key=value>', 'extraParameters entry, repeatable (e.g. lambda=0.5)', keyValue)
    .option('--no-wait', 'print the job id instead of waiting for the model')
    .option('--timeout <seconds>', 'give up waiting for the job after this long', positiveSeconds, 600);

  common(model.command('build').description('build a model from the given inputs (a job), waited for; prints its modelInfo'))
    .option('--targets <attributes>', 'target attributes, all names or all indexes', attributeList)
    .action(action(ctx, async (out, pid: string, modelId: string, opts: ContextOptions & JobOptions) => {
      const client = restClient(ctx.io.env);
      return finish(out, client, await submitBuild(client, pid, modelId, opts.algo, context(opts)), opts);
    }));

  common(model.command('select').description('select the inputs that score best on a CSV file of scoring rows (selectModel, a job), waited for; prints the chosen model and its assessment'))
    .requiredOption('--targets <attributes>', 'target attributes, all names or all indexes', attributeList)
    .requiredOption('--data <csv>', 'CSV file (header row first) of scoring rows, with the inputs and targets')
    .requiredOption('--types <codes>', 'attribute type codes of the CSV columns, e.g. C,C,B', typeCodes)
    .option('--selector <type>', `selector_type: ${SELECTORS.join(', ')} (server default: none)`, selectorType)
    .option('--criterion <name>', 'sml_model_assessment_type: rmse, mae, r2 | auc, accuracy, precision, recall, f1, mcc | accuracy, f1_macro, kappa')
    .option('--iterations <n>', 'selector_iterations of the iteration selector (server default: 50)', positiveInt)
    .option('--seed <n>', 'selector_seed of the iteration selector', integer)
    .action(action(ctx, async (out, pid: string, modelId: string, opts: ContextOptions & JobOptions & {
      data: string; types: string[]; selector?: string; criterion?: string; iterations?: number; seed?: number;
    }) => {
      const client = restClient(ctx.io.env);
      const mlcontext = context(opts, {
        selector_type: opts.selector, sml_model_assessment_type: opts.criterion, selector_iterations: opts.iterations, selector_seed: opts.seed,
      });
      const dataframe = await readFrame(opts.data, opts.types);
      return finish(out, client, await submitSelect(client, pid, modelId, opts.algo, mlcontext, dataframe), opts);
    }));

  model
    .command('autoselect')
    .description('try every algorithm of a task × the parameter grid × input subsets, scored on validation rows (autoSelect, a job), waited for; prints the winner and the leaderboard. Flags as sym-rest-rc\'s `model autoselect`')
    .argument('<pid>', 'project id')
    .argument('<modelid>', 'model id of the winner (an existing model of that id is replaced)')
    .requiredOption('--task <task>', `${TASKS.join(', ')}`, task)
    .option('--inputs <attributes>', 'input attributes, all names or all indexes (server default: every attribute but the targets)', attributeList)
    .option('--input-names <names>', 'input attribute names (sym-rest-rc\'s spelling; joins --inputs)', attributeList)
    .option('--targets <attributes>', 'target attributes, all names or all indexes', attributeList)
    .option('--target-names <names>', 'target attribute names (sym-rest-rc\'s spelling; joins --targets)', attributeList)
    .option('--val-file <csv>', 'CSV file (header row first) of validation rows')
    .option('--types <codes>', 'type codes of the --val-file columns (default: C for every column, as sym-rest-rc)', typeCodes)
    .option('--val-df <json>', 'validation rows as a DataFrame JSON {attributeNames, attributeTypes, data}')
    .option('--ds <dsid>', 'score on the rows of this registered data source instead (autoSelect/{dsid})')
    .option('--grid <size>', `autoselect_grid_type: ${GRIDS.join(', ')} (server default: tiny)`, gridType)
    .option('--selector <type>', `selector_type: ${SELECTORS.join(', ')} (server default: fw_bw)`, selectorType)
    .option('--criterion <name>', 'sml_model_assessment_type (server default: auc | rmse | mf1_w by task)')
    .option('--seed <n>', 'rnd_seed: the same seed gives the same selection', integer)
    .option('--param <key=value>', 'extraParameters entry, repeatable', keyValue)
    .option('--params <pairs>', 'extraParameters as k1=v1,k2=v2 (sym-rest-rc\'s spelling)', keyValues)
    .option('--no-wait', 'print the job id instead of waiting for the winner')
    .option('--timeout <seconds>', 'give up waiting for the job after this long', positiveSeconds, 600)
    .action(action(ctx, async (out, pid: string, modelId: string, opts: JobOptions & {
      task: string; inputs?: string[][]; inputNames?: string[][]; targets?: string[][]; targetNames?: string[][];
      valFile?: string; types?: string[]; valDf?: string; ds?: string;
      grid?: string; selector?: string; criterion?: string; seed?: number; param?: Record<string, string>; params?: Record<string, string>;
    }) => {
      const given = [opts.valFile, opts.valDf, opts.ds].filter((v) => v !== undefined).length;
      if (given !== 1) throw new CliError('give the validation rows one way: --val-file <csv>, --val-df <json> or --ds <dsid>');
      if (opts.types !== undefined && opts.valFile === undefined) throw new CliError('--types goes with --val-file');
      const params = extraParameters({ ...opts.params, ...opts.param }, {
        autoselect_grid_type: opts.grid, selector_type: opts.selector, sml_model_assessment_type: opts.criterion, rnd_seed: opts.seed,
      });
      const mlcontext = mlContext(
        oneList([...(opts.inputs ?? []), ...(opts.inputNames ?? [])], '--inputs'), oneList([...(opts.targets ?? []), ...(opts.targetNames ?? [])], '--targets'), params);
      let scoring: { dataframe: RestDataFrame } | { ds: string };
      if (opts.ds !== undefined) scoring = { ds: opts.ds };
      else if (opts.valDf !== undefined) scoring = { dataframe: parseDataFrame(opts.valDf) };
      else scoring = { dataframe: await readFrame(opts.valFile!, opts.types ?? await headerTypes(opts.valFile!)) };
      const client = restClient(ctx.io.env);
      const submitted = await submitAutoSelect(client, pid, modelId, opts.task, mlcontext, scoring);
      if (!isSuccess(submitted.status) || !opts.wait) return out.envelope(submitted.body, () => jobCreated(submitted));
      const res = await followJob<ModelReply>(out, client, submitted, opts.timeout);
      return out.envelope(res.body, (v) => {
        const { leaderboard: _, ...extra } = v.modelInfo.extra ?? {};
        const board = leaderboard(v.modelInfo);
        return [describeModel({ ...v.modelInfo, extra }), ...(board ? [`LEADERBOARD (${opts.task})\n${board}`] : [])].join('\n\n');
      });
    }));

  model
    .command('info')
    .description("a model's modelInfo: inputs, targets, assessment, info and extra")
    .argument('<pid>', 'project id')
    .argument('<modelid>', 'model id')
    .action(action(ctx, async (out, pid: string, modelId: string) => {
      const res = await modelInfo(restClient(ctx.io.env), pid, modelId);
      return out.envelope(res.body, (v) => describeModel(v.modelInfo));
    }));

  model
    .command('predict')
    .description('predict the rows of a CSV file (header row first): one output row per data row, keys per algorithm; with --json one envelope per request, one per line')
    .argument('<pid>', 'project id')
    .argument('<modelid>', 'model id')
    .argument('<csv>', 'path of the CSV file')
    .option('--types <codes>', "attribute type codes, one per column, e.g. C,C,B (default: the project's types of the header's columns)", typeCodes)
    .option('--batch <rows>', 'rows per request', positiveInt, 10_000)
    .action(action(ctx, async (out, pid: string, modelId: string, path: string, opts: { types?: string[]; batch: number }) => {
      const client = restClient(ctx.io.env);
      const types = opts.types ?? await projectTypes(client, pid, await csvHeader(path));
      const rows: Array<{ row: number; values: Record<string, string> }> = [];
      const records = csvRecords(createReadStream(path, { encoding: 'utf8' }));
      for await (const { frame, firstRow } of frameBatches(records, { types, batchSize: opts.batch, errorHandling: 0 })) {
        const res = await predict(client, pid, modelId, frame);
        if (out.json) out.out(JSON.stringify(res.body));
        if (!isSuccess(res.status)) {
          out.err(res.body.statusString);
          if (firstRow > 1) out.err(`stopped at the request with data rows ${firstRow}-${firstRow + frame.data.length - 1}; rows 1-${firstRow - 1} were predicted`);
          return 1;
        }
        (res.body.values?.KSVSMap?.values ?? []).forEach((values, k) => rows.push({ row: firstRow + k, values }));
      }
      if (!out.json) out.out(rows.length === 0 ? 'No rows' : predictionTable(rows));
      return 0;
    }));

  model
    .command('list')
    .description("a project's models and their algorithms (from its smlInfo)")
    .argument('<pid>', 'project id')
    .action(action(ctx, async (out, pid: string) => {
      const res = await restClient(ctx.io.env).projectInfo(pid);
      return out.envelope(res.body, (v) => {
        const { modelsList = [], modelTypeList = [] } = v.smlInfo as { modelsList?: string[]; modelTypeList?: string[] };
        return modelsList.length === 0 ? 'No models' : table(['MODEL', 'ALGO'], modelsList.map((m, i) => [m, modelTypeList[i] ?? '']));
      });
    }));

  model
    .command('export')
    .description('a model as a portable, versioned document, base64 text; what import takes back')
    .argument('<pid>', 'project id')
    .argument('<modelid>', 'model id')
    .option('--out <file>', 'write the document to this file instead of stdout')
    .action(action(ctx, async (out, pid: string, modelId: string, opts: { out?: string }) => {
      const res = await restClient(ctx.io.env).operations.exportModel<{ status: string }>(pid, { query: { modelid: modelId } });
      return saveDocument(out, res, `model ${modelId}`, opts.out);
    }));

  model
    .command('import')
    .description('add an exported model to a project (a model of that id is replaced, as a build replaces it)')
    .argument('<pid>', 'project id')
    .argument('<file>', 'the document an export wrote')
    .option('--modelid <id>', 'the model id (default: the id it was exported with)')
    .action(action(ctx, async (out, pid: string, file: string, opts: { modelid?: string }) => {
      const options = { raw: readDocument(file), query: opts.modelid === undefined ? {} : { modelid: opts.modelid } };
      const res = await restClient(ctx.io.env).operations.importModel(pid, options);
      return out.envelope(res.body, () => res.body.statusString);
    }));

  model
    .command('delete')
    .description('delete a model')
    .argument('<pid>', 'project id')
    .argument('<modelid>', 'model id')
    .action(action(ctx, async (out, pid: string, modelId: string) => {
      const res = await deleteModel(restClient(ctx.io.env), pid, modelId);
      return out.envelope(res.body, () => res.body.statusString);
    }));
}

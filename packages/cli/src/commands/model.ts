import { createReadStream, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
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
import { describeHoldout, holdout, holdoutPlot, holdoutValues, type Holdout, type TestRow } from '../holdout';
import { deleteModel, describeModel, modelInfo, predictFile, predictionTable, submitAutoSelect, submitBuild, submitSelect, type ModelInfo, type ModelReply } from '../models';
import { followJob, jobCreated, restClient } from '../rest';
import { csvHeader, projectTypes } from '../schema';
import { readDocument, saveDocument } from '../documents';
import { rankChart } from '../svg';
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

interface TestOptions {
  test?: string;
  testTypes?: string[];
  plot?: string;
}

/** Rows per predict request of a --test file. */
const TEST_BATCH = 10_000;

/** The --test options of build, select and autoselect (the service assesses no build; select and autoselect only on their scoring rows). */
const testOptions = (c: Command) => c
  .option('--test <csv>', 'then predict this CSV file (header row first, with the target columns) and print, computed by the CLI from the predictions: '
    + 'accuracy, AUC (binary; macro one-vs-rest for several classes) and the confusion matrix for a classifier, RMSE, MAE and R² for a regression')
  .option('--test-types <codes>', "type codes of the --test columns (default: the project's types of the header's columns)", typeCodes)
  .option('--plot <file.svg>', 'with --test: write the ROC curves (a classifier) or the residuals against the predictions (a regression) as SVG');

/** The model's predictions of the --test file, with the cells of its targets. */
async function testRows(client: SmlClient, pid: string, model: ModelInfo, path: string, types?: string[]): Promise<TestRow[]> {
  const header = await csvHeader(path);
  const missing = (model.targetAttributeNames ?? []).filter((t) => !header.includes(t));
  if (missing.length > 0) throw new CliError(`--test ${path} has no column ${missing.map((t) => `'${t}'`).join(', ')}: it needs the model's targets`);
  const rows: TestRow[] = [];
  const columns = model.targetAttributeNames.map((t) => header.indexOf(t));
  for await (const { frame, firstRow, res } of predictFile(client, pid, model.modelId, path, types ?? await projectTypes(client, pid, header), TEST_BATCH)) {
    if (!isSuccess(res.status)) throw new CliError(`model ${model.modelId} was built, but predicting --test data rows ${firstRow}-${firstRow + frame.data.length - 1} failed: ${res.body.statusString}`);
    (res.body.values?.KSVSMap?.values ?? []).forEach((prediction, k) => rows.push({
      targets: Object.fromEntries(model.targetAttributeNames.map((t, j) => [t, frame.data[k][columns[j]]])), prediction,
    }));
  }
  return rows;
}

/**
 * Prints a finished build, select or autoselect: `blocks` of its modelInfo, then with --test
 * its holdout (in `--json`, `values.holdout`, which the CLI adds to the envelope), and the plot.
 */
async function report(out: Output, client: SmlClient, pid: string, res: SmlResponse<ModelReply>, opts: TestOptions, blocks: (m: ModelInfo) => string[]): Promise<number> {
  const model = res.body.values?.modelInfo;
  let tested: Holdout | undefined;
  if (opts.test !== undefined && isSuccess(res.body.statusCode) && model) {
    tested = holdout(model, await testRows(client, pid, model, opts.test, opts.testTypes));
    if (opts.plot !== undefined) writeFileSync(opts.plot, holdoutPlot(tested, `model ${model.modelId} (${model.algo}) on ${basename(opts.test)}`));
  }
  const body = tested ? { ...res.body, values: { ...res.body.values!, holdout: holdoutValues(tested) } } : res.body;
  return out.envelope(body, (v) => [
    ...blocks(v.modelInfo), ...(tested ? [describeHoldout(tested, opts.test!)] : []), ...(tested && opts.plot ? [`plot: ${opts.plot}`] : []),
  ].join('\n\n'));
}

/** --test and --plot need the finished model: refused with --no-wait, --plot without --test. */
function checkTest(opts: TestOptions & JobOptions): void {
  if (opts.plot !== undefined && opts.test === undefined) throw new CliError('--plot draws the --test rows: give --test <csv>');
  if (opts.test !== undefined && !opts.wait) throw new CliError('--test scores the built model: it cannot go with --no-wait');
}

/** Follows a build or selectModel job to its end and prints the model (and its --test holdout), or prints the job id with --no-wait. */
async function finish(out: Output, client: SmlClient, pid: string, submitted: SmlResponse<unknown>, opts: JobOptions & TestOptions): Promise<number> {
  if (!isSuccess(submitted.status) || !opts.wait) return out.envelope(submitted.body, () => jobCreated(submitted));
  const res = await followJob<ModelReply>(out, client, submitted, opts.timeout);
  return report(out, client, pid, res, opts, (m) => [describeModel(m)]);
}

interface LeaderboardEntry {
  algo: string;
  params: Record<string, string>;
  inputs: string[];
  score: number;
}

/** The leaderboard of an autoSelect (`extra.leaderboard`, JSON), best first; empty when absent or unreadable. */
function leaderboardEntries(m: ModelInfo): LeaderboardEntry[] {
  try {
    const entries = JSON.parse(m.extra?.leaderboard ?? '[]') as LeaderboardEntry[];
    return Array.isArray(entries) ? entries : [];
  } catch {
    return [];
  }
}

/** What SCORE measures: the criterion autoSelect ranked by (`info.sml_model_assessment_type`), e.g. `SCORE (AUC)`; plain `SCORE` when the model does not say. */
function scoreHeader(m: ModelInfo): string {
  const criterion = m.info?.sml_model_assessment_type;
  return criterion ? `SCORE (${criterion.toUpperCase()})` : 'SCORE';
}

const paramsText = (params: Record<string, string> | undefined) => Object.entries(params ?? {}).map(([key, v]) => `${key}=${v}`).join(',');

/** The leaderboard as a table, best first; empty when absent. */
function leaderboard(m: ModelInfo): string {
  const entries = leaderboardEntries(m);
  if (entries.length === 0) return '';
  const rows = entries.map((e, k) => [String(k + 1), e.algo, paramsText(e.params), cell(e.score), (e.inputs ?? []).join(',')]);
  return table(['RANK', 'ALGO', 'PARAMS', scoreHeader(m), 'INPUTS'], rows);
}

/** The leaderboard as ranked bars (the winner highlighted), labelled by algorithm and grid point. */
function leaderboardPlot(m: ModelInfo, pid: string): string {
  const criterion = m.info?.sml_model_assessment_type;
  const lower = criterion !== undefined && ['rmse', 'mae', 'rmslogp1e'].includes(criterion);
  return rankChart({
    title: `autoSelect leaderboard: model ${m.modelId} (project ${pid})`,
    xLabel: `${scoreHeader(m).toLowerCase()}${criterion ? (lower ? ', lower is better' : ', higher is better') : ''}`,
    items: leaderboardEntries(m).map((e) => ({ label: [e.algo, paramsText(e.params)].filter(Boolean).join(' '), value: Number(e.score) })),
  });
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

  testOptions(common(model.command('build').description('build a model from the given inputs (a job), waited for; prints its modelInfo (the service assesses no build: --test scores it on rows of yours)'))
    .option('--targets <attributes>', 'target attributes, all names or all indexes', attributeList))
    .action(action(ctx, async (out, pid: string, modelId: string, opts: ContextOptions & JobOptions & TestOptions) => {
      checkTest(opts);
      const client = restClient(ctx.io.env);
      return finish(out, client, pid, await submitBuild(client, pid, modelId, opts.algo, context(opts)), opts);
    }));

  testOptions(common(model.command('select').description('select the inputs that score best on a CSV file of scoring rows (selectModel, a job), waited for; prints the chosen model and its assessment (on those rows)')))
    .requiredOption('--targets <attributes>', 'target attributes, all names or all indexes', attributeList)
    .requiredOption('--data <csv>', 'CSV file (header row first) of scoring rows, with the inputs and targets')
    .requiredOption('--types <codes>', 'attribute type codes of the CSV columns, e.g. C,C,B', typeCodes)
    .option('--selector <type>', `selector_type: ${SELECTORS.join(', ')} (server default: none)`, selectorType)
    .option('--criterion <name>', 'sml_model_assessment_type: rmse, mae, r2 | auc, accuracy, precision, recall, f1, mcc | accuracy, f1_macro, kappa')
    .option('--iterations <n>', 'selector_iterations of the iteration selector (server default: 50)', positiveInt)
    .option('--seed <n>', 'selector_seed of the iteration selector', integer)
    .action(action(ctx, async (out, pid: string, modelId: string, opts: ContextOptions & JobOptions & TestOptions & {
      data: string; types: string[]; selector?: string; criterion?: string; iterations?: number; seed?: number;
    }) => {
      checkTest(opts);
      const client = restClient(ctx.io.env);
      const mlcontext = context(opts, {
        selector_type: opts.selector, sml_model_assessment_type: opts.criterion, selector_iterations: opts.iterations, selector_seed: opts.seed,
      });
      const dataframe = await readFrame(opts.data, opts.types);
      return finish(out, client, pid, await submitSelect(client, pid, modelId, opts.algo, mlcontext, dataframe), opts);
    }));

  testOptions(model
    .command('autoselect')
    .description('try every algorithm of a task × the parameter grid × input subsets, scored on validation rows (autoSelect, a job), waited for; prints the winner, its assessment on those rows and the leaderboard, SCORE naming the criterion. Flags as sym-rest-rc\'s `model autoselect`'))
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
    .option('--leaderboard-plot <file.svg>', 'also write the leaderboard as SVG bars, best at the top')
    .option('--no-wait', 'print the job id instead of waiting for the winner')
    .option('--timeout <seconds>', 'give up waiting for the job after this long', positiveSeconds, 600)
    .action(action(ctx, async (out, pid: string, modelId: string, opts: JobOptions & TestOptions & {
      leaderboardPlot?: string;
      task: string; inputs?: string[][]; inputNames?: string[][]; targets?: string[][]; targetNames?: string[][];
      valFile?: string; types?: string[]; valDf?: string; ds?: string;
      grid?: string; selector?: string; criterion?: string; seed?: number; param?: Record<string, string>; params?: Record<string, string>;
    }) => {
      const given = [opts.valFile, opts.valDf, opts.ds].filter((v) => v !== undefined).length;
      if (given !== 1) throw new CliError('give the validation rows one way: --val-file <csv>, --val-df <json> or --ds <dsid>');
      if (opts.types !== undefined && opts.valFile === undefined) throw new CliError('--types goes with --val-file');
      checkTest(opts);
      if (opts.leaderboardPlot !== undefined && !opts.wait) throw new CliError('--leaderboard-plot draws the finished search: it cannot go with --no-wait');
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
      const winner = res.body.values?.modelInfo;
      if (opts.leaderboardPlot !== undefined && isSuccess(res.body.statusCode) && winner) writeFileSync(opts.leaderboardPlot, leaderboardPlot(winner, pid));
      return report(out, client, pid, res, opts, (m) => {
        const { leaderboard: _, ...extra } = m.extra ?? {};
        const board = leaderboard(m);
        return [
          describeModel({ ...m, extra }), ...(board ? [`LEADERBOARD (${opts.task})\n${board}`] : []), ...(opts.leaderboardPlot ? [`leaderboard plot: ${opts.leaderboardPlot}`] : []),
        ];
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
      for await (const { frame, firstRow, res } of predictFile(client, pid, modelId, path, types, opts.batch)) {
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

import { randomUUID } from 'node:crypto';
import { sml } from '@sml/proto';
import { replyValues } from '../envelope';
import { contracts, GATEWAY_IDEMPOTENCY_PREFIX, type MessageType } from '@sml/bus';
import { defineRoute, type Presentation, type RouteContext } from '../route';
import type { SummaryRecipes } from '../summary-recipes';
import { boolParam, dataFrame, name, userParam, z } from '../schemas';
import { encryptedFor } from './fusion';
import { transferRoutes } from './transfer';

const projectParams = userParam.extend({ pid: name('project') });
const asyncQuery = z.object({ async: boolParam.optional() });
const ops = contracts.projects;

const smlInfo = z.object({
  pid: z.string(), isDirty: z.boolean(), modelsList: z.array(z.string()), modelTypeList: z.array(z.string()),
  attributeNames: z.array(z.string()), attributeIndexes: z.array(z.number().int()), attributeTypes: z.array(z.enum(['B', 'C'])),
  modelAssessments: z.record(z.string(), z.object({ scores: z.record(z.string(), z.number()) })), modelPredictions: z.record(z.string(), z.string()),
  params: z.record(z.string(), z.string()), autoSave: z.boolean(),
  hash: z.number().int().openapi({ description: 'hash of the statistics with hash=1, else -1' }),
  categorySeparator: z.string(), type: z.string(), creationDate: z.number().int(), lastModificationDate: z.number().int(),
  loaded: z.boolean().openapi({ description: 'the project was in memory before this request' }), persisted: z.boolean(), histogramEnabled: z.boolean(),
  fusionCellInfo: z.string().optional().openapi({ description: 'fusion projects: the FusionCellInfoList, each sk blanked, encrypted with the caller\'s secret (as cellsStatusEncrypted)' }),
}).openapi('SmlInfo');

const learnReport = z.object({ rowsLearned: z.number().int(), rowsSkipped: z.number().int(), errors: z.array(z.string()) }).openapi('LearnReport');

/** Flat string map of type-specific create parameters; numbers and booleans are taken as their text. */
const createParams = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String)).optional();

const projectOp = (op: 'save' | 'unload' | 'freeze' | 'unfreeze', summary: string) =>
  defineRoute({
    method: 'get', path: `/:user/projects/:pid/${op}`, operationId: `${op}Project`, tags: ['projects'], summary,
    contract: ops[op],
    params: projectParams, success: { status: 200, description: summary },
    toRequest: ({ caller, params }: RouteContext) => ({ caller, pid: params.pid }),
  });

const learnRoute = (op: 'learn' | 'forget') => defineRoute({
  method: 'post', path: `/:user/projects/:pid/${op}`, operationId: `${op}Project`, tags: ['projects'],
  summary: op === 'learn' ? 'Learn a DataFrame into the project summary (new attributes are appended)' : 'Forget a DataFrame: the exact inverse of learn',
  description: 'Answers 200 only once the batch is in the project\'s durable log. Header `Idempotency-Key` (ours): a retried batch with the same key is applied once (within 2 minutes); the same key with a different batch answers 422 naming the key. Values larger in magnitude than 1e64 are refused (400 naming row and column). A batch that would grow the project past its limits (SML_MAX_SEQUENCE_NGRAMS, SML_MAX_PARTITIONS, SML_MAX_ATTRIBUTES) is refused whole.',
  contract: ops[op],
  params: projectParams, query: asyncQuery, body: dataFrame, rawBody: true, largeBody: true,
  values: z.object({ learnReport: learnReport.optional() }),
  success: { status: 200, description: 'OK (values.learnReport when errorHandling=1)' }, createsJob: true,
  // Read here, once, when the fast reader takes the frame (strict, plain cells): the
  // project's owner then gets columns a third smaller than the JSON and reads no JSON; or, for
  // a project that gave its recipe, the batch's own summary (a twentieth of a long batch).
  toRequest: async (ctx) => {
    const summarizable = isSummarizable(ctx.summaryRecipes, ctx.query.async === true, ctx.headers);
    const recipe = summarizable ? ctx.summaryRecipes!.get(ctx.caller.user ?? '', ctx.params.pid) : undefined;
    const read = await ctx.readFrame(ctx.body as Buffer, recipe);
    ctx.body = read.body; // it went to a body thread and back: the retry below sends it
    if (read.batchSummary) return learnRequest(ctx, { batchSummary: read.batchSummary, summaryRecipe: recipe });
    return learnRequest(ctx, { ...(read.columns ? { columns: read.columns } : { frameJson: read.body }), askSummaryRecipe: summarizable && recipe === undefined });
  },
  // Read with the hashing when the recipe is already known (the same as toRequest finds, unless the request is refused).
  earlyFrame: ({ user, params, query, headers, summaryRecipes }) => {
    const summarizable = isSummarizable(summaryRecipes, query.async === 'true' || query.async === '1', headers);
    return { recipe: summarizable ? summaryRecipes!.get(user, String(params.pid)) : undefined };
  },
  observe: (reply, ctx) => {
    if (reply.summaryRecipe) ctx.summaryRecipes?.set(ctx.caller.user ?? '', ctx.params.pid, reply.summaryRecipe);
    if (reply.needsColumns) ctx.summaryRecipes?.delete(ctx.caller.user ?? '', ctx.params.pid);
  },
  // A project that reads the rows' cells (partitions, survival, sequences) asks for the JSON;
  // one that does not take the batch's summary, for the frame.
  retry: (reply, ctx) => (reply.needsJson || reply.needsColumns ? learnRequest(ctx, { frameJson: ctx.body as Buffer }) : undefined),
  // Keyed (the customer's Idempotency-Key, or the gateway's own: learnRequest), so applied
  // once however often the gateway sends it; a job (async) is not sent twice.
  resend: (ctx) => ctx.query.async !== true,
  present: (reply) => withoutRecipe(sml.v1.LearnReply, reply),
});

/** The reply as REST answers it: the batch-summary recipe is between gateway and project, not the customer's. */
function withoutRecipe<T extends { status?: sml.v1.IStatus | null }>(type: MessageType<T>, reply: T): Presentation {
  const values = replyValues(type, reply);
  delete values.summaryRecipe;
  return { status: reply.status ?? { code: 200, message: 'OK' }, values };
}

const idempotencyKey = ({ headers }: Pick<RouteContext, 'headers'>): string => (typeof headers['idempotency-key'] === 'string' ? headers['idempotency-key'] : '');

/** Whether a learn batch may travel as its summary: recipes are kept, and it is neither a job's nor keyed (README "Batch summaries"). */
function isSummarizable(recipes: SummaryRecipes | undefined, async: boolean, headers: RouteContext['headers']): boolean {
  return recipes !== undefined && !async && idempotencyKey({ headers }) === '';
}

/**
 * The bus request of a learn or forget. A batch the customer sent without an Idempotency-Key
 * gets one of the gateway's own (GATEWAY_IDEMPOTENCY_PREFIX + a uuid, new for each form of the batch sent):
 * should the projects replica holding the project die before answering, the gateway sends
 * the very same request to the next holder (Route.resend), which applies it once even if the
 * dead one had logged it. A job (async) keeps none: it is never sent twice.
 */
function learnRequest(ctx: RouteContext, frame: Pick<sml.v1.ILearnRequest, 'columns' | 'frameJson' | 'batchSummary' | 'summaryRecipe' | 'askSummaryRecipe'>): sml.v1.ILearnRequest {
  const async = ctx.query.async === true;
  const key = idempotencyKey(ctx) || (async ? '' : `${GATEWAY_IDEMPOTENCY_PREFIX}${randomUUID()}`);
  return { caller: ctx.caller, pid: ctx.params.pid, async, ...frame, idempotencyKey: key };
}

export const projectRoutes = [
  defineRoute({
    method: 'post', path: '/:user/projects', operationId: 'createProject', tags: ['projects'],
    summary: 'Create a project', description: 'Body (optional): flat string map of type-specific parameters (partitionSplit, sml_project_order, sml_sequence_layout, km_time_column, km_event_column, km_group_column, cluster_*, rf_* (online Mondrian forest, with the names SymetryML documents: rf_type rf_classifier (default) | rf_regressor | rf_anomaly, rf_target_name (mandatory but for rf_anomaly), rf_features (colon separated; default * = the C/B columns of the first frame but the target), rf_num_trees 10 (1–100), rf_num_classes 2 (2–64), rf_complexity 16 (max depth, 1–64), rf_max_split_time (none), rf_step 1, rf_dirichlet 0.5 for 2 classes else 1/classes, rf_always_split true, rf_missing_value 0, rf_rnd_seed 126; nodes per tree capped (README "Online forests"); forget does not apply to the forest), sml_project_power_* (power regression: sml_project_power_column, the C/B column whose Yeo-Johnson transforms pt_<column>^<p> the project keeps as attributes, for steps + 1 powers p from sml_project_power_min to sml_project_power_max by sml_project_power_steps intervals; defaults −2, 2, 20; |p| ≤ 10, 1 ≤ steps ≤ 100; smlInfo.params.sml_project_power_ntot = steps + 1), categorySeparator).',
    contract: ops.create,
    params: userParam,
    query: z.object({
      pid: name('project'),
      type: z.string().optional().openapi({ description: 'cpu (default), gpu, mgpuf, mgpud, sequence, partition, fed, dynamic' }),
      persist: boolParam.optional().openapi({ description: 'default true; false = memory only, gone on restart' }),
      enableHistogram: boolParam.optional(),
      histogramType: z.string().optional().openapi({ description: 'streaming (default) or exact' }),
    }),
    body: createParams,
    success: { status: 201, description: 'Project Created with id:<pid>' },
    toRequest: ({ caller, query, body, summaryRecipes }) => ({
      caller, pid: String(query.pid), type: (query.type as string | undefined) ?? '',
      ...(query.persist === undefined ? {} : { persist: query.persist as boolean }),
      enableHistogram: query.enableHistogram === true, histogramType: (query.histogramType as string | undefined) ?? '',
      params: (body as Record<string, string> | undefined) ?? {},
      askSummaryRecipe: summaryRecipes !== undefined,
    }),
    // A project created here learns its first batches as summaries too.
    observe: (reply, ctx) => {
      const user = ctx.caller.user ?? '';
      if (reply.summaryRecipe) ctx.summaryRecipes?.set(user, String(ctx.query.pid), reply.summaryRecipe);
      else ctx.summaryRecipes?.delete(user, String(ctx.query.pid));
    },
    present: (reply) => withoutRecipe(sml.v1.ProjectCreateReply, reply),
  }),
  defineRoute({
    method: 'get', path: '/:user/projects', operationId: 'listProjects', tags: ['projects'], summary: "List the caller's project ids",
    contract: ops.list,
    params: userParam, values: z.object({ stringList: z.object({ values: z.array(z.string()) }) }),
    success: { status: 200, description: 'values.stringList.values' }, resend: true,
    toRequest: ({ caller }) => ({ caller }),
  }),
  defineRoute({
    method: 'get', path: '/:user/projects/list', operationId: 'listProjectsCompat', tags: ['projects'], summary: "List the caller's project ids (SymetryML's path for GET /{user}/projects)",
    contract: ops.list,
    params: userParam, values: z.object({ stringList: z.object({ values: z.array(z.string()) }) }),
    success: { status: 200, description: 'values.stringList.values' }, resend: true,
    toRequest: ({ caller }) => ({ caller }),
  }),
  defineRoute({
    method: 'get', path: '/:user/projects/:pid/info', operationId: 'projectInfo', tags: ['projects'], summary: 'Project information (smlInfo)',
    contract: ops.info,
    params: projectParams, query: z.object({ async: boolParam.optional(), hash: boolParam.optional() }),
    values: z.object({ smlInfo }), success: { status: 200, description: 'values.smlInfo' }, createsJob: true, resend: (ctx) => ctx.query.async !== true,
    toRequest: ({ caller, params, query }) => ({ caller, pid: params.pid, async: query.async === true, hash: query.hash === true }),
    present: (reply, ctx) => {
      const values = replyValues(sml.v1.ProjectInfoReply, reply);
      const info = values.smlInfo as Record<string, unknown> | undefined;
      // A fusion project's cells (sk blanked), encrypted with the caller's secret.
      if (typeof info?.fusionCellInfo === 'string') info.fusionCellInfo = encryptedFor(ctx, JSON.parse(info.fusionCellInfo));
      return { status: reply.status ?? { code: 200, message: 'OK' }, values };
    },
  }),
  defineRoute({
    method: 'delete', path: '/:user/projects/:pid', operationId: 'deleteProject', tags: ['projects'], summary: 'Delete a project, its models and its state',
    contract: ops.delete,
    params: projectParams, success: { status: 200, description: 'deleted' },
    toRequest: ({ caller, params }) => ({ caller, pid: params.pid }),
  }),
  defineRoute({
    method: 'get', path: '/:user/projects/:pid/getDsLog', operationId: 'projectLog', tags: ['projects'],
    summary: "The project's learn/forget log",
    description: 'values.dsLog: the most recent (100) learn/forget jobs from data sources, with rows read/learned/skipped and why a failed one failed. values.quarantined: logged batches that could not be replayed when the project was loaded (a limit lowered since, damaged bytes). They are kept, with why, and not applied; the project loads without them.',
    contract: ops.log,
    params: projectParams,
    values: z.object({
      quarantined: z.array(z.object({ seq: z.number().int(), op: z.string(), reason: z.string(), time: z.number().int(), bytes: z.number().int() })),
      dsLog: z.array(z.object({
        jobId: z.number().int(), ds: z.string(), op: z.string(), state: z.string(), rowsRead: z.number().int(), rowsLearned: z.number().int(),
        rowsSkipped: z.number().int(), bytesRead: z.number().int(), started: z.number().int(), finished: z.number().int(), error: z.string(),
      })),
    }),
    success: { status: 200, description: 'values.quarantined' },
    toRequest: ({ caller, params }) => ({ caller, pid: params.pid }),
  }),
  learnRoute('learn'),
  learnRoute('forget'),
  projectOp('save', 'Write a snapshot now'),
  projectOp('unload', 'Snapshot and drop from memory; reloaded on next access'),
  projectOp('freeze', 'Refuse learn and forget until unfreeze'),
  projectOp('unfreeze', 'Allow learn and forget again'),
  defineRoute({
    method: 'get', path: '/:user/projects/:pid/merge', operationId: 'mergeProject', tags: ['projects'],
    summary: "Add another project's statistics to this one (made durable by a snapshot before answering)",
    contract: ops.merge,
    params: projectParams, query: z.object({ otherProjectName: name('project') }),
    success: { status: 200, description: 'merged' },
    toRequest: ({ caller, params, query }) => ({ caller, pid: params.pid, otherProjectName: String(query.otherProjectName) }),
  }),
  defineRoute({
    method: 'post', path: '/:user/projects/:pid/histogramEnable', operationId: 'histogramEnable', tags: ['projects'],
    summary: 'Switch histograms on or off', description: 'Histograms are always kept (in the histogramType of the project), so enabling them later covers every row already learned.',
    contract: ops.histogramEnable,
    params: projectParams, query: z.object({ enable: boolParam }),
    success: { status: 200, description: 'switched' },
    toRequest: ({ caller, params, query }) => ({ caller, pid: params.pid, enable: query.enable === true }),
  }),
  ...(['learn', 'forget'] as const).map((op) => defineRoute({
    method: 'post', path: `/:user/projects/:pid/dss/:ds/${op}`, operationId: `${op}FromDataSource`, tags: ['projects'],
    summary: `${op === 'learn' ? 'Learn' : 'Forget'} the rows of a registered data source (always a job)`,
    contract: ops.dsLearn,
    params: projectParams.extend({ ds: name('data source') }),
    description: 'Body: the columns to use (attributeNames/attributeTypes; empty = every column, typed by the DSInfo extra or guessed) and errorHandling (0 strict: a bad row fails the job naming file and line, nothing learned; 1 lenient: bad rows skipped and counted). The rows are read into a staging summary and added to (or removed from) the project at the end, under its lock, then snapshotted: a failed or cancelled job leaves the project as it was. The outcome is kept in getDsLog.',
    body: z.object({ attributeNames: z.array(z.string()).default([]), attributeTypes: z.array(z.string()).default([]), errorHandling: z.coerce.number().int().min(0).max(1).default(0) }),
    success: { status: 202, description: 'Job Created' }, createsJob: true,
    toRequest: ({ caller, params, body }) => {
      const b = body as { attributeNames: string[]; attributeTypes: string[]; errorHandling: number };
      return { caller, pid: params.pid, ds: params.ds, forget: op === 'forget', frame: { attributeNames: b.attributeNames, attributeTypes: b.attributeTypes, errorHandling: b.errorHandling } };
    },
  })),
  ...transferRoutes,
];

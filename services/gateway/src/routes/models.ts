import { dataFrameToProto, smlError, type RestDataFrame } from '@sml/core';
import { contracts } from '@sml/bus';
import { sml } from '@sml/proto';
import { jsonBody } from '../dispatch';
import { replyValues } from '../envelope';
import { defineRoute, type RouteContext, type RouteLimits } from '../route';
import { boolParam, dataFrame, mlContext, name, userParam, z } from '../schemas';

const projectParams = userParam.extend({ pid: name('project') });
const modelParams = projectParams.extend({ m: name('model') });
const ops = contracts.projects;

/**
 * A frame to predict, within SML_MAX_PREDICT_CELLS: refused here, before the bus, since the
 * projects service decodes, predicts and answers it on its event loop, which every project of
 * the process shares (a frame of 10⁶ rows held it ≈ 3.9 s).
 */
function predictFrame(frame: RestDataFrame, limits: RouteLimits) {
  const rows = frame.data ?? [];
  let cells = 0;
  for (const row of rows) cells += row.length;
  if (cells > limits.maxPredictCells) throw smlError('PREDICT_TOO_MANY_CELLS', { limit: limits.maxPredictCells, cells, rows: rows.length });
  return dataFrameToProto(frame);
}

/**
 * The frame of POST predict/{m}: numeric columns when the fast reader takes it and every column
 * is C or B (read on a body thread when large: neither the gateway nor the projects service
 * then builds a string per cell, which at SML_MAX_PREDICT_CELLS held both event loops for
 * seconds of garbage collection), else the JSON rows, validated as a DataFrame.
 */
async function predictInput(ctx: RouteContext): Promise<Pick<sml.v1.IPredictRequest, 'frame' | 'columns'>> {
  const read = await ctx.readFrame(ctx.body as Buffer);
  ctx.body = read.body;
  const columns = read.columns;
  // Only C and B columns travel as columns: T, S, L and X cells are text the columns do not all carry.
  if (columns && columns.types.every((t) => t === 'C' || t === 'B')) {
    const cells = columns.rowCount * columns.names.length;
    if (cells > ctx.limits.maxPredictCells) throw smlError('PREDICT_TOO_MANY_CELLS', { limit: ctx.limits.maxPredictCells, cells, rows: columns.rowCount });
    return { columns };
  }
  return { frame: predictFrame(jsonBody(dataFrame, read.body), ctx.limits) };
}

/** A predict's answer: the service's JSON text of the predictions, spliced into the envelope as it is (or, from an older service, its KSVSMap). */
function presentPredictions(reply: sml.v1.PredictReply) {
  const status = reply.status ?? { code: 200, message: 'OK' };
  if (!reply.predictionsJson?.length) return { status, values: { KSVSMap: replyValues(sml.v1.PredictReply, reply).KSVSMap } };
  return { status, values: {}, rawValues: Buffer.concat([Buffer.from('{"KSVSMap":{"values":'), reply.predictionsJson, Buffer.from('}}')]) };
}

const modelInfo = z.object({
  modelId: z.string(), algo: z.string(), inputAttributeNames: z.array(z.string()), targetAttributeNames: z.array(z.string()),
  info: z.record(z.string(), z.string()), extra: z.record(z.string(), z.string()), assessment: z.record(z.string(), z.number()),
  params: z.record(z.string(), z.string()), creationDate: z.number().int(),
}).openapi('ModelInfo');

const buildQuery = z.object({ modelid: name('model'), algo: z.string().min(1) });
/** autoSelect's query (SymetryML's auto-select-with-symetryml.md): both required. */
export const autoSelectQuery = z.object({ modelid: name('model'), task: z.string().min(1) });
/** What autoSelect does, for both its forms. */
export const AUTOSELECT_DESCRIPTION = 'SymetryML\'s auto-select-with-symetryml.md. task: binary_classification or binary_classifier, regression, multiclass_classifier (else 400). '
  + 'Candidates: every algorithm of the task this build implements (binary: lr, lda, lsvm, bayes; regression: mlr, ridge, lasso, elasticnet, pcr, plsq, lsvr; multiclass: mlda, mqda) '
  + '× the parameter grid extraParameters.autoselect_grid_type (autoselect_grid_type_tiny (default), _small, _normal, _large: elasticnet eta × lambda, ridge/lasso lambda, lsvr/lsvm sml_model_svm_nu; packages/stats AUTOSELECT_GRIDS) '
  + '× the feature subsets of selector_type (default selector_type_fw_bw; rnd_seed seeds selector_type_iteration), each scored on the scoring rows by sml_model_assessment_type '
  + '(binary auc (default), accuracy, precision, recall, f1, mcc; regression rmse (default), mae, r2, rmslogp1e; multiclass mf1_w (default), accuracy, f1_macro, kappa, mkappa). '
  + 'The best candidate (the earlier on a tie) is stored as modelid. Every input subset built counts against SML_MAX_SELECTION_CANDIDATES and the whole search against SML_SELECTION_TIME_BUDGET_MS: past either the job fails naming it. '
  + 'The finished job reads 200 Job is finished with values.modelInfo: algo = the winning algorithm, params = the parameters it was built with (the grid point included), '
  + 'info.autoselect_task, autoselect_grid_type, autoselect_candidates, autoselect_failed, selector_type, selector_tried, sml_model_assessment_type, '
  + 'extra.leaderboard = JSON array of the best 20 candidates, best first: {algo, params (grid point), inputs, score, assessment}.';
type Ctx = z.infer<typeof mlContext>;

export const modelRoutes = [
  defineRoute({
    method: 'post', path: '/:user/projects/:pid/selectModel', operationId: 'selectModel', tags: ['models'],
    summary: 'Build a model from the summary (a job) and assess it on the request dataframe',
    description: 'Body {mlcontext, dataframe}. extraParameters.selector_type: selector_type_none (default), selector_type_fw_bw, selector_type_simple, selector_type_brute (≤ 16 inputs), selector_type_iteration (selector_iterations, selector_seed); sml_model_assessment_type picks the criterion (rmse, mae, r2 | auc, accuracy, precision, recall, f1, mcc | accuracy, f1_macro, kappa). Candidate models are rebuilt from the summary and scored on the dataframe. The finished job reads 200 Job is finished with values.modelInfo (assessment on the dataframe).',
    contract: ops.selectModel,
    params: projectParams, query: buildQuery,
    body: z.object({ mlcontext: mlContext, dataframe: dataFrame.optional() }),
    success: { status: 202, description: 'SelectModel Job Created' }, createsJob: true,
    errors: ['SINGULAR_SYSTEM', 'INVALID_PARAMETER'],
    toRequest: ({ caller, params, query, body }) => {
      const b = body as { mlcontext: Ctx; dataframe?: RestDataFrame };
      return { caller, pid: params.pid, modelId: String(query.modelid), algo: String(query.algo), mlcontext: b.mlcontext, dataframe: b.dataframe ? dataFrameToProto(b.dataframe) : null };
    },
  }),
  defineRoute({
    method: 'post', path: '/:user/projects/:pid/build', operationId: 'buildModel', tags: ['models'],
    summary: 'Build a model from the summary (a job), without assessment', description: 'Body: MLContext.',
    contract: ops.selectModel,
    params: projectParams, query: buildQuery, body: mlContext,
    success: { status: 202, description: 'Job Created' }, createsJob: true,
    toRequest: ({ caller, params, query, body }) => ({ caller, pid: params.pid, modelId: String(query.modelid), algo: String(query.algo), mlcontext: body as Ctx, buildOnly: true }),
  }),
  defineRoute({
    method: 'post', path: '/:user/projects/:pid/kmeansOptimize', operationId: 'kmeansOptimize', tags: ['models'],
    summary: 'k-means over a range of k on the project\'s micro-centroids (a job): WSSSE and silhouette per k',
    description: 'Body: MLContext. The project must have been created with cluster_features. extraParameters: kmeans_k_min (default 2), kmeans_k_max (default min(10, micro-centroids − 1)), rnd_seed, kmeans_n_init, max_iter; inputAttributeNames: a subset of cluster_features (default all). The finished job reads values.KSVDMap.values[], one {k, wssse, silhouette} per k (computed from the micro-centroids), and values.approximate[], ["silhouette"] per k: the silhouette is approximated from the micro-clusters (docs/concepts.md "What is approximate").',
    contract: ops.kmeansOptimize,
    params: projectParams, body: mlContext,
    success: { status: 202, description: 'Job Created' }, createsJob: true,
    toRequest: ({ caller, params, body }) => ({ caller, pid: params.pid, mlcontext: body as Ctx }),
  }),
  defineRoute({
    method: 'post', path: '/:user/projects/:pid/autoSelect', operationId: 'autoSelect', tags: ['models'],
    summary: 'Try every algorithm of a task × feature subsets × a parameter grid on the request dataframe (a job); keep the best as modelid',
    description: AUTOSELECT_DESCRIPTION + ' Body {mlcontext, dataframe} (the scoring rows).',
    contract: ops.autoSelect,
    params: projectParams, query: autoSelectQuery,
    body: z.object({ mlcontext: mlContext, dataframe: dataFrame.optional() }),
    success: { status: 202, description: 'Job Created' }, createsJob: true,
    toRequest: ({ caller, params, query, body }) => {
      const b = body as { mlcontext: Ctx; dataframe?: RestDataFrame };
      return { caller, pid: params.pid, modelId: String(query.modelid), task: String(query.task), mlcontext: b.mlcontext, dataframe: b.dataframe ? dataFrameToProto(b.dataframe) : null };
    },
  }),
  defineRoute({
    method: 'post', path: '/:user/projects/:pid/reduce', operationId: 'reduce', tags: ['models'],
    summary: 'Reduce the inputs of a model from the summary (a job): backward elimination, then swap passes; keep the model on the survivors as modelid',
    description: 'SymetryML\'s reduce. Body: MLContext (the target and the candidate inputs). Query: modelid; algo lda (criterion: the squared Mahalanobis distance D² between the two classes, pooled covariance) or mlr (criterion: adjusted R²), else 400 Reduce does not support algorithm [<a>]; '
      + 'heuristic default (the only one; else 400 Unknown heuristic [<h>]); delta (default 0.001, a number ≥ 0): backward elimination drops the input whose removal loses the least criterion while that relative loss is below delta; '
      + 'numIterations (default 5, 0 to SML_MAX_ITERATIONS): then at most that many swap passes each re-add or drop the one input that gains the most, when it gains more than delta relatively. Computed from the summary only, no rows; within SML_SELECTION_TIME_BUDGET_MS. '
      + 'A full job queue answers 500 Optimize Job execution was refused by server. The finished job reads 200 Job is finished with values.modelInfo of the stored model: inputAttributeNames = the survivors, '
      + 'info.reduce_criterion, reduce_delta, reduce_num_iterations, selector_tried; extra.reduce_dropped = JSON array of the inputs left out.',
    contract: ops.reduce,
    params: projectParams, body: mlContext,
    query: z.object({ modelid: name('model'), algo: z.string().optional(), heuristic: z.string().optional(), delta: z.string().optional(), numIterations: z.string().optional() }),
    success: { status: 202, description: 'Reduce Job Created' }, createsJob: true,
    toRequest: ({ caller, params, query, body }) => {
      // Absent (optional) parameters travel as '': the service applies the defaults.
      const text = (v: unknown) => (typeof v === 'string' ? v : '');
      return {
        caller, pid: params.pid, modelId: String(query.modelid), algo: text(query.algo), mlcontext: body as Ctx,
        heuristic: text(query.heuristic), delta: text(query.delta), numIterations: text(query.numIterations),
      };
    },
  }),
  defineRoute({
    method: 'post', path: '/:user/projects/:pid/learnpredict/:m', operationId: 'learnPredict', tags: ['models'],
    summary: 'Learn a DataFrame (as POST learn) and predict its rows with model m (as POST predict/{m}), one call',
    description: 'SymetryML\'s prediction-api.md. The frame is learned exactly as POST learn learns it (in the durable log before the answer; header Idempotency-Key as for learn) and predicted as POST predict/{m} predicts it. '
      + 'Query: predictBeforeLearn (default true: predict, then learn; false: learn, then predict), rebuildModel (default false; true: rebuild the model from the summary with its algorithm, inputs, targets and parameters once the frame is learned), '
      + 'keepColumns (comma-separated columns of the frame copied into each prediction row; a prediction key of the same name wins). The model is checked before anything is learned. '
      + 'The frame is bounded as predict bounds it (SML_MAX_PREDICT_CELLS, SML_MAX_JSON_BODY_BYTES). '
      + 'A predict or rebuild that fails once the frame is learned answers its error (status and code) with a message that starts "The frame was learned; then …": the learn stands.',
    contract: ops.learnPredict,
    params: modelParams, body: dataFrame,
    query: z.object({ predictBeforeLearn: boolParam.optional(), rebuildModel: boolParam.optional(), keepColumns: z.string().optional() }),
    values: z.object({ KSVSMap: z.object({ values: z.array(z.record(z.string(), z.string())) }) }),
    success: { status: 200, description: 'values.KSVSMap.values' },
    errors: ['PREDICT_TOO_MANY_CELLS'],
    toRequest: ({ caller, params, query, body, headers, limits }) => ({
      caller, pid: params.pid, modelId: params.m, frame: predictFrame(body as RestDataFrame, limits),
      idempotencyKey: typeof headers['idempotency-key'] === 'string' ? headers['idempotency-key'] : '',
      predictBeforeLearn: query.predictBeforeLearn !== false, rebuildModel: query.rebuildModel === true,
      keepColumns: typeof query.keepColumns === 'string' ? query.keepColumns.split(',') : [],
    }),
    present: presentPredictions,
  }),
  defineRoute({
    method: 'get', path: '/:user/projects/:pid/models/:m', operationId: 'modelInfo', tags: ['models'], summary: 'A model\'s information',
    contract: ops.modelInfo,
    params: modelParams, values: z.object({ modelInfo }), success: { status: 200, description: 'values.modelInfo' },
    toRequest: ({ caller, params }) => ({ caller, pid: params.pid, modelId: params.m }),
  }),
  defineRoute({
    method: 'delete', path: '/:user/projects/:pid/models/:m', operationId: 'deleteModel', tags: ['models'], summary: 'Delete a model',
    contract: ops.modelDelete,
    params: modelParams, success: { status: 200, description: 'deleted' },
    toRequest: ({ caller, params }) => ({ caller, pid: params.pid, modelId: params.m }),
  }),
  defineRoute({
    method: 'post', path: '/:user/projects/:pid/predict/:m', operationId: 'predict', tags: ['models'],
    summary: 'Predict: one string map per row (keys per algorithm: docs/algorithms.md); missing inputs are imputed with the project mean at build time',
    description: 'At most SML_MAX_PREDICT_CELLS cells per request (default 10⁶; 400 above, before the model is read) and, for models whose predict costs far more per row than reading it (hmm, kmeans, covest, mqda, repca, oospca), at most SML_MAX_PREDICT_STEPS steps and SML_MAX_PREDICT_REPLY_CHARS characters of answer (400 naming the bound). '
      + 'A body is at most SML_MAX_JSON_BODY_BYTES (default 16 MiB; 413). Larger scoring: POST dss/predict/{m} (a job over a registered data source). '
      + 'A frame whose columns are all C or B is read by the gateway\'s fast frame reader (as learn frames are) and travels to the model as numeric columns; any other frame as its rows. The predictions are the same.',
    contract: ops.predict,
    params: modelParams, body: dataFrame, rawBody: true, values: z.object({ KSVSMap: z.object({ values: z.array(z.record(z.string(), z.string())) }) }),
    success: { status: 200, description: 'values.KSVSMap.values' }, errors: ['PREDICT_TOO_MANY_CELLS'],
    toRequest: async (ctx) => ({ caller: ctx.caller, pid: ctx.params.pid, modelId: ctx.params.m, ...(await predictInput(ctx)) }),
    present: presentPredictions,
  }),
];

const flatMap = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String));
/** The EVT parameters as a flat map or as a KSVSMap `{"values":[{…}]}` (the public Rust client's form): its first entry. */
const evtBody = z.preprocess((v) => {
  const o = v as { values?: unknown } | null;
  return typeof o === 'object' && o !== null && Object.keys(o).length === 1 && Array.isArray(o.values) ? (o.values[0] ?? {}) as unknown : v;
}, flatMap);

export const evtRoutes = [
  defineRoute({
    method: 'post', path: '/:user/projects/:pid/:m/evtwrapper', operationId: 'createEvtWrapper', tags: ['models'],
    summary: 'Wrap a model\'s predictions with extreme-value thresholds (synchronous)',
    description: 'Body: a flat map, or the same map as a KSVSMap {"values":[{…}]} (as SymetryML clients send it; its first entry is read): sml_evt_wrapper_res_key (which prediction key to threshold, default res), evt_warmup_size, evt_alpha, evt_quantile, evt_tdigest, evt_window_size, evt_max_exceedances, evt_grimshaw (docs/algorithms.md). Afterwards predict adds evt_is_anomaly, evt_threshold, evt_anomaly_confidence.',
    contract: ops.evtWrapper,
    params: modelParams, body: evtBody,
    success: { status: 200, description: 'EVT Wrapper created for model [<m>]' },
    toRequest: ({ caller, params, body }) => ({ caller, pid: params.pid, modelId: params.m, params: body as Record<string, string> }),
  }),
  defineRoute({
    method: 'delete', path: '/:user/projects/:pid/:m/evtwrapper', operationId: 'deleteEvtWrapper', tags: ['models'], summary: 'Remove a model\'s EVT wrapper',
    contract: ops.evtDelete,
    params: modelParams, success: { status: 200, description: 'removed' },
    toRequest: ({ caller, params }) => ({ caller, pid: params.pid, modelId: params.m }),
  }),
];

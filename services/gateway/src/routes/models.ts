import { dataFrameToProto, type RestDataFrame } from '@sml/core';
import { subjects } from '@sml/bus';
import { sml } from '@sml/proto';
import { defineRoute } from '../route';
import { dataFrame, mlContext, name, userParam, z } from '../schemas';

const projectParams = userParam.extend({ pid: name('project') });
const modelParams = projectParams.extend({ m: name('model') });
const s = (op: string) => subjects.projects(op);

const modelInfo = z.object({
  modelId: z.string(), algo: z.string(), inputAttributeNames: z.array(z.string()), targetAttributeNames: z.array(z.string()),
  info: z.record(z.string(), z.string()), extra: z.record(z.string(), z.string()), assessment: z.record(z.string(), z.number()),
  params: z.record(z.string(), z.string()), creationDate: z.number().int(),
}).openapi('ModelInfo');

const buildQuery = z.object({ modelid: name('model'), algo: z.string().min(1) });
type Ctx = z.infer<typeof mlContext>;

export const modelRoutes = [
  defineRoute({
    method: 'post', path: '/:user/projects/:pid/selectModel', operationId: 'selectModel', tags: ['models'],
    summary: 'Build a model from the summary (a job) and assess it on the request dataframe',
    description: 'Body {mlcontext, dataframe}. extraParameters.selector_type: selector_type_none (default), selector_type_fw_bw, selector_type_simple, selector_type_brute (≤ 16 inputs), selector_type_iteration (selector_iterations, selector_seed); sml_model_assessment_type picks the criterion (rmse, mae, r2 | auc, accuracy, precision, recall, f1, mcc | accuracy, f1_macro, kappa). Candidate models are rebuilt from the summary and scored on the dataframe. The finished job reads 200 Job is finished with values.modelInfo (assessment on the dataframe).',
    service: 'projects', subject: s('selectModel'), request: sml.v1.SelectModelRequest, reply: sml.v1.ModelReply,
    params: projectParams, query: buildQuery,
    body: z.object({ mlcontext: mlContext, dataframe: dataFrame.optional() }),
    success: { status: 202, description: 'SelectModel Job Created' }, createsJob: true,
    errors: ['PROJECT_NOT_FOUND', 'UNKNOWN_ALGORITHM', 'ALGORITHM_NOT_AVAILABLE', 'MODEL_INPUT', 'SINGULAR_SYSTEM', 'UNKNOWN_ATTRIBUTE', 'INVALID_PARAMETER', 'EXECUTOR_FULL'],
    toRequest: ({ caller, params, query, body }) => {
      const b = body as { mlcontext: Ctx; dataframe?: RestDataFrame };
      return { caller, pid: params.pid, modelId: String(query.modelid), algo: String(query.algo), mlcontext: b.mlcontext, dataframe: b.dataframe ? dataFrameToProto(b.dataframe) : null };
    },
  }),
  defineRoute({
    method: 'post', path: '/:user/projects/:pid/build', operationId: 'buildModel', tags: ['models'],
    summary: 'Build a model from the summary (a job), without assessment', description: 'Body: MLContext.',
    service: 'projects', subject: s('selectModel'), request: sml.v1.SelectModelRequest, reply: sml.v1.ModelReply,
    params: projectParams, query: buildQuery, body: mlContext,
    success: { status: 202, description: 'Job Created' }, createsJob: true,
    errors: ['PROJECT_NOT_FOUND', 'UNKNOWN_ALGORITHM', 'ALGORITHM_NOT_AVAILABLE', 'MODEL_INPUT', 'UNKNOWN_ATTRIBUTE', 'EXECUTOR_FULL'],
    toRequest: ({ caller, params, query, body }) => ({ caller, pid: params.pid, modelId: String(query.modelid), algo: String(query.algo), mlcontext: body as Ctx, buildOnly: true }),
  }),
  defineRoute({
    method: 'post', path: '/:user/projects/:pid/kmeansOptimize', operationId: 'kmeansOptimize', tags: ['models'],
    summary: 'k-means over a range of k on the project\'s micro-centroids (a job): WSSSE and silhouette per k',
    description: 'Body: MLContext. The project must have been created with cluster_features. extraParameters: kmeans_k_min (default 2), kmeans_k_max (default min(10, micro-centroids − 1)), rnd_seed, kmeans_n_init, max_iter; inputAttributeNames: a subset of cluster_features (default all). The finished job reads values.KSVDMap.values[], one {k, wssse, silhouette} per k (STATS.md §4: computed from the micro-centroids, the silhouette approximated).',
    service: 'projects', subject: s('kmeansOptimize'), request: sml.v1.SelectModelRequest, reply: sml.v1.ExploreReply,
    params: projectParams, body: mlContext,
    success: { status: 202, description: 'Job Created' }, createsJob: true,
    errors: ['PROJECT_NOT_FOUND', 'MODEL_INPUT', 'UNKNOWN_ATTRIBUTE', 'INVALID_PARAMETER', 'EXECUTOR_FULL'],
    toRequest: ({ caller, params, body }) => ({ caller, pid: params.pid, mlcontext: body as Ctx }),
  }),
  defineRoute({
    method: 'get', path: '/:user/projects/:pid/models/:m', operationId: 'modelInfo', tags: ['models'], summary: 'A model\'s information',
    service: 'projects', subject: s('modelInfo'), request: sml.v1.ModelRequest, reply: sml.v1.ModelReply,
    params: modelParams, values: z.object({ modelInfo }), success: { status: 200, description: 'values.modelInfo' }, errors: ['PROJECT_NOT_FOUND', 'MODEL_NOT_FOUND'],
    toRequest: ({ caller, params }) => ({ caller, pid: params.pid, modelId: params.m }),
  }),
  defineRoute({
    method: 'delete', path: '/:user/projects/:pid/models/:m', operationId: 'deleteModel', tags: ['models'], summary: 'Delete a model',
    service: 'projects', subject: s('modelDelete'), request: sml.v1.ModelRequest, reply: sml.v1.Empty,
    params: modelParams, success: { status: 200, description: 'deleted' }, errors: ['PROJECT_NOT_FOUND', 'MODEL_NOT_FOUND'],
    toRequest: ({ caller, params }) => ({ caller, pid: params.pid, modelId: params.m }),
  }),
  defineRoute({
    method: 'post', path: '/:user/projects/:pid/predict/:m', operationId: 'predict', tags: ['models'],
    summary: 'Predict: one string map per row (keys per algorithm, STATS.md §4); missing inputs are imputed with the project mean at build time',
    service: 'projects', subject: s('predict'), request: sml.v1.PredictRequest, reply: sml.v1.PredictReply,
    params: modelParams, body: dataFrame, values: z.object({ KSVSMap: z.object({ values: z.array(z.record(z.string(), z.string())) }) }),
    success: { status: 200, description: 'values.KSVSMap.values' }, errors: ['PROJECT_NOT_FOUND', 'MODEL_NOT_FOUND'],
    toRequest: ({ caller, params, body }) => ({ caller, pid: params.pid, modelId: params.m, frame: dataFrameToProto(body as RestDataFrame) }),
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
    description: 'Body: a flat map, or the same map as a KSVSMap {"values":[{…}]} (as SymetryML clients send it; its first entry is read): sml_evt_wrapper_res_key (which prediction key to threshold, default res), evt_warmup_size, evt_alpha, evt_quantile, evt_tdigest, evt_window_size, evt_max_exceedances, evt_grimshaw (STATS.md §5). Afterwards predict adds evt_is_anomaly, evt_threshold, evt_anomaly_confidence.',
    service: 'projects', subject: s('evtWrapper'), request: sml.v1.EvtWrapperRequest, reply: sml.v1.Empty,
    params: modelParams, body: evtBody,
    success: { status: 200, description: 'EVT Wrapper created for model [<m>]' }, errors: ['EVT_PROJECT_NOT_FOUND', 'GENERIC_EXCEPTION', 'MODEL_INPUT'],
    toRequest: ({ caller, params, body }) => ({ caller, pid: params.pid, modelId: params.m, params: body as Record<string, string> }),
  }),
  defineRoute({
    method: 'delete', path: '/:user/projects/:pid/:m/evtwrapper', operationId: 'deleteEvtWrapper', tags: ['models'], summary: 'Remove a model\'s EVT wrapper',
    service: 'projects', subject: s('evtDelete'), request: sml.v1.ModelRequest, reply: sml.v1.Empty,
    params: modelParams, success: { status: 200, description: 'removed' }, errors: ['EVT_PROJECT_NOT_FOUND', 'EVT_NOT_FOUND'],
    toRequest: ({ caller, params }) => ({ caller, pid: params.pid, modelId: params.m }),
  }),
];

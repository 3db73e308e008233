/**
 * The examples of the OpenAPI document, one entry per operation (by operationId): the request
 * body where the operation has one, and the answer on its success status. openapi.ts puts
 * them on the operations; test/openapi-examples.test.ts checks that every route has its entry
 * and that each example passes the route's own schemas. A new route is one more entry here.
 *
 * The examples share one story: customer `alice` (secret EXAMPLE_SECRET), project `iris` of
 * the Iris data (four measurements and the binary class Iris_setosa), model `m1`.
 */

/** The envelope every answer is. */
export interface ExampleEnvelope {
  statusCode: number;
  statusString: string;
  values: Record<string, unknown>;
}

export interface OperationExamples {
  /** The request body (JSON, or the text of a raw body such as an encrypted DSInfo). */
  body?: unknown;
  /** The answer on the route's success status. */
  response: ExampleEnvelope;
}

/** The secret key the encrypted DSInfo examples are encrypted with (`encryptDsInfo`, v2). */
export const EXAMPLE_SECRET = 'VLmAm+WkpnA5zp2wXiSYkw==';

/** DSInfo `{type:"localfile", name:"iris_csv", info:{path:"iris.csv"}, extra:[]}`, encrypted. */
const ENCRYPTED_LOCALFILE = 'v2:DiruqfQKo1gbyxWwTWUTmFLKJktDlLWSzNkVabcPBqmuXhPFUvMjpjAp9T8hmpYVnpVJyE2wEwyz1ali2BHlkm2JLawpwU7v+qnmspalro73oy4Yz8GMQ0L7HQB4bH8OtZSG22zzCq4=';
/** DSInfo `{type:"localfile", name:"", info:{path:""}, extra:[]}` (browse the root), encrypted. */
const ENCRYPTED_ROOT = 'v2:vQf2qcDMMnCGcARCljYBOjRgyFXyG5f2XiC3tSd42t0/wjwfDMx6BX14URhFcHzoAZLKkFKQU+BP/mQNZcIuTIgcPAyPZqEYen9peq0LlOkcsY2q5zz7+A==';
/** DSInfo `{type:"kafka", name:"clicks", info:{"bootstrap.servers":"127.0.0.1:9092", "kafka.topic":"clicks"}, extra:[]}`, encrypted. */
const ENCRYPTED_KAFKA = 'v2:0J+cooQXZaK0IkjuT6RI0tgMPPv5rLSdt3G9tOsKMoMBifcB3wetQtbHkkMxFurYUs28zQsAFWd8xWkq8WN6MJRa/qq0aEDPkWNAnVBU5PWS0mBEE5CFaOHnI0IRZxJqA/dhzxXBToiae2Od5sgQONU3kMBNE/84wr4VssClUKzvjXqn09myWrui/tQ=';
/** FusionCellInfoList: iris_b of customer bob on another instance and alice's own iris (`local`), encrypted. */
const ENCRYPTED_CELLS = 'v2:QcuzWrpxkz+IBwrXVUH/b7H53f9Kzf2eoBe4niBS+Y4JkGMD1noiRbhhbQ5B24WOdJrD4tN6lDnvCK2WlZq433I8izflExgFboZ4mH1TkHZJRWuFAqlXnHYgaCVrM62P9RznKygJyaVOyA8bVKU8XW8sE4sdb7v07HLBJw//tS4cmw+iWeFQ2NfJ9m4FOKVsS85B0/KmQfihICigTVuSkMumb1VibvlaEhxN2XOJrAmPdlUjtVhDK5MOuUGItbX1+UkiJk5XzzLjEjEyLXefQimRkaASwiD62E7ah1Ww';
/** FusionCellStatusList of those two cells, both OK with 150 rows, encrypted. */
const ENCRYPTED_CELLS_STATUS = 'v2:rKzpp6d2cxrfwmoRloxrQMQgVTEtgr1hIhgU7gyaAzM8KS+kMWN1jURKoo+/jqFRmoM+KusGQcLDtXEWaEh8tpLj12wX0WQJuBD7zElf9HRpFu9UQ4/eq4FmpWxTHTviMaar2Ou8CLdulP01VHkBh5KTu2StXEougweGoJsZtPb+VCCmGbD7K1YmodFZsqCp1T735qJWpaHYiV/JeAbV/q3+CtF/KXzBk/k7f8rMOFPQJ5VnQVLC/xxH7xNeM+2q5D9cS2UoR9vgUJl2lfjPx2CvtGLIH+zvIlGoCMetfzH74OM8oDzPf7b/k7UWCmvar4Nv70SNbcK7fXImtmtQBYt0BL5zOcpTl3DcgUcg7sh/UIx90vvHNh0RWji9nKqtTWVnayoiTQFPf//BNwFUBN7I10gjbOqV';
/** The federation examples' encrypted map bodies and answers (key EXAMPLE_SECRET, v2); the invitation (`v2p:`, password-encrypted) shortened. */
const ENCRYPTED_FED_CREATE = 'v2:APaJkLFqNMRNqE27KBrigNwF7PBdJ9osXFc/iv+cufL3Oo/SyPrC6+RMMpKKFMQh0/QJpVJeYqYfZBMWUrwWbrB1LZgggeRF1A6XaczCoQyk0B0s1XeiexvgNFv7bu3W2MqNj9sD+MLFTOfWqHu6XNnNlRU6V6iMp8FcPjyO+wKzmVwkaj3mth7Y0M3oULeBdotxKEeJuhZv+jIR855EXIqQC3cwoVSsKrDbA8tJo8GW';
const ENCRYPTED_FED_INVITE = 'v2:nqo+Rwqgt48nEMQDjIyMkarXJ6hFzHJKKN/8Xcqkaw31UncdY7nX1lzk9nY2eGVmZ+lhGh4LdGB57dw3Yop6iZb8RwFrgkFrXm9NSTz1Q9+oevdu96LURw4oKrmDmYp+Do3sBlNG4m3OgoThi2PJlu2Fsy4xa9yw1I/s0hp0ojbHTlVmc1c=';
const ENCRYPTED_FED_JOIN = 'v2:CKX21fyBexxaQMSCqichf+qfybbv3e+/Gtn7gEdRseK3ubOYAYDgMXcNbtG5724s+JbSrEgWIwCJ3DTxrQ7SJJ10KIZGOh6vf5V1ZoQCebicdpI1S5R2j1Gfvq+F8gexqpUfYM8FEAPacrIpBiHJFwM=';
const ENCRYPTED_FED_INFO = 'v2:1p/S7/dN9fuc09ZG/wcFwjyeRPLGfpIt8r1J7wrDnS3g4vck6wAcdZJ30If0Bq8aflUPzGiPw8y8bkb9p/YbKrIv0f9Tr1/w8KMIskH6pAVoN9V286vK+Q6i3ERnx3Dn322D4nKBlBDG4UqMMFnw31QERDETkkPOQeMcR7wQzlTXckp5UDmBgeqYiZMEOpRSI4vJnx3ujhdPgJZpD5cjAF4OW6mFKyL5MqJdZfchhRVOmx9Vvh7LZ+z7wpmCqNC9BzQyWDrGKrMfEDlgY61zh8gYmrwan0b/FiK3vfXG31zu/kKFpRUa489NTyQHVUvTmy7h+OfAh9nUBG5UOm9YYo+rOQSgKP57aPpeoS4D+NzUgHKkTo5hXSZMT9+ijrba28MPsn8K7/OGvOar4u8WyjE3wZZe2tCdeky46HstWUaReAEADPBfevjDR7U2FS19BBX+lz2ylwOWixWULasjQr7//zkv7tOCCf6PrpP4xKJ3WDjWh1plbRjrD8oMZthpzS7vKf9Ybm9FNGtVmZnK1OsQ8MZ5E5nxFmHoZ0cN3Nhj3/kjdQ7pJ6WuECHmz8uBLh/yvzwmb3XSF0lhxuGJMr9zcd9I4Ozwns8cc1CUyeybK/cNEvq9HZyGnLCoTM1FZaMjktUSMC10xzCP8iE9b3ZNb1sIxyzh+RKaDrBdpJBZSMKnCqnDkgZ7KOX6xZfB7WPynzaY5yGiLp7pZPoupbIgkG1r933xs6kQOIUcXeug6UKhuk76ImYaEQYAeXlHAkz0tMxN2OZHwKLG5RZ7hOz49t8xiUOlOed9tnMhaLukMojl3CSF/IY=';
const FED_INVITATION = 'v2p:3q1rQ0Fj2b6Wf8k0pZ9mXh4vL2sN7cT1...';
/** The start of an export document (base64 of the gzipped document), shortened. */
const EXPORT_DOCUMENT = 'H4sIAAAAAAAAA+1YW2/bNhR+968QNI+2pMRx2wX2UKAF...';

const ok = (values: Record<string, unknown> = {}, statusString = 'OK', statusCode = 200): ExampleEnvelope => ({ statusCode, statusString, values });
const jobCreated = (jobId: number, statusString = 'Job Created'): ExampleEnvelope => ok({ jobId }, statusString, 202);

const IRIS_NAMES = ['sepal_length', 'sepal_width', 'petal_length', 'petal_width', 'Iris_setosa'];
const IRIS_TYPES = ['C', 'C', 'C', 'C', 'B'];
const IRIS_ROWS = [['5.1', '3.5', '1.4', '0.2', '1'], ['7.0', '3.2', '4.7', '1.4', '0'], ['6.3', '3.3', '6.0', '2.5', '0']];
const irisFrame = { attributeNames: IRIS_NAMES, attributeTypes: IRIS_TYPES, data: IRIS_ROWS };
const inputsFrame = { attributeNames: IRIS_NAMES.slice(0, 4), attributeTypes: IRIS_TYPES.slice(0, 4), data: IRIS_ROWS.slice(0, 2).map((r) => r.slice(0, 4)) };
const sample = { ...irisFrame, errorHandling: 0 };
const classifierContext = { inputAttributeNames: IRIS_NAMES.slice(0, 4), targetAttributeNames: ['Iris_setosa'], extraParameters: {} };
const exploreBody = { values: [{ inputAttributeNames: ['petal_length'], extraParameters: {} }] };
const matrixBody = { values: [{ inputAttributeNames: IRIS_NAMES.slice(0, 4), extraParameters: {} }] };
const stringList = (values: string[]) => ({ stringList: { values } });
const jobDetails = { p_id: 'iris', ds_name: 'iris_csv', update_type: 'learn', bounded_executor_queue_size: '0' };
const jobInfo = { jobId: 12, jobType: 'learn', owner: 'alice', startingDate: 1764410400000, maximum: 150, current: 150, isOnBoundedExecutor: true, isStarted: true, isDone: true, details: jobDetails };
const smlInfo = {
  pid: 'iris', isDirty: false, modelsList: ['m1'], modelTypeList: ['lda'],
  attributeNames: IRIS_NAMES, attributeIndexes: [0, 1, 2, 3, 4], attributeTypes: IRIS_TYPES,
  modelAssessments: { m1: { scores: { accuracy: 1, auc: 1 } } }, modelPredictions: {}, params: {}, autoSave: true, hash: 1502897201,
  categorySeparator: '$', type: 'cpu', creationDate: 1764410400000, lastModificationDate: 1764410460000, loaded: true, persisted: true, histogramEnabled: true,
};
const learnReport = (rowsLearned: number) => ({ learnReport: { rowsLearned, rowsSkipped: 0, errors: [] } });
const predictions = { KSVSMap: { values: [{ res: '1', resZ: '4.1903', z0: '0', normZ: '2.9331' }, { res: '0', resZ: '-3.8712', z0: '0', normZ: '-2.7098' }] } };
const encoderFrame = { attributeNames: ['Value', 'Count', 'Sum'], attributeTypes: ['S', 'C', 'C'], data: [['red', '40', '30'], ['blue', '10', '2']] };
const keyValues = { ...encoderFrame, errorHandling: 0 };

export const operationExamples: Record<string, OperationExamples> = {
  // jobs
  listJobs: { response: ok({ jobinfolist: [jobInfo] }) },
  getJob: { response: ok(learnReport(150), 'Job is finished') },
  cancelJob: { response: ok({}, 'Job 12 cancellation requested') },
  // users (root only)
  addUser: { response: ok({ secretKey: EXAMPLE_SECRET }, 'Customer [alice] created', 201) },
  deleteUser: { response: ok({}, 'Customer [alice] deleted') },
  // data sources
  createDataSource: { body: ENCRYPTED_LOCALFILE, response: ok({}, 'DS [iris_csv] created', 201) },
  listDataSources: { response: ok(stringList(['iris_csv:localfile'])) },
  previewDataSource: { body: ENCRYPTED_LOCALFILE, response: ok({ dataframe: sample }) },
  getDataSource: { response: ok({ dsInfo: { type: 'localfile', name: 'iris_csv', info: { path: 'iris.csv' }, extra: [] } }) },
  updateDataSource: { body: ENCRYPTED_LOCALFILE, response: ok({}, 'DS [iris_csv] updated') },
  deleteDataSource: { response: ok({}, 'DS [iris_csv] deleted') },
  sampleDataSource: { response: ok({ dataframe: sample }) },
  browseDataSource: { body: ENCRYPTED_ROOT, response: ok({ dsdirectoryListing: { ok: true, dirs: ['archive'], files: ['iris.csv'], path: '' } }) },
  adddsProject: { response: ok({}, 'DS [iris_csv] added to project [iris]') },
  detachdsProject: { response: ok({}, 'DS [iris_csv] detached from project [iris]') },
  projectLfStats: { response: ok({ lfStats: { learnJobs: 1, forgetJobs: 0, failedJobs: 0, rowsLearned: 150, rowsForgotten: 0, rowsSkipped: 0, bytesRead: 4551 } }) },
  learnFromDataSource: { body: { attributeNames: IRIS_NAMES, attributeTypes: IRIS_TYPES, errorHandling: 0 }, response: jobCreated(12) },
  forgetFromDataSource: { body: { attributeNames: IRIS_NAMES, attributeTypes: IRIS_TYPES, errorHandling: 0 }, response: jobCreated(13) },
  predictDataSource: { body: { attributeNames: IRIS_NAMES.slice(0, 4), attributeTypes: IRIS_TYPES.slice(0, 4), errorHandling: 0 }, response: jobCreated(14) },
  selectModelOnDataSource: { body: classifierContext, response: jobCreated(15, 'SelectModel Job Created') },
  autoSelectOnDataSource: { body: classifierContext, response: jobCreated(16, 'SelectModel Job Created') },
  // projects
  createProject: { body: { cluster_features: 'sepal_length:sepal_width:petal_length:petal_width', cluster_num_centroids: 100 }, response: ok({}, 'Project Created with id:iris', 201) },
  listProjects: { response: ok(stringList(['iris'])) },
  createFusionProject: { body: ENCRYPTED_CELLS, response: ok({}, 'Project Created with id:iris_all', 201) },
  fusionCellsStatus: { body: ENCRYPTED_CELLS, response: ok({ cellsStatusEncrypted: ENCRYPTED_CELLS_STATUS }) },
  fusionUpdateCellsInfo: { body: ENCRYPTED_CELLS, response: ok() },
  cellSummary: { response: ok({ summary: EXPORT_DOCUMENT, summaryVersion: '41' }) },
  createFederation: { body: ENCRYPTED_FED_CREATE, response: ok({}, 'Project Created with id:iris', 201) },
  joinFederation: { body: ENCRYPTED_FED_JOIN, response: ok({}, 'Fed Project created with join', 201) },
  federationInfo: { response: ok({ fedInfoEncrypted: ENCRYPTED_FED_INFO }) },
  federationInvitation: { body: ENCRYPTED_FED_INVITE, response: ok({ fedInfoEncrypted: FED_INVITATION, encryptedGroupInfo: FED_INVITATION }) },
  federationInvitationAlias: { body: ENCRYPTED_FED_INVITE, response: ok({ fedInfoEncrypted: FED_INVITATION, encryptedGroupInfo: FED_INVITATION }) },
  federationAwsInfo: { body: ENCRYPTED_FED_CREATE, response: ok() },
  listProjectsCompat: { response: ok(stringList(['iris'])) },
  projectInfo: { response: ok({ smlInfo }) },
  projectInfoAll: { response: jobCreated(17) },
  deleteProject: { response: ok({}, 'Project [iris] deleted') },
  projectLog: {
    response: ok({
      quarantined: [],
      dsLog: [{ jobId: 12, ds: 'iris_csv', op: 'learn', state: 'done', rowsRead: 150, rowsLearned: 150, rowsSkipped: 0, bytesRead: 4551, started: 1764410400000, finished: 1764410400350, error: '' }],
    }),
  },
  learnProject: { body: irisFrame, response: ok(learnReport(3)) },
  forgetProject: { body: irisFrame, response: ok(learnReport(3)) },
  saveProject: { response: ok({}, 'Project [iris] saved') },
  unloadProject: { response: ok({}, 'Project [iris] unloaded') },
  freezeProject: { response: ok({}, 'Project [iris] frozen') },
  unfreezeProject: { response: ok({}, 'Project [iris] unfrozen') },
  mergeProject: { response: ok({}, 'Project [iris2] merged into [iris]') },
  histogramEnable: { response: ok({}, 'Histograms of project [iris] enabled') },
  renameProject: { response: ok({}, 'Project [iris] renamed to [flowers]') },
  exportProject: { response: ok({ status: EXPORT_DOCUMENT, document: EXPORT_DOCUMENT }) },
  importProject: { body: EXPORT_DOCUMENT, response: ok({}, 'Project [iris] imported') },
  importProjectAs: { body: EXPORT_DOCUMENT, response: ok({}, 'Project [iris] imported') },
  exportModel: { response: ok({ status: EXPORT_DOCUMENT, document: EXPORT_DOCUMENT }) },
  importModel: { body: EXPORT_DOCUMENT, response: ok({}, 'Model [m1] imported into project [iris]') },
  // exploration
  explore: {
    body: exploreBody,
    response: ok({
      KSVDMap: { values: [{ count: 150, mean: 3.758, variance: 3.0924, stddev: 1.7585, skewness: -0.2749, kurtosis: -1.4021, stderr: 0.1436, meanMarginErrorC95: 0.2837, min: 1, median: 4.35, max: 6.9 }] },
      approximate: [['min', 'median', 'max']],
    }),
  },
  dataDrift: {
    body: { inputAttributeNames: ['sepal_length', 'petal_length'], extraParameters: { driftPreferenceProjectName: 'iris', driftAnalysisProjectName: 'iris_new', driftMetric: 'marginal_stat' } },
    response: ok({ KSVDMap: { values: [{ driftScore: 0.21, sepal_length_drift: 0.18, sepal_length_pvalue: 0.0132, petal_length_drift: 0.24, petal_length_pvalue: 0.0004 }] } }),
  },
  densityEstimate: {
    body: { values: [{ inputAttributeNames: ['petal_length'], extraParameters: { hist_bins: '4' } }] },
    response: ok({ densityList: { values: [{ attrName: 'petal_length', min: 1, max: 6.9, width: 1.475, histogram: [50, 11.2, 55.3, 33.5], valueForMissing: 0, approximate: ['min', 'max', 'width', 'histogram'] }] } }),
  },
  conditionalDensityEstimate: {
    body: { values: [{ inputAttributeNames: ['Iris_setosa', 'petal_length'], extraParameters: { hist_bins: '2' } }] },
    response: ok({ densityList: { values: [{ attrName: 'petal_length', min: 1, max: 1.9, width: 0.45, histogram: [24, 26], valueForMissing: 0 }] } }),
  },
  exploresvdfs: { body: matrixBody, response: jobCreated(18) },
  explorepca: { body: matrixBody, response: jobCreated(19) },
  exploresvd: { body: matrixBody, response: jobCreated(20) },
  vif: { body: matrixBody, response: jobCreated(21) },
  kaplanMeier: {
    body: { values: [{ type: 'km', times: [5, 10] }] },
    response: ok({ kmResultList: { values: [{ Total: { attributeNames: ['time', 'survival', 'lower', 'upper', 'atRisk', 'events'], attributeTypes: ['C', 'C', 'C', 'C', 'C', 'C'], data: [['5', '0.8', '0.62', '0.9', '40', '10'], ['10', '0.55', '0.37', '0.7', '22', '8']] } }] } }),
  },
  cumulativeIncidence: {
    body: { values: [{ k: 1, times: [5, 10] }] },
    response: ok({ cifPredictionList: { values: [{ sdfmap: { Total: { attributeNames: ['time', 'event_1'], attributeTypes: ['C', 'C'], data: [['5', '0.12'], ['10', '0.3']] } } }] } }),
  },
  // models
  selectModel: { body: { mlcontext: classifierContext, dataframe: irisFrame }, response: jobCreated(22, 'SelectModel Job Created') },
  buildModel: { body: classifierContext, response: jobCreated(23) },
  kmeansOptimize: { body: { inputAttributeNames: IRIS_NAMES.slice(0, 4), targetAttributeNames: [], extraParameters: { kmeans_k_max: '6' } }, response: jobCreated(24) },
  autoSelect: { body: { mlcontext: classifierContext, dataframe: irisFrame }, response: jobCreated(25, 'SelectModel Job Created') },
  reduce: { body: classifierContext, response: jobCreated(26, 'Reduce Job Created') },
  learnPredict: { body: irisFrame, response: ok(predictions) },
  modelInfo: {
    response: ok({
      modelInfo: {
        modelId: 'm1', algo: 'lda', inputAttributeNames: IRIS_NAMES.slice(0, 4), targetAttributeNames: ['Iris_setosa'],
        info: { n: '150' }, extra: {}, assessment: { accuracy: 1, auc: 1 }, params: {}, creationDate: 1764410460000,
      },
    }),
  },
  deleteModel: { response: ok({}, 'Model [m1] deleted') },
  predict: { body: inputsFrame, response: ok(predictions) },
  createEvtWrapper: { body: { sml_evt_wrapper_res_key: 'res', evt_warmup_size: '1000', evt_alpha: '0.001' }, response: ok({}, 'EVT Wrapper created for model [m1]') },
  deleteEvtWrapper: { response: ok({}, 'EVT Wrapper of model [m1] deleted') },
  // encoders
  createEncoder: { body: { values: [{ minTrimSize: '5' }] }, response: ok({}, 'Encoder[colour] with Target[Iris_setosa] created for Customer[alice]', 201) },
  listEncoders: { response: ok(stringList(['colour'])) },
  learnEncoder: { body: { attributeNames: ['colour', 'Iris_setosa'], attributeTypes: ['S', 'B'], data: [['red', '1'], ['blue', '0']] }, response: ok() },
  learnEncoderFromDataSource: { body: ENCRYPTED_LOCALFILE, response: jobCreated(26) },
  encoderStats: { response: ok({ dataframe: { attributeNames: ['key', 'type', 'count', 'mean', 'stddev', 'variance'], attributeTypes: ['S', 'S', 'C', 'C', 'C', 'C'], data: [['colour', 'S', '50', '0.64', '0.48', '0.2304']] }, encoderInfo: { target: 'Iris_setosa', minTrimSize: '5', encoderType: 'B' } }) },
  encoderKeyValues: { response: ok({ dataframe: encoderFrame, valueCount: 2 }) },
  encoderSetValues: { body: keyValues, response: ok() },
  encoderCreateKeyValues: { body: keyValues, response: ok() },
  encoderAssign: { response: ok({}, 'Encoder[colour] assigned to project [iris]') },
  deleteEncoder: { response: ok({}, 'Encoder[colour] deleted') },
  // streams
  createStream: { body: ENCRYPTED_KAFKA, response: ok({}, 'DS Stream created stream with name [clicks] for customer [alice]', 201) },
  listStreams: { response: ok(stringList(['clicks'])) },
  startStream: { response: ok({}, 'Stream [clicks] of project [iris] started') },
  stopStream: { response: ok({}, 'Stream [clicks] of project [iris] stopped') },
  deleteStream: { response: ok({}, 'Stream [clicks] of project [iris] deleted') },
  streamMetrics: { response: ok({ KSVSMap: { values: [{ name: 'clicks', type: 'kafka', topic: 'clicks', state: 'running', replica: 'a1b2c3', recordsRead: '1200', recordsLearned: '1198', recordsRejected: '2', recordsSkipped: '0', batchesLearned: '12', lag: '0', lastError: '', lastErrorTime: '', lastBatchTime: '2025-11-29T10:01:00.000Z', positions: '{"0":1200}', creationDate: '1764410400000' }] } }) },
  streamErrorLog: { response: ok(stringList(['record 17: 5 values for 4 attributes'])) },
  pollStream: { body: ENCRYPTED_KAFKA, response: ok({ dataframe: sample }) },
  deletePoller: { response: ok() },
  browseStreams: { body: ENCRYPTED_KAFKA, response: ok({ dsdirectoryListing: { ok: true, dirs: ['clicks', 'orders'], files: [], path: '' } }) },
  previewStream: { body: ENCRYPTED_KAFKA, response: ok({ dataframe: sample }) },
};

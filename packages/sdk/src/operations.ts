// Generated from the gateway's route table by services/gateway/src/sdk-gen.ts: do not edit.
// After changing a route: npm run build && npm run gen:sdk (services/gateway/test/sdk-gen.test.ts
// fails while this file is not current).
import type { RequestOptions, SmlResponse } from './types';

/** What the operations send through: SmlClient.request. */
export interface OperationSender {
  request<V>(method: string, path: string, options?: RequestOptions): Promise<SmlResponse<V>>;
}

/**
 * A route's options: its query parameters (`Q`, by name; the required ones required), its
 * JSON body (`B`) or a raw one (text such as an encrypted DSInfo), and the call's options
 * (timeout, signal, retries, Idempotency-Key).
 */
export type OperationOptions<Q extends object = Record<never, string>, B = never> = Omit<RequestOptions, 'query' | 'json'> & { query?: Q; json?: B };

/** The options of a route with a required query parameter: its query must be given. */
export type RequiredQuery<Q extends object, B = never> = OperationOptions<Q, B> & { query: Q };

const seg = encodeURIComponent;

/** The OpenAPI schema JobInfo. */
export type JobInfo = {
  jobId: number;
  jobType: string;
  owner: string;
  startingDate: number;
  maximum: number;
  current: number;
  isOnBoundedExecutor: boolean;
  isStarted: boolean;
  isDone: boolean;
  details: Record<string, string>;
};

/** The OpenAPI schema DSInfo. */
export type DSInfo = {
  type: string;
  name: string;
  info: Record<string, string>;
  extra: Array<string>;
};

/** The OpenAPI schema SmlInfo. */
export type SmlInfo = {
  pid: string;
  isDirty: boolean;
  modelsList: Array<string>;
  modelTypeList: Array<string>;
  attributeNames: Array<string>;
  attributeIndexes: Array<number>;
  attributeTypes: Array<'B' | 'C'>;
  modelAssessments: Record<string, {
    scores: Record<string, number>;
  }>;
  modelPredictions: Record<string, string>;
  params: Record<string, string>;
  autoSave: boolean;
  hash: number;
  categorySeparator: string;
  type: string;
  creationDate: number;
  lastModificationDate: number;
  loaded: boolean;
  persisted: boolean;
  histogramEnabled: boolean;
  fusionCellInfo?: string;
};

/** The OpenAPI schema LearnReport. */
export type LearnReport = {
  rowsLearned: number;
  rowsSkipped: number;
  errors: Array<string>;
};

/** The OpenAPI schema DataFrame. */
export type DataFrame = {
  attributeNames: Array<string>;
  attributeTypes: Array<string>;
  data?: Array<Array<string>>;
  errorHandling?: number | null;
};

/** The OpenAPI schema ExploreContext. */
export type ExploreContext = {
  values?: Array<MLContext>;
};

/** The OpenAPI schema MLContext. */
export type MLContext = {
  inputAttributes?: Array<string | number | boolean>;
  inputAttributeNames?: Array<string>;
  targets?: Array<string | number | boolean>;
  targetAttributeNames?: Array<string>;
  extraParameters?: Record<string, string | number | boolean>;
};

/** The OpenAPI schema ModelInfo. */
export type ModelInfo = {
  modelId: string;
  algo: string;
  inputAttributeNames: Array<string>;
  targetAttributeNames: Array<string>;
  info: Record<string, string>;
  extra: Record<string, string>;
  assessment: Record<string, number>;
  params: Record<string, string>;
  creationDate: number;
};

/** The OpenAPI schema EncoderInfo. */
export type EncoderInfo = {
  target: string;
  minTrimSize: string;
  encoderType: string;
};

/** The query parameters of listJobs. */
export type ListJobsQuery = {
  all?: '0' | '1' | 'true' | 'false';
};

/** `values` of a successful listJobs. */
export type ListJobsValues = {
  jobinfolist: Array<JobInfo>;
};

/** The query parameters of addUser. */
export type AddUserQuery = {
  cid: string;
};

/** `values` of a successful addUser. */
export type AddUserValues = {
  secretKey: string;
};

/** The body of createDataSource. */
export type CreateDataSourceBody = string;

/** `values` of a successful listDataSources. */
export type ListDataSourcesValues = {
  stringList: {
    values: Array<string>;
  };
};

/** The body of previewDataSource. */
export type PreviewDataSourceBody = string;

/** `values` of a successful previewDataSource. */
export type PreviewDataSourceValues = {
  dataframe: {
    attributeNames: Array<string>;
    attributeTypes: Array<string>;
    data: Array<Array<string>>;
    errorHandling: number;
  };
};

/** `values` of a successful getDataSource. */
export type GetDataSourceValues = {
  dsInfo: DSInfo;
};

/** The body of updateDataSource. */
export type UpdateDataSourceBody = string;

/** `values` of a successful sampleDataSource. */
export type SampleDataSourceValues = {
  dataframe: {
    attributeNames: Array<string>;
    attributeTypes: Array<string>;
    data: Array<Array<string>>;
    errorHandling: number;
  };
};

/** The body of browseDataSource. */
export type BrowseDataSourceBody = string;

/** `values` of a successful browseDataSource. */
export type BrowseDataSourceValues = {
  dsdirectoryListing: {
    ok: boolean;
    dirs: Array<string>;
    files: Array<string>;
    path: string;
  };
};

/** `values` of a successful projectLfStats. */
export type ProjectLfStatsValues = {
  lfStats: {
    learnJobs: number;
    forgetJobs: number;
    failedJobs: number;
    rowsLearned: number;
    rowsForgotten: number;
    rowsSkipped: number;
    bytesRead: number;
  };
};

/** The query parameters of createFusionProject. */
export type CreateFusionProjectQuery = {
  pid: string;
  persist?: '0' | '1' | 'true' | 'false';
  onCellError?: 'fail' | 'stale';
};

/** The body of createFusionProject. */
export type CreateFusionProjectBody = string;

/** The body of fusionCellsStatus. */
export type FusionCellsStatusBody = string;

/** `values` of a successful fusionCellsStatus. */
export type FusionCellsStatusValues = {
  cellsStatusEncrypted: string;
};

/** The body of fusionUpdateCellsInfo. */
export type FusionUpdateCellsInfoBody = string;

/** The query parameters of cellSummary. */
export type CellSummaryQuery = {
  ifVersion?: string;
};

/** `values` of a successful cellSummary. */
export type CellSummaryValues = {
  summary?: string;
  summaryVersion: string;
  unchanged?: boolean;
};

/** The query parameters of createFederation. */
export type CreateFederationQuery = {
  pid: string;
  persist?: '0' | '1' | 'true' | 'false';
};

/** The body of createFederation. */
export type CreateFederationBody = string;

/** The query parameters of joinFederation. */
export type JoinFederationQuery = {
  pid: string;
  persist?: '0' | '1' | 'true' | 'false';
};

/** The body of joinFederation. */
export type JoinFederationBody = string;

/** `values` of a successful federationInfo. */
export type FederationInfoValues = {
  fedInfoEncrypted: string;
};

/** The body of federationInvitation. */
export type FederationInvitationBody = string;

/** `values` of a successful federationInvitation. */
export type FederationInvitationValues = {
  fedInfoEncrypted: string;
  encryptedGroupInfo: string;
};

/** The body of federationInvitationAlias. */
export type FederationInvitationAliasBody = string;

/** `values` of a successful federationInvitationAlias. */
export type FederationInvitationAliasValues = {
  fedInfoEncrypted: string;
  encryptedGroupInfo: string;
};

/** The body of federationAwsInfo. */
export type FederationAwsInfoBody = string;

/** The query parameters of createProject. */
export type CreateProjectQuery = {
  pid: string;
  type?: string;
  persist?: '0' | '1' | 'true' | 'false';
  enableHistogram?: '0' | '1' | 'true' | 'false';
  histogramType?: string;
};

/** The body of createProject. */
export type CreateProjectBody = Record<string, string | number | boolean>;

/** `values` of a successful listProjects. */
export type ListProjectsValues = {
  stringList: {
    values: Array<string>;
  };
};

/** `values` of a successful listProjectsCompat. */
export type ListProjectsCompatValues = {
  stringList: {
    values: Array<string>;
  };
};

/** The query parameters of projectInfo. */
export type ProjectInfoQuery = {
  async?: '0' | '1' | 'true' | 'false';
  hash?: '0' | '1' | 'true' | 'false';
};

/** `values` of a successful projectInfo. */
export type ProjectInfoValues = {
  smlInfo: SmlInfo;
};

/** `values` of a successful projectLog. */
export type ProjectLogValues = {
  quarantined: Array<{
    seq: number;
    op: string;
    reason: string;
    time: number;
    bytes: number;
  }>;
  dsLog: Array<{
    jobId: number;
    ds: string;
    op: string;
    state: string;
    rowsRead: number;
    rowsLearned: number;
    rowsSkipped: number;
    bytesRead: number;
    started: number;
    finished: number;
    error: string;
  }>;
};

/** The query parameters of learnProject. */
export type LearnProjectQuery = {
  async?: '0' | '1' | 'true' | 'false';
};

/** The body of learnProject. */
export type LearnProjectBody = DataFrame;

/** `values` of a successful learnProject. */
export type LearnProjectValues = {
  learnReport?: LearnReport;
};

/** The query parameters of forgetProject. */
export type ForgetProjectQuery = {
  async?: '0' | '1' | 'true' | 'false';
};

/** The body of forgetProject. */
export type ForgetProjectBody = DataFrame;

/** `values` of a successful forgetProject. */
export type ForgetProjectValues = {
  learnReport?: LearnReport;
};

/** The query parameters of mergeProject. */
export type MergeProjectQuery = {
  otherProjectName: string;
};

/** The query parameters of histogramEnable. */
export type HistogramEnableQuery = {
  enable: '0' | '1' | 'true' | 'false';
};

/** The body of learnFromDataSource. */
export type LearnFromDataSourceBody = {
  attributeNames?: Array<string>;
  attributeTypes?: Array<string>;
  errorHandling?: number | null;
};

/** `values` of a successful learnFromDataSource. */
export type LearnFromDataSourceValues = {
  jobId: number;
};

/** The body of forgetFromDataSource. */
export type ForgetFromDataSourceBody = {
  attributeNames?: Array<string>;
  attributeTypes?: Array<string>;
  errorHandling?: number | null;
};

/** `values` of a successful forgetFromDataSource. */
export type ForgetFromDataSourceValues = {
  jobId: number;
};

/** The query parameters of projectInfoAll. */
export type ProjectInfoAllQuery = {
  async?: '0' | '1' | 'true' | 'false';
};

/** `values` of a successful projectInfoAll. */
export type ProjectInfoAllValues = {
  jobId: number;
};

/** The query parameters of renameProject. */
export type RenameProjectQuery = {
  newName: string;
};

/** `values` of a successful exportProject. */
export type ExportProjectValues = {
  document: string;
  status: string;
};

/** The query parameters of importProject. */
export type ImportProjectQuery = {
  pid?: string;
  persist?: '0' | '1' | 'true' | 'false';
};

/** The body of importProject. */
export type ImportProjectBody = string;

/** The query parameters of importProjectAs. */
export type ImportProjectAsQuery = {
  pid?: string;
  persist?: '0' | '1' | 'true' | 'false';
};

/** The body of importProjectAs. */
export type ImportProjectAsBody = string;

/** The query parameters of exportModel. */
export type ExportModelQuery = {
  modelid: string;
};

/** `values` of a successful exportModel. */
export type ExportModelValues = {
  document: string;
  status: string;
};

/** The query parameters of importModel. */
export type ImportModelQuery = {
  modelid?: string;
};

/** The body of importModel. */
export type ImportModelBody = string;

/** The query parameters of explore. */
export type ExploreQuery = {
  metric: string;
  useLocal?: '0' | '1' | 'true' | 'false';
  returnProjectInfo?: '0' | '1' | 'true' | 'false';
  async?: '0' | '1' | 'true' | 'false';
};

/** The body of explore. */
export type ExploreBody = ExploreContext;

/** `values` of a successful explore. */
export type ExploreValues = {
  KSVDMap: {
    values: Array<Record<string, number>>;
  };
  approximate?: Array<Array<string>>;
  smlInfo?: Record<string, unknown>;
};

/** The body of dataDrift. */
export type DataDriftBody = MLContext;

/** `values` of a successful dataDrift. */
export type DataDriftValues = {
  KSVDMap: {
    values: Array<Record<string, number>>;
  };
  approximate?: Array<Array<string>>;
};

/** The query parameters of densityEstimate. */
export type DensityEstimateQuery = {
  tps?: string;
  useLocal?: '0' | '1' | 'true' | 'false';
};

/** The body of densityEstimate. */
export type DensityEstimateBody = ExploreContext;

/** `values` of a successful densityEstimate. */
export type DensityEstimateValues = {
  densityList: {
    values: Array<{
      attrName: string;
      min: number;
      max: number;
      width: number;
      histogram: Array<number>;
      valueForMissing: number;
      approximate?: Array<string>;
    }>;
  };
};

/** The query parameters of conditionalDensityEstimate. */
export type ConditionalDensityEstimateQuery = {
  tps?: string;
  useLocal?: '0' | '1' | 'true' | 'false';
};

/** The body of conditionalDensityEstimate. */
export type ConditionalDensityEstimateBody = ExploreContext;

/** `values` of a successful conditionalDensityEstimate. */
export type ConditionalDensityEstimateValues = {
  densityList: {
    values: Array<{
      attrName: string;
      min: number;
      max: number;
      width: number;
      histogram: Array<number>;
      valueForMissing: number;
      approximate?: Array<string>;
    }>;
  };
};

/** The query parameters of exploresvdfs. */
export type ExploresvdfsQuery = {
  useLocal?: '0' | '1' | 'true' | 'false';
};

/** The body of exploresvdfs. */
export type ExploresvdfsBody = ExploreContext;

/** `values` of a successful exploresvdfs. */
export type ExploresvdfsValues = {
  jobId: number;
};

/** The query parameters of explorepca. */
export type ExplorepcaQuery = {
  useLocal?: '0' | '1' | 'true' | 'false';
};

/** The body of explorepca. */
export type ExplorepcaBody = ExploreContext;

/** `values` of a successful explorepca. */
export type ExplorepcaValues = {
  jobId: number;
};

/** The query parameters of exploresvd. */
export type ExploresvdQuery = {
  useLocal?: '0' | '1' | 'true' | 'false';
};

/** The body of exploresvd. */
export type ExploresvdBody = ExploreContext;

/** `values` of a successful exploresvd. */
export type ExploresvdValues = {
  jobId: number;
};

/** The query parameters of vif. */
export type VifQuery = {
  useLocal?: '0' | '1' | 'true' | 'false';
};

/** The body of vif. */
export type VifBody = ExploreContext;

/** `values` of a successful vif. */
export type VifValues = {
  jobId: number;
};

/** The body of kaplanMeier. */
export type KaplanMeierBody = {
  values: Array<{
    type: string;
    times: Array<number>;
    group?: string;
    alpha?: number;
  }>;
};

/** `values` of a successful kaplanMeier. */
export type KaplanMeierValues = {
  kmResultList: {
    values: Array<Record<string, {
      attributeNames: Array<string>;
      attributeTypes: Array<string>;
      data: Array<Array<string>>;
    }>>;
  };
};

/** The body of cumulativeIncidence. */
export type CumulativeIncidenceBody = {
  values: Array<{
    k: number;
    group?: string;
    times: Array<number>;
  }>;
};

/** `values` of a successful cumulativeIncidence. */
export type CumulativeIncidenceValues = {
  cifPredictionList: {
    values: Array<{
      sdfmap: Record<string, {
        attributeNames: Array<string>;
        attributeTypes: Array<string>;
        data: Array<Array<string>>;
      }>;
    }>;
  };
};

/** The query parameters of selectModel. */
export type SelectModelQuery = {
  modelid: string;
  algo: string;
};

/** The body of selectModel. */
export type SelectModelBody = {
  mlcontext: MLContext;
  dataframe?: DataFrame;
};

/** `values` of a successful selectModel. */
export type SelectModelValues = {
  jobId: number;
};

/** The query parameters of buildModel. */
export type BuildModelQuery = {
  modelid: string;
  algo: string;
};

/** The body of buildModel. */
export type BuildModelBody = MLContext;

/** `values` of a successful buildModel. */
export type BuildModelValues = {
  jobId: number;
};

/** The body of kmeansOptimize. */
export type KmeansOptimizeBody = MLContext;

/** `values` of a successful kmeansOptimize. */
export type KmeansOptimizeValues = {
  jobId: number;
};

/** The query parameters of autoSelect. */
export type AutoSelectQuery = {
  modelid: string;
  task: string;
};

/** The body of autoSelect. */
export type AutoSelectBody = {
  mlcontext: MLContext;
  dataframe?: DataFrame;
};

/** `values` of a successful autoSelect. */
export type AutoSelectValues = {
  jobId: number;
};

/** The query parameters of reduce. */
export type ReduceQuery = {
  modelid: string;
  algo?: string;
  heuristic?: string;
  delta?: string;
  numIterations?: string;
};

/** The body of reduce. */
export type ReduceBody = MLContext;

/** `values` of a successful reduce. */
export type ReduceValues = {
  jobId: number;
};

/** The query parameters of learnPredict. */
export type LearnPredictQuery = {
  predictBeforeLearn?: '0' | '1' | 'true' | 'false';
  rebuildModel?: '0' | '1' | 'true' | 'false';
  keepColumns?: string;
};

/** The body of learnPredict. */
export type LearnPredictBody = DataFrame;

/** `values` of a successful learnPredict. */
export type LearnPredictValues = {
  KSVSMap: {
    values: Array<Record<string, string>>;
  };
};

/** `values` of a successful modelInfo. */
export type ModelInfoValues = {
  modelInfo: ModelInfo;
};

/** The body of predict. */
export type PredictBody = DataFrame;

/** `values` of a successful predict. */
export type PredictValues = {
  KSVSMap: {
    values: Array<Record<string, string>>;
  };
};

/** The body of createEvtWrapper. */
export type CreateEvtWrapperBody = Record<string, string | number | boolean>;

/** The query parameters of predictDataSource. */
export type PredictDataSourceQuery = {
  indsname: string;
  outdsname: string;
};

/** The body of predictDataSource. */
export type PredictDataSourceBody = {
  attributeNames?: Array<string>;
  attributeTypes?: Array<string>;
  errorHandling?: number | null;
};

/** `values` of a successful predictDataSource. */
export type PredictDataSourceValues = {
  jobId: number;
};

/** The query parameters of selectModelOnDataSource. */
export type SelectModelOnDataSourceQuery = {
  modelid: string;
  algo: string;
};

/** The body of selectModelOnDataSource. */
export type SelectModelOnDataSourceBody = MLContext;

/** `values` of a successful selectModelOnDataSource. */
export type SelectModelOnDataSourceValues = {
  jobId: number;
};

/** The query parameters of autoSelectOnDataSource. */
export type AutoSelectOnDataSourceQuery = {
  modelid: string;
  task: string;
};

/** The body of autoSelectOnDataSource. */
export type AutoSelectOnDataSourceBody = MLContext;

/** `values` of a successful autoSelectOnDataSource. */
export type AutoSelectOnDataSourceValues = {
  jobId: number;
};

/** The query parameters of createEncoder. */
export type CreateEncoderQuery = {
  encodername: string;
  targetName?: string;
  encoderTarget?: string;
  encoderType?: string;
  targetType?: string;
};

/** The body of createEncoder. */
export type CreateEncoderBody = {
  values?: Array<Record<string, string | number>>;
};

/** `values` of a successful listEncoders. */
export type ListEncodersValues = {
  stringList: {
    values: Array<string>;
  };
};

/** The body of learnEncoder. */
export type LearnEncoderBody = DataFrame;

/** The body of learnEncoderFromDataSource. */
export type LearnEncoderFromDataSourceBody = string;

/** `values` of a successful learnEncoderFromDataSource. */
export type LearnEncoderFromDataSourceValues = {
  jobId: number;
};

/** `values` of a successful encoderStats. */
export type EncoderStatsValues = {
  dataframe: {
    attributeNames: Array<string>;
    attributeTypes: Array<string>;
    data: Array<Array<string>>;
  };
  encoderInfo: EncoderInfo;
};

/** The query parameters of encoderKeyValues. */
export type EncoderKeyValuesQuery = {
  offset?: string;
  limit?: string;
};

/** `values` of a successful encoderKeyValues. */
export type EncoderKeyValuesValues = {
  dataframe: {
    attributeNames: Array<string>;
    attributeTypes: Array<string>;
    data: Array<Array<string>>;
  };
  valueCount: number;
};

/** The body of encoderSetValues. */
export type EncoderSetValuesBody = DataFrame;

/** The body of encoderCreateKeyValues. */
export type EncoderCreateKeyValuesBody = DataFrame;

/** The query parameters of encoderAssign. */
export type EncoderAssignQuery = {
  encoderName: string;
};

/** The query parameters of createStream. */
export type CreateStreamQuery = {
  fromBeginning?: '0' | '1' | 'true' | 'false';
};

/** The body of createStream. */
export type CreateStreamBody = string;

/** `values` of a successful listStreams. */
export type ListStreamsValues = {
  stringList: {
    values: Array<string>;
  };
};

/** `values` of a successful streamMetrics. */
export type StreamMetricsValues = {
  KSVSMap: {
    values: Array<Record<string, string>>;
  };
};

/** `values` of a successful streamErrorLog. */
export type StreamErrorLogValues = {
  stringList: {
    values: Array<string>;
  };
};

/** The query parameters of pollStream. */
export type PollStreamQuery = {
  sid?: string;
  fromBeginning?: '0' | '1' | 'true' | 'false';
};

/** The body of pollStream. */
export type PollStreamBody = string;

/** `values` of a successful pollStream. */
export type PollStreamValues = {
  dataframe: {
    attributeNames: Array<string>;
    attributeTypes: Array<string>;
    data: Array<Array<string>>;
    errorHandling: number;
  };
};

/** The query parameters of deletePoller. */
export type DeletePollerQuery = {
  sid?: string;
};

/** The body of browseStreams. */
export type BrowseStreamsBody = string;

/** `values` of a successful browseStreams. */
export type BrowseStreamsValues = {
  dsdirectoryListing: {
    ok: boolean;
    dirs?: Array<string>;
    files?: Array<string>;
    path?: string;
  };
};

/** The body of previewStream. */
export type PreviewStreamBody = string;

/** `values` of a successful previewStream. */
export type PreviewStreamValues = {
  dataframe: {
    attributeNames: Array<string>;
    attributeTypes: Array<string>;
    data: Array<Array<string>>;
    errorHandling: number;
  };
};

/**
 * One method per REST route of the gateway, named by its operationId, path parameters in path
 * order (the customer is the client's). SmlClient.operations; SmlClient's own methods are
 * shorthands over these. A method's `V` defaults to the route's documented `values`.
 */
export class Operations {
  constructor(private readonly client: OperationSender) {}

  /** GET /jobs: List the caller's jobs (all=true: every customer's, root only) */
  listJobs<V = ListJobsValues>(options: OperationOptions<ListJobsQuery, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/jobs`, options);
  }

  /** GET /jobs/:id: Read a job: 202 running (values.jobinfo), 200 finished (the result), failed → 500 with its error */
  getJob<V = Record<string, unknown>>(id: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/jobs/${seg(id)}`, options);
  }

  /** DELETE /jobs/:id: Cancel a queued or running job */
  cancelJob<V = Record<string, unknown>>(id: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('DELETE', `/jobs/${seg(id)}`, options);
  }

  /** POST /users: Create a customer (root only); answers its secret key once */
  addUser<V = AddUserValues>(options: RequiredQuery<AddUserQuery, never>): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/users`, options);
  }

  /** DELETE /users/:cid: Delete a customer (root only) */
  deleteUser<V = Record<string, unknown>>(cid: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('DELETE', `/users/${seg(cid)}`, options);
  }

  /** POST /dss/create: Register a data source (body: encrypted DSInfo) */
  createDataSource<V = Record<string, unknown>>(options: OperationOptions<Record<never, string>, CreateDataSourceBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/dss/create`, options);
  }

  /** GET /dss: The customer's data sources, as "<name>:<type>" */
  listDataSources<V = ListDataSourcesValues>(options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/dss`, options);
  }

  /** POST /dss/sample/preview: Read ≤ 128 rows of an unregistered DSInfo (creates nothing) */
  previewDataSource<V = PreviewDataSourceValues>(options: OperationOptions<Record<never, string>, PreviewDataSourceBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/dss/sample/preview`, options);
  }

  /** GET /dss/:ds: A registered DSInfo, without its credentials */
  getDataSource<V = GetDataSourceValues>(ds: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/dss/${seg(ds)}`, options);
  }

  /** PUT /dss/:ds: Replace a registered DSInfo (body: encrypted DSInfo; the name in the path wins) */
  updateDataSource<V = Record<string, unknown>>(ds: string, options: OperationOptions<Record<never, string>, UpdateDataSourceBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('PUT', `/dss/${seg(ds)}`, options);
  }

  /** DELETE /dss/:ds: Delete a registered data source (its files are untouched) */
  deleteDataSource<V = Record<string, unknown>>(ds: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('DELETE', `/dss/${seg(ds)}`, options);
  }

  /** GET /dss/:ds/sample: The first ≤ 128 rows of a registered data source */
  sampleDataSource<V = SampleDataSourceValues>(ds: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/dss/${seg(ds)}/sample`, options);
  }

  /** POST /projects/dsbrowse: List directories and files under a localfile path or an s3 prefix (body: encrypted DSInfo, info.path; empty = the root) */
  browseDataSource<V = BrowseDataSourceValues>(options: OperationOptions<Record<never, string>, BrowseDataSourceBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/dsbrowse`, options);
  }

  /** GET /projects/:pid/addds/:ds: Attach a data source to the project (its dsList) */
  adddsProject<V = Record<string, unknown>>(pid: string, ds: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/addds/${seg(ds)}`, options);
  }

  /** GET /projects/:pid/detachds/:ds: Detach a data source from the project */
  detachdsProject<V = Record<string, unknown>>(pid: string, ds: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/detachds/${seg(ds)}`, options);
  }

  /** GET /projects/:pid/getLFStats: Learn/forget statistics of the project's data-source jobs */
  projectLfStats<V = ProjectLfStatsValues>(pid: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/getLFStats`, options);
  }

  /** POST /projects/fusion/create: Create a fusion project: its statistics are the exact merge of its cells' summaries */
  createFusionProject<V = Record<string, unknown>>(options: RequiredQuery<CreateFusionProjectQuery, CreateFusionProjectBody>): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/fusion/create`, options);
  }

  /** POST /projects/fusion/:pid/cellsStatus: Probe a fusion project's cells now */
  fusionCellsStatus<V = FusionCellsStatusValues>(pid: string, options: OperationOptions<Record<never, string>, FusionCellsStatusBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/fusion/${seg(pid)}/cellsStatus`, options);
  }

  /** POST /projects/fusion/:pid/updateCellsInfo: Replace a fusion project's cell list */
  fusionUpdateCellsInfo<V = Record<string, unknown>>(pid: string, options: OperationOptions<Record<never, string>, FusionUpdateCellsInfoBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/fusion/${seg(pid)}/updateCellsInfo`, options);
  }

  /** GET /projects/:pid/summary: A project's summary for a fusion project on another instance (the cell protocol) */
  cellSummary<V = CellSummaryValues>(pid: string, options: OperationOptions<CellSummaryQuery, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/summary`, options);
  }

  /** POST /fedml/create: Create a federated project and its federation; the caller's node becomes the admin */
  createFederation<V = Record<string, unknown>>(options: RequiredQuery<CreateFederationQuery, CreateFederationBody>): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/fedml/create`, options);
  }

  /** POST /fedml/createJoin: Join a federation with an invitation: creates the local federated project */
  joinFederation<V = Record<string, unknown>>(options: RequiredQuery<JoinFederationQuery, JoinFederationBody>): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/fedml/createJoin`, options);
  }

  /** GET /fedml/:pid/info: The federation of a federated project, encrypted */
  federationInfo<V = FederationInfoValues>(pid: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/fedml/${seg(pid)}/info`, options);
  }

  /** POST /fedml/:pid/getInvitation: Issue an invitation to join the federation (admin only) */
  federationInvitation<V = FederationInvitationValues>(pid: string, options: OperationOptions<Record<never, string>, FederationInvitationBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/fedml/${seg(pid)}/getInvitation`, options);
  }

  /** POST /fedml/:pid/getEncrypted: Issue an invitation to join the federation (admin only) (alias of getInvitation) */
  federationInvitationAlias<V = FederationInvitationAliasValues>(pid: string, options: OperationOptions<Record<never, string>, FederationInvitationAliasBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/fedml/${seg(pid)}/getEncrypted`, options);
  }

  /** POST /fedml/:pid/awsinfo: AWS-backed federation: refused */
  federationAwsInfo<V = Record<string, unknown>>(pid: string, options: OperationOptions<Record<never, string>, FederationAwsInfoBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/fedml/${seg(pid)}/awsinfo`, options);
  }

  /** POST /projects: Create a project */
  createProject<V = Record<string, unknown>>(options: RequiredQuery<CreateProjectQuery, CreateProjectBody>): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects`, options);
  }

  /** GET /projects: List the caller's project ids */
  listProjects<V = ListProjectsValues>(options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects`, options);
  }

  /** GET /projects/list: List the caller's project ids (SymetryML's path for GET /{user}/projects) */
  listProjectsCompat<V = ListProjectsCompatValues>(options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/list`, options);
  }

  /** GET /projects/:pid/info: Project information (smlInfo) */
  projectInfo<V = ProjectInfoValues>(pid: string, options: OperationOptions<ProjectInfoQuery, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/info`, options);
  }

  /** DELETE /projects/:pid: Delete a project, its models and its state */
  deleteProject<V = Record<string, unknown>>(pid: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('DELETE', `/projects/${seg(pid)}`, options);
  }

  /** GET /projects/:pid/getDsLog: The project's learn/forget log */
  projectLog<V = ProjectLogValues>(pid: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/getDsLog`, options);
  }

  /** POST /projects/:pid/learn: Learn a DataFrame into the project summary (new attributes are appended) */
  learnProject<V = LearnProjectValues>(pid: string, options: OperationOptions<LearnProjectQuery, LearnProjectBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/learn`, options);
  }

  /** POST /projects/:pid/forget: Forget a DataFrame: the exact inverse of learn */
  forgetProject<V = ForgetProjectValues>(pid: string, options: OperationOptions<ForgetProjectQuery, ForgetProjectBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/forget`, options);
  }

  /** GET /projects/:pid/save: Write a snapshot now */
  saveProject<V = Record<string, unknown>>(pid: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/save`, options);
  }

  /** GET /projects/:pid/unload: Snapshot and drop from memory; reloaded on next access */
  unloadProject<V = Record<string, unknown>>(pid: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/unload`, options);
  }

  /** GET /projects/:pid/freeze: Refuse learn and forget until unfreeze */
  freezeProject<V = Record<string, unknown>>(pid: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/freeze`, options);
  }

  /** GET /projects/:pid/unfreeze: Allow learn and forget again */
  unfreezeProject<V = Record<string, unknown>>(pid: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/unfreeze`, options);
  }

  /** GET /projects/:pid/merge: Add another project's statistics to this one (made durable by a snapshot before answering) */
  mergeProject<V = Record<string, unknown>>(pid: string, options: RequiredQuery<MergeProjectQuery, never>): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/merge`, options);
  }

  /** POST /projects/:pid/histogramEnable: Switch histograms on or off */
  histogramEnable<V = Record<string, unknown>>(pid: string, options: RequiredQuery<HistogramEnableQuery, never>): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/histogramEnable`, options);
  }

  /** POST /projects/:pid/dss/:ds/learn: Learn the rows of a registered data source (always a job) */
  learnFromDataSource<V = LearnFromDataSourceValues>(pid: string, ds: string, options: OperationOptions<Record<never, string>, LearnFromDataSourceBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/dss/${seg(ds)}/learn`, options);
  }

  /** POST /projects/:pid/dss/:ds/forget: Forget the rows of a registered data source (always a job) */
  forgetFromDataSource<V = ForgetFromDataSourceValues>(pid: string, ds: string, options: OperationOptions<Record<never, string>, ForgetFromDataSourceBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/dss/${seg(ds)}/forget`, options);
  }

  /** GET /projects/info: smlInfo of every project of the caller (values.smlInfoList.values) */
  projectInfoAll<V = ProjectInfoAllValues>(options: OperationOptions<ProjectInfoAllQuery, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/info`, options);
  }

  /** GET /projects/:pid/rename: Rename a project: its statistics, models, data sources and encoder follow */
  renameProject<V = Record<string, unknown>>(pid: string, options: RequiredQuery<RenameProjectQuery, never>): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/rename`, options);
  }

  /** GET /projects/:pid/export: The project as one portable, versioned document (settings, statistics, models), base64 */
  exportProject<V = ExportProjectValues>(pid: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/export`, options);
  }

  /** POST /projects/import: Create a project from an exported document (all or nothing) */
  importProject<V = Record<string, unknown>>(options: OperationOptions<ImportProjectQuery, ImportProjectBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/import`, options);
  }

  /** POST /projects/:pid/import: Create a project from an exported document (all or nothing) */
  importProjectAs<V = Record<string, unknown>>(pid: string, options: OperationOptions<ImportProjectAsQuery, ImportProjectAsBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/import`, options);
  }

  /** GET /projects/:pid/model/export: A model as a portable, versioned document, base64 */
  exportModel<V = ExportModelValues>(pid: string, options: RequiredQuery<ExportModelQuery, never>): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/model/export`, options);
  }

  /** POST /projects/:pid/model/import: Add an exported model to a project (under modelid, else its own id; a model of that id is replaced, as a build replaces it) */
  importModel<V = Record<string, unknown>>(pid: string, options: OperationOptions<ImportModelQuery, ImportModelBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/model/import`, options);
  }

  /** POST /projects/:pid/explore: Explore: descriptive statistics and tests, one result map per MLContext */
  explore<V = ExploreValues>(pid: string, options: RequiredQuery<ExploreQuery, ExploreBody>): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/explore`, options);
  }

  /** POST /projects/dataDrift: Data drift between two projects: one map {driftScore, <attribute>_drift…} */
  dataDrift<V = DataDriftValues>(options: OperationOptions<Record<never, string>, DataDriftBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/dataDrift`, options);
  }

  /** POST /projects/:pid/densityEstimate: Histogram density of one attribute per entry */
  densityEstimate<V = DensityEstimateValues>(pid: string, options: OperationOptions<DensityEstimateQuery, DensityEstimateBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/densityEstimate`, options);
  }

  /** POST /projects/:pid/conditionalDensityEstimate: Density of a target attribute over the rows where a binary conditional attribute is 1 (names [conditional, target]) */
  conditionalDensityEstimate<V = ConditionalDensityEstimateValues>(pid: string, options: OperationOptions<ConditionalDensityEstimateQuery, ConditionalDensityEstimateBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/conditionalDensityEstimate`, options);
  }

  /** POST /projects/:pid/exploresvdfs: SVD feature selection (always a job): values.KSVSMap.values[] maps input position → name of the kept inputs */
  exploresvdfs<V = ExploresvdfsValues>(pid: string, options: OperationOptions<ExploresvdfsQuery, ExploresvdfsBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/exploresvdfs`, options);
  }

  /** POST /projects/:pid/explorepca: PCA of the correlation (or covariance, pca_use_covariance=true) matrix (job): values.pcaList[] */
  explorepca<V = ExplorepcaValues>(pid: string, options: OperationOptions<ExplorepcaQuery, ExplorepcaBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/explorepca`, options);
  }

  /** POST /projects/:pid/exploresvd: SVD of the correlation matrix (job): values.svdList[] */
  exploresvd<V = ExploresvdValues>(pid: string, options: OperationOptions<ExploresvdQuery, ExploresvdBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/exploresvd`, options);
  }

  /** POST /projects/:pid/vif: Variance inflation factors (job): values.KSVDMap.values[] attribute → VIF */
  vif<V = VifValues>(pid: string, options: OperationOptions<VifQuery, VifBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/vif`, options);
  }

  /** POST /projects/:pid/km/kaplanmeier: Kaplan-Meier survival at the given times, per group (+ Total when no group is given) */
  kaplanMeier<V = KaplanMeierValues>(pid: string, options: OperationOptions<Record<never, string>, KaplanMeierBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/km/kaplanmeier`, options);
  }

  /** POST /projects/:pid/cif/predictEvent: Cumulative incidence of event type k at the given times (Aalen-Johansen) */
  cumulativeIncidence<V = CumulativeIncidenceValues>(pid: string, options: OperationOptions<Record<never, string>, CumulativeIncidenceBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/cif/predictEvent`, options);
  }

  /** POST /projects/:pid/selectModel: Build a model from the summary (a job) and assess it on the request dataframe */
  selectModel<V = SelectModelValues>(pid: string, options: RequiredQuery<SelectModelQuery, SelectModelBody>): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/selectModel`, options);
  }

  /** POST /projects/:pid/build: Build a model from the summary (a job), without assessment */
  buildModel<V = BuildModelValues>(pid: string, options: RequiredQuery<BuildModelQuery, BuildModelBody>): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/build`, options);
  }

  /** POST /projects/:pid/kmeansOptimize: k-means over a range of k on the project's micro-centroids (a job): WSSSE and silhouette per k */
  kmeansOptimize<V = KmeansOptimizeValues>(pid: string, options: OperationOptions<Record<never, string>, KmeansOptimizeBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/kmeansOptimize`, options);
  }

  /** POST /projects/:pid/autoSelect: Try every algorithm of a task × feature subsets × a parameter grid on the request dataframe (a job); keep the best as modelid */
  autoSelect<V = AutoSelectValues>(pid: string, options: RequiredQuery<AutoSelectQuery, AutoSelectBody>): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/autoSelect`, options);
  }

  /** POST /projects/:pid/reduce: Reduce the inputs of a model from the summary (a job): backward elimination, then swap passes; keep the model on the survivors as modelid */
  reduce<V = ReduceValues>(pid: string, options: RequiredQuery<ReduceQuery, ReduceBody>): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/reduce`, options);
  }

  /** POST /projects/:pid/learnpredict/:m: Learn a DataFrame (as POST learn) and predict its rows with model m (as POST predict/{m}), one call */
  learnPredict<V = LearnPredictValues>(pid: string, m: string, options: OperationOptions<LearnPredictQuery, LearnPredictBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/learnpredict/${seg(m)}`, options);
  }

  /** GET /projects/:pid/models/:m: A model's information */
  modelInfo<V = ModelInfoValues>(pid: string, m: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/models/${seg(m)}`, options);
  }

  /** DELETE /projects/:pid/models/:m: Delete a model */
  deleteModel<V = Record<string, unknown>>(pid: string, m: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('DELETE', `/projects/${seg(pid)}/models/${seg(m)}`, options);
  }

  /** POST /projects/:pid/predict/:m: Predict: one string map per row (keys per algorithm: docs/algorithms.md); missing inputs are imputed with the project mean at build time */
  predict<V = PredictValues>(pid: string, m: string, options: OperationOptions<Record<never, string>, PredictBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/predict/${seg(m)}`, options);
  }

  /** POST /projects/:pid/:m/evtwrapper: Wrap a model's predictions with extreme-value thresholds (synchronous) */
  createEvtWrapper<V = Record<string, unknown>>(pid: string, m: string, options: OperationOptions<Record<never, string>, CreateEvtWrapperBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/${seg(m)}/evtwrapper`, options);
  }

  /** DELETE /projects/:pid/:m/evtwrapper: Remove a model's EVT wrapper */
  deleteEvtWrapper<V = Record<string, unknown>>(pid: string, m: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('DELETE', `/projects/${seg(pid)}/${seg(m)}/evtwrapper`, options);
  }

  /** POST /projects/:pid/dss/predict/:m: Batch scoring (a job): predict every row of data source indsname with model m, write the rows and their predictions to data source outdsname */
  predictDataSource<V = PredictDataSourceValues>(pid: string, m: string, options: RequiredQuery<PredictDataSourceQuery, PredictDataSourceBody>): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/dss/predict/${seg(m)}`, options);
  }

  /** POST /projects/:pid/selectModel/:ds: selectModel (a job) scored on the rows of a registered data source instead of an inline dataframe */
  selectModelOnDataSource<V = SelectModelOnDataSourceValues>(pid: string, ds: string, options: RequiredQuery<SelectModelOnDataSourceQuery, SelectModelOnDataSourceBody>): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/selectModel/${seg(ds)}`, options);
  }

  /** POST /projects/:pid/autoSelect/:ds: autoSelect (a job) scored on the rows of a registered data source instead of an inline dataframe */
  autoSelectOnDataSource<V = AutoSelectOnDataSourceValues>(pid: string, ds: string, options: RequiredQuery<AutoSelectOnDataSourceQuery, AutoSelectOnDataSourceBody>): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/autoSelect/${seg(ds)}`, options);
  }

  /** POST /encoders/create: Create an encoder */
  createEncoder<V = Record<string, unknown>>(options: RequiredQuery<CreateEncoderQuery, CreateEncoderBody>): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/encoders/create`, options);
  }

  /** GET /encoders: List the caller's encoder names */
  listEncoders<V = ListEncodersValues>(options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/encoders`, options);
  }

  /** POST /encoders/:e/learn: Learn a DataFrame into an encoder */
  learnEncoder<V = Record<string, unknown>>(e: string, options: OperationOptions<Record<never, string>, LearnEncoderBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/encoders/${seg(e)}/learn`, options);
  }

  /** POST /encoders/:e/learnds: Learn an encoder from a data source (always a job) */
  learnEncoderFromDataSource<V = LearnEncoderFromDataSourceValues>(e: string, options: OperationOptions<Record<never, string>, LearnEncoderFromDataSourceBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/encoders/${seg(e)}/learnds`, options);
  }

  /** GET /encoders/:e/stats: Per key: the distinct values seen and the mean, standard deviation and variance of their counts */
  encoderStats<V = EncoderStatsValues>(e: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/encoders/${seg(e)}/stats`, options);
  }

  /** GET /encoders/:e/keyvals/:key: The values of one key: DataFrame Value, Count, Sum (of the target) */
  encoderKeyValues<V = EncoderKeyValuesValues>(e: string, key: string, options: OperationOptions<EncoderKeyValuesQuery, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/encoders/${seg(e)}/keyvals/${seg(key)}`, options);
  }

  /** POST /encoders/:e/keyvals/:key/setValues: Replace the count and sum of values of one key */
  encoderSetValues<V = Record<string, unknown>>(e: string, key: string, options: OperationOptions<Record<never, string>, EncoderSetValuesBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/encoders/${seg(e)}/keyvals/${seg(key)}/setValues`, options);
  }

  /** POST /encoders/:e/createKeyValues: Add counts and sums to values of keys (created as needed) */
  encoderCreateKeyValues<V = Record<string, unknown>>(e: string, options: OperationOptions<Record<never, string>, EncoderCreateKeyValuesBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/encoders/${seg(e)}/createKeyValues`, options);
  }

  /** GET /projects/:pid/encoderAssign: Assign an encoder to a project: its S/L columns are then learned, forgotten and predicted as encoded numeric (C) attributes */
  encoderAssign<V = Record<string, unknown>>(pid: string, options: RequiredQuery<EncoderAssignQuery, never>): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/encoderAssign`, options);
  }

  /** DELETE /encoders/:e: Delete an encoder (409 while a project uses it) */
  deleteEncoder<V = Record<string, unknown>>(e: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('DELETE', `/encoders/${seg(e)}`, options);
  }

  /** POST /projects/:pid/streams/create: Create a stream (body: encrypted DSInfo of type kafka or nats) and start learning its records into the project */
  createStream<V = Record<string, unknown>>(pid: string, options: OperationOptions<CreateStreamQuery, CreateStreamBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/streams/create`, options);
  }

  /** GET /projects/:pid/streams/list: The names of the project's streams */
  listStreams<V = ListStreamsValues>(pid: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/streams/list`, options);
  }

  /** GET /projects/:pid/streams/:s/start: Resume a stopped stream from where it stopped */
  startStream<V = Record<string, unknown>>(pid: string, s: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/streams/${seg(s)}/start`, options);
  }

  /** GET /projects/:pid/streams/:s/stop: Suspend a stream (it resumes from here on start) */
  stopStream<V = Record<string, unknown>>(pid: string, s: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/streams/${seg(s)}/stop`, options);
  }

  /** DELETE /projects/:pid/streams/:s: Stop and remove a stream (its consumer group / durable consumer too) */
  deleteStream<V = Record<string, unknown>>(pid: string, s: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('DELETE', `/projects/${seg(pid)}/streams/${seg(s)}`, options);
  }

  /** GET /projects/:pid/streams/:s/metrics: Records read, learned, rejected, skipped (redelivered, learned before), lag, last error, state */
  streamMetrics<V = StreamMetricsValues>(pid: string, s: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/streams/${seg(s)}/metrics`, options);
  }

  /** GET /projects/:pid/streams/:s/errorLog: The stream's most recent errors (SML_STREAM_ERROR_LOG of them), oldest first */
  streamErrorLog<V = StreamErrorLogValues>(pid: string, s: string, options: OperationOptions<Record<never, string>, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/streams/${seg(s)}/errorLog`, options);
  }

  /** POST /streams/poll: The next records of a Kafka poller as values.dataframe */
  pollStream<V = PollStreamValues>(options: OperationOptions<PollStreamQuery, PollStreamBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/streams/poll`, options);
  }

  /** DELETE /streams/poll: Close the poller named sid; a registered kafka data source of that name is deleted too */
  deletePoller<V = Record<string, unknown>>(options: OperationOptions<DeletePollerQuery, never> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('DELETE', `/streams/poll`, options);
  }

  /** POST /streams/browse: List the topics of a Kafka cluster, or the JetStream streams and a stream's subjects of a NATS server (body: encrypted DSInfo) */
  browseStreams<V = BrowseStreamsValues>(options: OperationOptions<Record<never, string>, BrowseStreamsBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/streams/browse`, options);
  }

  /** POST /streams/preview: A sample DataFrame of a Kafka topic or NATS subject (body: encrypted DSInfo); registers nothing, touches no poller */
  previewStream<V = PreviewStreamValues>(options: OperationOptions<Record<never, string>, PreviewStreamBody> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/streams/preview`, options);
  }
}

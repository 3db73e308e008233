// Generated from the gateway's route table by services/gateway/src/sdk-gen.ts: do not edit.
// After changing a route: npm run build && npm run gen:sdk (services/gateway/test/sdk-gen.test.ts
// fails while this file is not current).
import type { RequestOptions, SmlResponse } from './types';

/** What the operations send through: SmlClient.request. */
export interface OperationSender {
  request<V>(method: string, path: string, options?: RequestOptions): Promise<SmlResponse<V>>;
}

/** A route's options: its query parameters by name, and a body (json, or raw text such as an encrypted DSInfo). */
export type OperationOptions<Q extends string = never> = Omit<RequestOptions, 'query'> & { query?: { [K in Q]?: string } };

const seg = encodeURIComponent;

/**
 * One method per REST route of the gateway, named by its operationId, path parameters in path
 * order (the customer is the client's). SmlClient.operations; SmlClient's own methods are
 * shorthands over these.
 */
export class Operations {
  constructor(private readonly client: OperationSender) {}

  /** GET /jobs: List the caller's jobs (all=true: every customer's, root only) */
  listJobs<V = Record<string, unknown>>(options: OperationOptions<'all'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/jobs`, options);
  }

  /** GET /jobs/:id: Read a job: 202 running (values.jobinfo), 200 finished (the result), failed → 500 with its error */
  getJob<V = Record<string, unknown>>(id: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/jobs/${seg(id)}`, options);
  }

  /** DELETE /jobs/:id: Cancel a queued or running job */
  cancelJob<V = Record<string, unknown>>(id: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('DELETE', `/jobs/${seg(id)}`, options);
  }

  /** POST /users: Create a customer (root only); answers its secret key once */
  addUser<V = Record<string, unknown>>(options: OperationOptions<'cid'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/users`, options);
  }

  /** DELETE /users/:cid: Delete a customer (root only) */
  deleteUser<V = Record<string, unknown>>(cid: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('DELETE', `/users/${seg(cid)}`, options);
  }

  /** POST /dss/create: Register a data source (body: encrypted DSInfo) */
  createDataSource<V = Record<string, unknown>>(options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/dss/create`, options);
  }

  /** GET /dss: The customer's data sources, as "<name>:<type>" */
  listDataSources<V = Record<string, unknown>>(options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/dss`, options);
  }

  /** POST /dss/sample/preview: Read ≤ 128 rows of an unregistered DSInfo (creates nothing) */
  previewDataSource<V = Record<string, unknown>>(options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/dss/sample/preview`, options);
  }

  /** GET /dss/:ds: A registered DSInfo, without its credentials */
  getDataSource<V = Record<string, unknown>>(ds: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/dss/${seg(ds)}`, options);
  }

  /** PUT /dss/:ds: Replace a registered DSInfo (body: encrypted DSInfo; the name in the path wins) */
  updateDataSource<V = Record<string, unknown>>(ds: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('PUT', `/dss/${seg(ds)}`, options);
  }

  /** DELETE /dss/:ds: Delete a registered data source (its files are untouched) */
  deleteDataSource<V = Record<string, unknown>>(ds: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('DELETE', `/dss/${seg(ds)}`, options);
  }

  /** GET /dss/:ds/sample: The first ≤ 128 rows of a registered data source */
  sampleDataSource<V = Record<string, unknown>>(ds: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/dss/${seg(ds)}/sample`, options);
  }

  /** POST /projects/dsbrowse: List directories and files under a localfile path or an s3 prefix (body: encrypted DSInfo, info.path; empty = the root) */
  browseDataSource<V = Record<string, unknown>>(options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/dsbrowse`, options);
  }

  /** GET /projects/:pid/addds/:ds: Attach a data source to the project (its dsList) */
  adddsProject<V = Record<string, unknown>>(pid: string, ds: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/addds/${seg(ds)}`, options);
  }

  /** GET /projects/:pid/detachds/:ds: Detach a data source from the project */
  detachdsProject<V = Record<string, unknown>>(pid: string, ds: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/detachds/${seg(ds)}`, options);
  }

  /** GET /projects/:pid/getLFStats: Learn/forget statistics of the project's data-source jobs */
  projectLfStats<V = Record<string, unknown>>(pid: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/getLFStats`, options);
  }

  /** POST /projects/fusion/create: Create a fusion project: its statistics are the exact merge of its cells' summaries */
  createFusionProject<V = Record<string, unknown>>(options: OperationOptions<'pid' | 'persist' | 'onCellError'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/fusion/create`, options);
  }

  /** POST /projects/fusion/:pid/cellsStatus: Probe a fusion project's cells now */
  fusionCellsStatus<V = Record<string, unknown>>(pid: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/fusion/${seg(pid)}/cellsStatus`, options);
  }

  /** POST /projects/fusion/:pid/updateCellsInfo: Replace a fusion project's cell list */
  fusionUpdateCellsInfo<V = Record<string, unknown>>(pid: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/fusion/${seg(pid)}/updateCellsInfo`, options);
  }

  /** GET /projects/:pid/summary: A project's summary for a fusion project on another instance (the cell protocol) */
  cellSummary<V = Record<string, unknown>>(pid: string, options: OperationOptions<'ifVersion'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/summary`, options);
  }

  /** POST /fedml/create: Create a federated project and its federation; the caller's node becomes the admin */
  createFederation<V = Record<string, unknown>>(options: OperationOptions<'pid' | 'persist'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/fedml/create`, options);
  }

  /** POST /fedml/createJoin: Join a federation with an invitation: creates the local federated project */
  joinFederation<V = Record<string, unknown>>(options: OperationOptions<'pid' | 'persist'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/fedml/createJoin`, options);
  }

  /** GET /fedml/:pid/info: The federation of a federated project, encrypted */
  federationInfo<V = Record<string, unknown>>(pid: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/fedml/${seg(pid)}/info`, options);
  }

  /** POST /fedml/:pid/getInvitation: Issue an invitation to join the federation (admin only) */
  federationInvitation<V = Record<string, unknown>>(pid: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/fedml/${seg(pid)}/getInvitation`, options);
  }

  /** POST /fedml/:pid/getEncrypted: Issue an invitation to join the federation (admin only) (alias of getInvitation) */
  federationInvitationAlias<V = Record<string, unknown>>(pid: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/fedml/${seg(pid)}/getEncrypted`, options);
  }

  /** POST /fedml/:pid/awsinfo: AWS-backed federation: refused */
  federationAwsInfo<V = Record<string, unknown>>(pid: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/fedml/${seg(pid)}/awsinfo`, options);
  }

  /** POST /projects: Create a project */
  createProject<V = Record<string, unknown>>(options: OperationOptions<'pid' | 'type' | 'persist' | 'enableHistogram' | 'histogramType'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects`, options);
  }

  /** GET /projects: List the caller's project ids */
  listProjects<V = Record<string, unknown>>(options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects`, options);
  }

  /** GET /projects/list: List the caller's project ids (SymetryML's path for GET /{user}/projects) */
  listProjectsCompat<V = Record<string, unknown>>(options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/list`, options);
  }

  /** GET /projects/:pid/info: Project information (smlInfo) */
  projectInfo<V = Record<string, unknown>>(pid: string, options: OperationOptions<'async' | 'hash'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/info`, options);
  }

  /** DELETE /projects/:pid: Delete a project, its models and its state */
  deleteProject<V = Record<string, unknown>>(pid: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('DELETE', `/projects/${seg(pid)}`, options);
  }

  /** GET /projects/:pid/getDsLog: The project's learn/forget log */
  projectLog<V = Record<string, unknown>>(pid: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/getDsLog`, options);
  }

  /** POST /projects/:pid/learn: Learn a DataFrame into the project summary (new attributes are appended) */
  learnProject<V = Record<string, unknown>>(pid: string, options: OperationOptions<'async'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/learn`, options);
  }

  /** POST /projects/:pid/forget: Forget a DataFrame: the exact inverse of learn */
  forgetProject<V = Record<string, unknown>>(pid: string, options: OperationOptions<'async'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/forget`, options);
  }

  /** GET /projects/:pid/save: Write a snapshot now */
  saveProject<V = Record<string, unknown>>(pid: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/save`, options);
  }

  /** GET /projects/:pid/unload: Snapshot and drop from memory; reloaded on next access */
  unloadProject<V = Record<string, unknown>>(pid: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/unload`, options);
  }

  /** GET /projects/:pid/freeze: Refuse learn and forget until unfreeze */
  freezeProject<V = Record<string, unknown>>(pid: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/freeze`, options);
  }

  /** GET /projects/:pid/unfreeze: Allow learn and forget again */
  unfreezeProject<V = Record<string, unknown>>(pid: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/unfreeze`, options);
  }

  /** GET /projects/:pid/merge: Add another project's statistics to this one (made durable by a snapshot before answering) */
  mergeProject<V = Record<string, unknown>>(pid: string, options: OperationOptions<'otherProjectName'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/merge`, options);
  }

  /** POST /projects/:pid/histogramEnable: Switch histograms on or off */
  histogramEnable<V = Record<string, unknown>>(pid: string, options: OperationOptions<'enable'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/histogramEnable`, options);
  }

  /** POST /projects/:pid/dss/:ds/learn: Learn the rows of a registered data source (always a job) */
  learnFromDataSource<V = Record<string, unknown>>(pid: string, ds: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/dss/${seg(ds)}/learn`, options);
  }

  /** POST /projects/:pid/dss/:ds/forget: Forget the rows of a registered data source (always a job) */
  forgetFromDataSource<V = Record<string, unknown>>(pid: string, ds: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/dss/${seg(ds)}/forget`, options);
  }

  /** GET /projects/info: smlInfo of every project of the caller (values.smlInfoList.values) */
  projectInfoAll<V = Record<string, unknown>>(options: OperationOptions<'async'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/info`, options);
  }

  /** GET /projects/:pid/rename: Rename a project: its statistics, models, data sources and encoder follow */
  renameProject<V = Record<string, unknown>>(pid: string, options: OperationOptions<'newName'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/rename`, options);
  }

  /** GET /projects/:pid/export: The project as one portable, versioned document (settings, statistics, models), base64 */
  exportProject<V = Record<string, unknown>>(pid: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/export`, options);
  }

  /** POST /projects/import: Create a project from an exported document (all or nothing) */
  importProject<V = Record<string, unknown>>(options: OperationOptions<'pid' | 'persist'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/import`, options);
  }

  /** POST /projects/:pid/import: Create a project from an exported document (all or nothing) */
  importProjectAs<V = Record<string, unknown>>(pid: string, options: OperationOptions<'pid' | 'persist'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/import`, options);
  }

  /** GET /projects/:pid/model/export: A model as a portable, versioned document, base64 */
  exportModel<V = Record<string, unknown>>(pid: string, options: OperationOptions<'modelid'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/model/export`, options);
  }

  /** POST /projects/:pid/model/import: Add an exported model to a project (under modelid, else its own id; a model of that id is replaced, as a build replaces it) */
  importModel<V = Record<string, unknown>>(pid: string, options: OperationOptions<'modelid'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/model/import`, options);
  }

  /** POST /projects/:pid/explore: Explore: descriptive statistics and tests, one result map per MLContext */
  explore<V = Record<string, unknown>>(pid: string, options: OperationOptions<'metric' | 'useLocal' | 'returnProjectInfo' | 'async'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/explore`, options);
  }

  /** POST /projects/:pid/densityEstimate: Histogram density of one attribute per entry */
  densityEstimate<V = Record<string, unknown>>(pid: string, options: OperationOptions<'tps' | 'useLocal'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/densityEstimate`, options);
  }

  /** POST /projects/:pid/conditionalDensityEstimate: Density of a target attribute over the rows where a binary conditional attribute is 1 (names [conditional, target]) */
  conditionalDensityEstimate<V = Record<string, unknown>>(pid: string, options: OperationOptions<'tps' | 'useLocal'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/conditionalDensityEstimate`, options);
  }

  /** POST /projects/:pid/exploresvdfs: SVD feature selection (always a job): values.KSVSMap.values[] maps input position → name of the kept inputs */
  exploresvdfs<V = Record<string, unknown>>(pid: string, options: OperationOptions<'useLocal'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/exploresvdfs`, options);
  }

  /** POST /projects/:pid/explorepca: PCA of the correlation (or covariance, pca_use_covariance=true) matrix (job): values.pcaList[] */
  explorepca<V = Record<string, unknown>>(pid: string, options: OperationOptions<'useLocal'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/explorepca`, options);
  }

  /** POST /projects/:pid/exploresvd: SVD of the correlation matrix (job): values.svdList[] */
  exploresvd<V = Record<string, unknown>>(pid: string, options: OperationOptions<'useLocal'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/exploresvd`, options);
  }

  /** POST /projects/:pid/vif: Variance inflation factors (job): values.KSVDMap.values[] attribute → VIF */
  vif<V = Record<string, unknown>>(pid: string, options: OperationOptions<'useLocal'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/vif`, options);
  }

  /** POST /projects/:pid/km/kaplanmeier: Kaplan-Meier survival at the given times, per group (+ Total when no group is given) */
  kaplanMeier<V = Record<string, unknown>>(pid: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/km/kaplanmeier`, options);
  }

  /** POST /projects/:pid/cif/predictEvent: Cumulative incidence of event type k at the given times (Aalen-Johansen) */
  cumulativeIncidence<V = Record<string, unknown>>(pid: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/cif/predictEvent`, options);
  }

  /** POST /projects/:pid/selectModel: Build a model from the summary (a job) and assess it on the request dataframe */
  selectModel<V = Record<string, unknown>>(pid: string, options: OperationOptions<'modelid' | 'algo'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/selectModel`, options);
  }

  /** POST /projects/:pid/build: Build a model from the summary (a job), without assessment */
  buildModel<V = Record<string, unknown>>(pid: string, options: OperationOptions<'modelid' | 'algo'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/build`, options);
  }

  /** POST /projects/:pid/kmeansOptimize: k-means over a range of k on the project's micro-centroids (a job): WSSSE and silhouette per k */
  kmeansOptimize<V = Record<string, unknown>>(pid: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/kmeansOptimize`, options);
  }

  /** POST /projects/:pid/autoSelect: Try every algorithm of a task × feature subsets × a parameter grid on the request dataframe (a job); keep the best as modelid */
  autoSelect<V = Record<string, unknown>>(pid: string, options: OperationOptions<'modelid' | 'task'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/autoSelect`, options);
  }

  /** POST /projects/:pid/learnpredict/:m: Learn a DataFrame (as POST learn) and predict its rows with model m (as POST predict/{m}), one call */
  learnPredict<V = Record<string, unknown>>(pid: string, m: string, options: OperationOptions<'predictBeforeLearn' | 'rebuildModel' | 'keepColumns'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/learnpredict/${seg(m)}`, options);
  }

  /** GET /projects/:pid/models/:m: A model's information */
  modelInfo<V = Record<string, unknown>>(pid: string, m: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/models/${seg(m)}`, options);
  }

  /** DELETE /projects/:pid/models/:m: Delete a model */
  deleteModel<V = Record<string, unknown>>(pid: string, m: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('DELETE', `/projects/${seg(pid)}/models/${seg(m)}`, options);
  }

  /** POST /projects/:pid/predict/:m: Predict: one string map per row (keys per algorithm: docs/algorithms.md); missing inputs are imputed with the project mean at build time */
  predict<V = Record<string, unknown>>(pid: string, m: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/predict/${seg(m)}`, options);
  }

  /** POST /projects/:pid/:m/evtwrapper: Wrap a model's predictions with extreme-value thresholds (synchronous) */
  createEvtWrapper<V = Record<string, unknown>>(pid: string, m: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/${seg(m)}/evtwrapper`, options);
  }

  /** DELETE /projects/:pid/:m/evtwrapper: Remove a model's EVT wrapper */
  deleteEvtWrapper<V = Record<string, unknown>>(pid: string, m: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('DELETE', `/projects/${seg(pid)}/${seg(m)}/evtwrapper`, options);
  }

  /** POST /projects/:pid/dss/predict/:m: Batch scoring (a job): predict every row of data source indsname with model m, write the rows and their predictions to data source outdsname */
  predictDataSource<V = Record<string, unknown>>(pid: string, m: string, options: OperationOptions<'indsname' | 'outdsname'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/dss/predict/${seg(m)}`, options);
  }

  /** POST /projects/:pid/selectModel/:ds: selectModel (a job) scored on the rows of a registered data source instead of an inline dataframe */
  selectModelOnDataSource<V = Record<string, unknown>>(pid: string, ds: string, options: OperationOptions<'modelid' | 'algo'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/selectModel/${seg(ds)}`, options);
  }

  /** POST /projects/:pid/autoSelect/:ds: autoSelect (a job) scored on the rows of a registered data source instead of an inline dataframe */
  autoSelectOnDataSource<V = Record<string, unknown>>(pid: string, ds: string, options: OperationOptions<'modelid' | 'task'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/autoSelect/${seg(ds)}`, options);
  }

  /** POST /encoders/create: Create an encoder */
  createEncoder<V = Record<string, unknown>>(options: OperationOptions<'encodername' | 'targetName' | 'encoderTarget' | 'encoderType' | 'targetType'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/encoders/create`, options);
  }

  /** GET /encoders: List the caller's encoder names */
  listEncoders<V = Record<string, unknown>>(options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/encoders`, options);
  }

  /** POST /encoders/:e/learn: Learn a DataFrame into an encoder */
  learnEncoder<V = Record<string, unknown>>(e: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/encoders/${seg(e)}/learn`, options);
  }

  /** POST /encoders/:e/learnds: Learn an encoder from a data source (always a job) */
  learnEncoderFromDataSource<V = Record<string, unknown>>(e: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/encoders/${seg(e)}/learnds`, options);
  }

  /** GET /encoders/:e/stats: Per key: the distinct values seen and the mean, standard deviation and variance of their counts */
  encoderStats<V = Record<string, unknown>>(e: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/encoders/${seg(e)}/stats`, options);
  }

  /** GET /encoders/:e/keyvals/:key: The values of one key: DataFrame Value, Count, Sum (of the target) */
  encoderKeyValues<V = Record<string, unknown>>(e: string, key: string, options: OperationOptions<'offset' | 'limit'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/encoders/${seg(e)}/keyvals/${seg(key)}`, options);
  }

  /** POST /encoders/:e/keyvals/:key/setValues: Replace the count and sum of values of one key */
  encoderSetValues<V = Record<string, unknown>>(e: string, key: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/encoders/${seg(e)}/keyvals/${seg(key)}/setValues`, options);
  }

  /** POST /encoders/:e/createKeyValues: Add counts and sums to values of keys (created as needed) */
  encoderCreateKeyValues<V = Record<string, unknown>>(e: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/encoders/${seg(e)}/createKeyValues`, options);
  }

  /** GET /projects/:pid/encoderAssign: Assign an encoder to a project: its S/L columns are then learned, forgotten and predicted as encoded numeric (C) attributes */
  encoderAssign<V = Record<string, unknown>>(pid: string, options: OperationOptions<'encoderName'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/encoderAssign`, options);
  }

  /** DELETE /encoders/:e: Delete an encoder (409 while a project uses it) */
  deleteEncoder<V = Record<string, unknown>>(e: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('DELETE', `/encoders/${seg(e)}`, options);
  }

  /** POST /projects/:pid/streams/create: Create a stream (body: encrypted DSInfo of type kafka or nats) and start learning its records into the project */
  createStream<V = Record<string, unknown>>(pid: string, options: OperationOptions<'fromBeginning'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/projects/${seg(pid)}/streams/create`, options);
  }

  /** GET /projects/:pid/streams/list: The names of the project's streams */
  listStreams<V = Record<string, unknown>>(pid: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/streams/list`, options);
  }

  /** GET /projects/:pid/streams/:s/start: Resume a stopped stream from where it stopped */
  startStream<V = Record<string, unknown>>(pid: string, s: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/streams/${seg(s)}/start`, options);
  }

  /** GET /projects/:pid/streams/:s/stop: Suspend a stream (it resumes from here on start) */
  stopStream<V = Record<string, unknown>>(pid: string, s: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/streams/${seg(s)}/stop`, options);
  }

  /** DELETE /projects/:pid/streams/:s: Stop and remove a stream (its consumer group / durable consumer too) */
  deleteStream<V = Record<string, unknown>>(pid: string, s: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('DELETE', `/projects/${seg(pid)}/streams/${seg(s)}`, options);
  }

  /** GET /projects/:pid/streams/:s/metrics: Records read, learned, rejected, skipped (redelivered, learned before), lag, last error, state */
  streamMetrics<V = Record<string, unknown>>(pid: string, s: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/streams/${seg(s)}/metrics`, options);
  }

  /** GET /projects/:pid/streams/:s/errorLog: The stream's most recent errors (SML_STREAM_ERROR_LOG of them), oldest first */
  streamErrorLog<V = Record<string, unknown>>(pid: string, s: string, options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('GET', `/projects/${seg(pid)}/streams/${seg(s)}/errorLog`, options);
  }

  /** POST /streams/poll: The next records of a Kafka poller as values.dataframe */
  pollStream<V = Record<string, unknown>>(options: OperationOptions<'sid' | 'fromBeginning'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/streams/poll`, options);
  }

  /** DELETE /streams/poll: Close the poller named sid; a registered kafka data source of that name is deleted too */
  deletePoller<V = Record<string, unknown>>(options: OperationOptions<'sid'> = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('DELETE', `/streams/poll`, options);
  }

  /** POST /streams/browse: List the topics of a Kafka cluster, or the JetStream streams and a stream's subjects of a NATS server (body: encrypted DSInfo) */
  browseStreams<V = Record<string, unknown>>(options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/streams/browse`, options);
  }

  /** POST /streams/preview: A sample DataFrame of a Kafka topic or NATS subject (body: encrypted DSInfo); registers nothing, touches no poller */
  previewStream<V = Record<string, unknown>>(options: OperationOptions = {}): Promise<SmlResponse<V>> {
    return this.client.request<V>('POST', `/streams/preview`, options);
  }
}

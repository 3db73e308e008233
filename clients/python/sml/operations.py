# Generated from the gateway's route table by services/gateway/src/sdk-gen.ts: do not edit.
# After changing a route: npm run build && npm run gen:sdk (services/gateway/test/sdk-gen.test.ts
# fails while this file is not current).
"""One method per REST route of the gateway, named by its operationId (as in the TypeScript SDK)."""
from typing import Any
from urllib.parse import quote


def _seg(value: str) -> str:
    # encodeURIComponent's set, so that both clients send (and sign) the same path.
    return quote(str(value), safe="!*'()")


class Operations:
    """Path parameters in path order (the customer is the client's); keyword options go to
    SmlClient.request: query (a dict of the route's query parameters), json_body, raw, headers,
    check."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def listJobs(self, **options: Any) -> Any:
        """GET /jobs: List the caller's jobs (all=true: every customer's, root only) (query: all)"""
        return self._client.request("GET", f"/jobs", **options)

    def getJob(self, id: str, **options: Any) -> Any:
        """GET /jobs/:id: Read a job: 202 running (values.jobinfo), 200 finished (the result), failed → 500 with its error"""
        return self._client.request("GET", f"/jobs/{_seg(id)}", **options)

    def cancelJob(self, id: str, **options: Any) -> Any:
        """DELETE /jobs/:id: Cancel a queued or running job"""
        return self._client.request("DELETE", f"/jobs/{_seg(id)}", **options)

    def addUser(self, **options: Any) -> Any:
        """POST /users: Create a customer (root only); answers its secret key once (query: cid)"""
        return self._client.request("POST", f"/users", **options)

    def deleteUser(self, cid: str, **options: Any) -> Any:
        """DELETE /users/:cid: Delete a customer (root only)"""
        return self._client.request("DELETE", f"/users/{_seg(cid)}", **options)

    def createDataSource(self, **options: Any) -> Any:
        """POST /dss/create: Register a data source (body: encrypted DSInfo)"""
        return self._client.request("POST", f"/dss/create", **options)

    def listDataSources(self, **options: Any) -> Any:
        """GET /dss: The customer's data sources, as \"<name>:<type>\""""
        return self._client.request("GET", f"/dss", **options)

    def previewDataSource(self, **options: Any) -> Any:
        """POST /dss/sample/preview: Read ≤ 128 rows of an unregistered DSInfo (creates nothing)"""
        return self._client.request("POST", f"/dss/sample/preview", **options)

    def getDataSource(self, ds: str, **options: Any) -> Any:
        """GET /dss/:ds: A registered DSInfo, without its credentials"""
        return self._client.request("GET", f"/dss/{_seg(ds)}", **options)

    def updateDataSource(self, ds: str, **options: Any) -> Any:
        """PUT /dss/:ds: Replace a registered DSInfo (body: encrypted DSInfo; the name in the path wins)"""
        return self._client.request("PUT", f"/dss/{_seg(ds)}", **options)

    def deleteDataSource(self, ds: str, **options: Any) -> Any:
        """DELETE /dss/:ds: Delete a registered data source (its files are untouched)"""
        return self._client.request("DELETE", f"/dss/{_seg(ds)}", **options)

    def sampleDataSource(self, ds: str, **options: Any) -> Any:
        """GET /dss/:ds/sample: The first ≤ 128 rows of a registered data source"""
        return self._client.request("GET", f"/dss/{_seg(ds)}/sample", **options)

    def browseDataSource(self, **options: Any) -> Any:
        """POST /projects/dsbrowse: List directories and files under a localfile path or an s3 prefix (body: encrypted DSInfo, info.path; empty = the root)"""
        return self._client.request("POST", f"/projects/dsbrowse", **options)

    def adddsProject(self, pid: str, ds: str, **options: Any) -> Any:
        """GET /projects/:pid/addds/:ds: Attach a data source to the project (its dsList)"""
        return self._client.request("GET", f"/projects/{_seg(pid)}/addds/{_seg(ds)}", **options)

    def detachdsProject(self, pid: str, ds: str, **options: Any) -> Any:
        """GET /projects/:pid/detachds/:ds: Detach a data source from the project"""
        return self._client.request("GET", f"/projects/{_seg(pid)}/detachds/{_seg(ds)}", **options)

    def projectLfStats(self, pid: str, **options: Any) -> Any:
        """GET /projects/:pid/getLFStats: Learn/forget statistics of the project's data-source jobs"""
        return self._client.request("GET", f"/projects/{_seg(pid)}/getLFStats", **options)

    def createFusionProject(self, **options: Any) -> Any:
        """POST /projects/fusion/create: Create a fusion project: its statistics are the exact merge of its cells' summaries (query: pid, persist, onCellError)"""
        return self._client.request("POST", f"/projects/fusion/create", **options)

    def fusionCellsStatus(self, pid: str, **options: Any) -> Any:
        """POST /projects/fusion/:pid/cellsStatus: Probe a fusion project's cells now"""
        return self._client.request("POST", f"/projects/fusion/{_seg(pid)}/cellsStatus", **options)

    def fusionUpdateCellsInfo(self, pid: str, **options: Any) -> Any:
        """POST /projects/fusion/:pid/updateCellsInfo: Replace a fusion project's cell list"""
        return self._client.request("POST", f"/projects/fusion/{_seg(pid)}/updateCellsInfo", **options)

    def cellSummary(self, pid: str, **options: Any) -> Any:
        """GET /projects/:pid/summary: A project's summary for a fusion project on another instance (the cell protocol) (query: ifVersion)"""
        return self._client.request("GET", f"/projects/{_seg(pid)}/summary", **options)

    def createFederation(self, **options: Any) -> Any:
        """POST /fedml/create: Create a federated project and its federation; the caller's node becomes the admin (query: pid, persist)"""
        return self._client.request("POST", f"/fedml/create", **options)

    def joinFederation(self, **options: Any) -> Any:
        """POST /fedml/createJoin: Join a federation with an invitation: creates the local federated project (query: pid, persist)"""
        return self._client.request("POST", f"/fedml/createJoin", **options)

    def federationInfo(self, pid: str, **options: Any) -> Any:
        """GET /fedml/:pid/info: The federation of a federated project, encrypted"""
        return self._client.request("GET", f"/fedml/{_seg(pid)}/info", **options)

    def federationInvitation(self, pid: str, **options: Any) -> Any:
        """POST /fedml/:pid/getInvitation: Issue an invitation to join the federation (admin only)"""
        return self._client.request("POST", f"/fedml/{_seg(pid)}/getInvitation", **options)

    def federationInvitationAlias(self, pid: str, **options: Any) -> Any:
        """POST /fedml/:pid/getEncrypted: Issue an invitation to join the federation (admin only) (alias of getInvitation)"""
        return self._client.request("POST", f"/fedml/{_seg(pid)}/getEncrypted", **options)

    def federationAwsInfo(self, pid: str, **options: Any) -> Any:
        """POST /fedml/:pid/awsinfo: AWS-backed federation: refused"""
        return self._client.request("POST", f"/fedml/{_seg(pid)}/awsinfo", **options)

    def createProject(self, **options: Any) -> Any:
        """POST /projects: Create a project (query: pid, type, persist, enableHistogram, histogramType)"""
        return self._client.request("POST", f"/projects", **options)

    def listProjects(self, **options: Any) -> Any:
        """GET /projects: List the caller's project ids"""
        return self._client.request("GET", f"/projects", **options)

    def listProjectsCompat(self, **options: Any) -> Any:
        """GET /projects/list: List the caller's project ids (SymetryML's path for GET /{user}/projects)"""
        return self._client.request("GET", f"/projects/list", **options)

    def projectInfo(self, pid: str, **options: Any) -> Any:
        """GET /projects/:pid/info: Project information (smlInfo) (query: async, hash)"""
        return self._client.request("GET", f"/projects/{_seg(pid)}/info", **options)

    def deleteProject(self, pid: str, **options: Any) -> Any:
        """DELETE /projects/:pid: Delete a project, its models and its state"""
        return self._client.request("DELETE", f"/projects/{_seg(pid)}", **options)

    def projectLog(self, pid: str, **options: Any) -> Any:
        """GET /projects/:pid/getDsLog: The project's learn/forget log"""
        return self._client.request("GET", f"/projects/{_seg(pid)}/getDsLog", **options)

    def learnProject(self, pid: str, **options: Any) -> Any:
        """POST /projects/:pid/learn: Learn a DataFrame into the project summary (new attributes are appended) (query: async)"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/learn", **options)

    def forgetProject(self, pid: str, **options: Any) -> Any:
        """POST /projects/:pid/forget: Forget a DataFrame: the exact inverse of learn (query: async)"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/forget", **options)

    def saveProject(self, pid: str, **options: Any) -> Any:
        """GET /projects/:pid/save: Write a snapshot now"""
        return self._client.request("GET", f"/projects/{_seg(pid)}/save", **options)

    def unloadProject(self, pid: str, **options: Any) -> Any:
        """GET /projects/:pid/unload: Snapshot and drop from memory; reloaded on next access"""
        return self._client.request("GET", f"/projects/{_seg(pid)}/unload", **options)

    def freezeProject(self, pid: str, **options: Any) -> Any:
        """GET /projects/:pid/freeze: Refuse learn and forget until unfreeze"""
        return self._client.request("GET", f"/projects/{_seg(pid)}/freeze", **options)

    def unfreezeProject(self, pid: str, **options: Any) -> Any:
        """GET /projects/:pid/unfreeze: Allow learn and forget again"""
        return self._client.request("GET", f"/projects/{_seg(pid)}/unfreeze", **options)

    def mergeProject(self, pid: str, **options: Any) -> Any:
        """GET /projects/:pid/merge: Add another project's statistics to this one (made durable by a snapshot before answering) (query: otherProjectName)"""
        return self._client.request("GET", f"/projects/{_seg(pid)}/merge", **options)

    def histogramEnable(self, pid: str, **options: Any) -> Any:
        """POST /projects/:pid/histogramEnable: Switch histograms on or off (query: enable)"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/histogramEnable", **options)

    def learnFromDataSource(self, pid: str, ds: str, **options: Any) -> Any:
        """POST /projects/:pid/dss/:ds/learn: Learn the rows of a registered data source (always a job)"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/dss/{_seg(ds)}/learn", **options)

    def forgetFromDataSource(self, pid: str, ds: str, **options: Any) -> Any:
        """POST /projects/:pid/dss/:ds/forget: Forget the rows of a registered data source (always a job)"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/dss/{_seg(ds)}/forget", **options)

    def projectInfoAll(self, **options: Any) -> Any:
        """GET /projects/info: smlInfo of every project of the caller (values.smlInfoList.values) (query: async)"""
        return self._client.request("GET", f"/projects/info", **options)

    def renameProject(self, pid: str, **options: Any) -> Any:
        """GET /projects/:pid/rename: Rename a project: its statistics, models, data sources and encoder follow (query: newName)"""
        return self._client.request("GET", f"/projects/{_seg(pid)}/rename", **options)

    def exportProject(self, pid: str, **options: Any) -> Any:
        """GET /projects/:pid/export: The project as one portable, versioned document (settings, statistics, models), base64"""
        return self._client.request("GET", f"/projects/{_seg(pid)}/export", **options)

    def importProject(self, **options: Any) -> Any:
        """POST /projects/import: Create a project from an exported document (all or nothing) (query: pid, persist)"""
        return self._client.request("POST", f"/projects/import", **options)

    def importProjectAs(self, pid: str, **options: Any) -> Any:
        """POST /projects/:pid/import: Create a project from an exported document (all or nothing) (query: pid, persist)"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/import", **options)

    def exportModel(self, pid: str, **options: Any) -> Any:
        """GET /projects/:pid/model/export: A model as a portable, versioned document, base64 (query: modelid)"""
        return self._client.request("GET", f"/projects/{_seg(pid)}/model/export", **options)

    def importModel(self, pid: str, **options: Any) -> Any:
        """POST /projects/:pid/model/import: Add an exported model to a project (under modelid, else its own id; a model of that id is replaced, as a build replaces it) (query: modelid)"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/model/import", **options)

    def explore(self, pid: str, **options: Any) -> Any:
        """POST /projects/:pid/explore: Explore: descriptive statistics and tests, one result map per MLContext (query: metric, useLocal, returnProjectInfo, async)"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/explore", **options)

    def dataDrift(self, **options: Any) -> Any:
        """POST /projects/dataDrift: Data drift between two projects: one map {driftScore, <attribute>_drift…}"""
        return self._client.request("POST", f"/projects/dataDrift", **options)

    def densityEstimate(self, pid: str, **options: Any) -> Any:
        """POST /projects/:pid/densityEstimate: Histogram density of one attribute per entry (query: tps, useLocal)"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/densityEstimate", **options)

    def conditionalDensityEstimate(self, pid: str, **options: Any) -> Any:
        """POST /projects/:pid/conditionalDensityEstimate: Density of a target attribute over the rows where a binary conditional attribute is 1 (names [conditional, target]) (query: tps, useLocal)"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/conditionalDensityEstimate", **options)

    def exploresvdfs(self, pid: str, **options: Any) -> Any:
        """POST /projects/:pid/exploresvdfs: SVD feature selection (always a job): values.KSVSMap.values[] maps input position → name of the kept inputs (query: useLocal)"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/exploresvdfs", **options)

    def explorepca(self, pid: str, **options: Any) -> Any:
        """POST /projects/:pid/explorepca: PCA of the correlation (or covariance, pca_use_covariance=true) matrix (job): values.pcaList[] (query: useLocal)"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/explorepca", **options)

    def exploresvd(self, pid: str, **options: Any) -> Any:
        """POST /projects/:pid/exploresvd: SVD of the correlation matrix (job): values.svdList[] (query: useLocal)"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/exploresvd", **options)

    def vif(self, pid: str, **options: Any) -> Any:
        """POST /projects/:pid/vif: Variance inflation factors (job): values.KSVDMap.values[] attribute → VIF (query: useLocal)"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/vif", **options)

    def kaplanMeier(self, pid: str, **options: Any) -> Any:
        """POST /projects/:pid/km/kaplanmeier: Kaplan-Meier survival at the given times, per group (+ Total when no group is given)"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/km/kaplanmeier", **options)

    def cumulativeIncidence(self, pid: str, **options: Any) -> Any:
        """POST /projects/:pid/cif/predictEvent: Cumulative incidence of event type k at the given times (Aalen-Johansen)"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/cif/predictEvent", **options)

    def selectModel(self, pid: str, **options: Any) -> Any:
        """POST /projects/:pid/selectModel: Build a model from the summary (a job) and assess it on the request dataframe (query: modelid, algo)"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/selectModel", **options)

    def buildModel(self, pid: str, **options: Any) -> Any:
        """POST /projects/:pid/build: Build a model from the summary (a job), without assessment (query: modelid, algo)"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/build", **options)

    def kmeansOptimize(self, pid: str, **options: Any) -> Any:
        """POST /projects/:pid/kmeansOptimize: k-means over a range of k on the project's micro-centroids (a job): WSSSE and silhouette per k"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/kmeansOptimize", **options)

    def autoSelect(self, pid: str, **options: Any) -> Any:
        """POST /projects/:pid/autoSelect: Try every algorithm of a task × feature subsets × a parameter grid on the request dataframe (a job); keep the best as modelid (query: modelid, task)"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/autoSelect", **options)

    def reduce(self, pid: str, **options: Any) -> Any:
        """POST /projects/:pid/reduce: Reduce the inputs of a model from the summary (a job): backward elimination, then swap passes; keep the model on the survivors as modelid (query: modelid, algo, heuristic, delta, numIterations)"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/reduce", **options)

    def learnPredict(self, pid: str, m: str, **options: Any) -> Any:
        """POST /projects/:pid/learnpredict/:m: Learn a DataFrame (as POST learn) and predict its rows with model m (as POST predict/{m}), one call (query: predictBeforeLearn, rebuildModel, keepColumns)"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/learnpredict/{_seg(m)}", **options)

    def modelInfo(self, pid: str, m: str, **options: Any) -> Any:
        """GET /projects/:pid/models/:m: A model's information"""
        return self._client.request("GET", f"/projects/{_seg(pid)}/models/{_seg(m)}", **options)

    def deleteModel(self, pid: str, m: str, **options: Any) -> Any:
        """DELETE /projects/:pid/models/:m: Delete a model"""
        return self._client.request("DELETE", f"/projects/{_seg(pid)}/models/{_seg(m)}", **options)

    def predict(self, pid: str, m: str, **options: Any) -> Any:
        """POST /projects/:pid/predict/:m: Predict: one string map per row (keys per algorithm: docs/algorithms.md); missing inputs are imputed with the project mean at build time"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/predict/{_seg(m)}", **options)

    def createEvtWrapper(self, pid: str, m: str, **options: Any) -> Any:
        """POST /projects/:pid/:m/evtwrapper: Wrap a model's predictions with extreme-value thresholds (synchronous)"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/{_seg(m)}/evtwrapper", **options)

    def deleteEvtWrapper(self, pid: str, m: str, **options: Any) -> Any:
        """DELETE /projects/:pid/:m/evtwrapper: Remove a model's EVT wrapper"""
        return self._client.request("DELETE", f"/projects/{_seg(pid)}/{_seg(m)}/evtwrapper", **options)

    def predictDataSource(self, pid: str, m: str, **options: Any) -> Any:
        """POST /projects/:pid/dss/predict/:m: Batch scoring (a job): predict every row of data source indsname with model m, write the rows and their predictions to data source outdsname (query: indsname, outdsname)"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/dss/predict/{_seg(m)}", **options)

    def selectModelOnDataSource(self, pid: str, ds: str, **options: Any) -> Any:
        """POST /projects/:pid/selectModel/:ds: selectModel (a job) scored on the rows of a registered data source instead of an inline dataframe (query: modelid, algo)"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/selectModel/{_seg(ds)}", **options)

    def autoSelectOnDataSource(self, pid: str, ds: str, **options: Any) -> Any:
        """POST /projects/:pid/autoSelect/:ds: autoSelect (a job) scored on the rows of a registered data source instead of an inline dataframe (query: modelid, task)"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/autoSelect/{_seg(ds)}", **options)

    def createEncoder(self, **options: Any) -> Any:
        """POST /encoders/create: Create an encoder (query: encodername, targetName, encoderTarget, encoderType, targetType)"""
        return self._client.request("POST", f"/encoders/create", **options)

    def listEncoders(self, **options: Any) -> Any:
        """GET /encoders: List the caller's encoder names"""
        return self._client.request("GET", f"/encoders", **options)

    def learnEncoder(self, e: str, **options: Any) -> Any:
        """POST /encoders/:e/learn: Learn a DataFrame into an encoder"""
        return self._client.request("POST", f"/encoders/{_seg(e)}/learn", **options)

    def learnEncoderFromDataSource(self, e: str, **options: Any) -> Any:
        """POST /encoders/:e/learnds: Learn an encoder from a data source (always a job)"""
        return self._client.request("POST", f"/encoders/{_seg(e)}/learnds", **options)

    def encoderStats(self, e: str, **options: Any) -> Any:
        """GET /encoders/:e/stats: Per key: the distinct values seen and the mean, standard deviation and variance of their counts"""
        return self._client.request("GET", f"/encoders/{_seg(e)}/stats", **options)

    def encoderKeyValues(self, e: str, key: str, **options: Any) -> Any:
        """GET /encoders/:e/keyvals/:key: The values of one key: DataFrame Value, Count, Sum (of the target) (query: offset, limit)"""
        return self._client.request("GET", f"/encoders/{_seg(e)}/keyvals/{_seg(key)}", **options)

    def encoderSetValues(self, e: str, key: str, **options: Any) -> Any:
        """POST /encoders/:e/keyvals/:key/setValues: Replace the count and sum of values of one key"""
        return self._client.request("POST", f"/encoders/{_seg(e)}/keyvals/{_seg(key)}/setValues", **options)

    def encoderCreateKeyValues(self, e: str, **options: Any) -> Any:
        """POST /encoders/:e/createKeyValues: Add counts and sums to values of keys (created as needed)"""
        return self._client.request("POST", f"/encoders/{_seg(e)}/createKeyValues", **options)

    def encoderAssign(self, pid: str, **options: Any) -> Any:
        """GET /projects/:pid/encoderAssign: Assign an encoder to a project: its S/L columns are then learned, forgotten and predicted as encoded numeric (C) attributes (query: encoderName)"""
        return self._client.request("GET", f"/projects/{_seg(pid)}/encoderAssign", **options)

    def deleteEncoder(self, e: str, **options: Any) -> Any:
        """DELETE /encoders/:e: Delete an encoder (409 while a project uses it)"""
        return self._client.request("DELETE", f"/encoders/{_seg(e)}", **options)

    def createStream(self, pid: str, **options: Any) -> Any:
        """POST /projects/:pid/streams/create: Create a stream (body: encrypted DSInfo of type kafka or nats) and start learning its records into the project (query: fromBeginning)"""
        return self._client.request("POST", f"/projects/{_seg(pid)}/streams/create", **options)

    def listStreams(self, pid: str, **options: Any) -> Any:
        """GET /projects/:pid/streams/list: The names of the project's streams"""
        return self._client.request("GET", f"/projects/{_seg(pid)}/streams/list", **options)

    def startStream(self, pid: str, s: str, **options: Any) -> Any:
        """GET /projects/:pid/streams/:s/start: Resume a stopped stream from where it stopped"""
        return self._client.request("GET", f"/projects/{_seg(pid)}/streams/{_seg(s)}/start", **options)

    def stopStream(self, pid: str, s: str, **options: Any) -> Any:
        """GET /projects/:pid/streams/:s/stop: Suspend a stream (it resumes from here on start)"""
        return self._client.request("GET", f"/projects/{_seg(pid)}/streams/{_seg(s)}/stop", **options)

    def deleteStream(self, pid: str, s: str, **options: Any) -> Any:
        """DELETE /projects/:pid/streams/:s: Stop and remove a stream (its consumer group / durable consumer too)"""
        return self._client.request("DELETE", f"/projects/{_seg(pid)}/streams/{_seg(s)}", **options)

    def streamMetrics(self, pid: str, s: str, **options: Any) -> Any:
        """GET /projects/:pid/streams/:s/metrics: Records read, learned, rejected, skipped (redelivered, learned before), lag, last error, state"""
        return self._client.request("GET", f"/projects/{_seg(pid)}/streams/{_seg(s)}/metrics", **options)

    def streamErrorLog(self, pid: str, s: str, **options: Any) -> Any:
        """GET /projects/:pid/streams/:s/errorLog: The stream's most recent errors (SML_STREAM_ERROR_LOG of them), oldest first"""
        return self._client.request("GET", f"/projects/{_seg(pid)}/streams/{_seg(s)}/errorLog", **options)

    def pollStream(self, **options: Any) -> Any:
        """POST /streams/poll: The next records of a Kafka poller as values.dataframe (query: sid, fromBeginning)"""
        return self._client.request("POST", f"/streams/poll", **options)

    def deletePoller(self, **options: Any) -> Any:
        """DELETE /streams/poll: Close the poller named sid; a registered kafka data source of that name is deleted too (query: sid)"""
        return self._client.request("DELETE", f"/streams/poll", **options)

    def browseStreams(self, **options: Any) -> Any:
        """POST /streams/browse: List the topics of a Kafka cluster, or the JetStream streams and a stream's subjects of a NATS server (body: encrypted DSInfo)"""
        return self._client.request("POST", f"/streams/browse", **options)

    def previewStream(self, **options: Any) -> Any:
        """POST /streams/preview: A sample DataFrame of a Kafka topic or NATS subject (body: encrypted DSInfo); registers nothing, touches no poller"""
        return self._client.request("POST", f"/streams/preview", **options)

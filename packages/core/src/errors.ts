/**
 * The error catalogue (API.md §11): every error message the REST API can answer with,
 * each under a stable code. Messages with `{name}` placeholders are filled by `smlError`.
 * The OpenAPI document lists this catalogue; a test pins that both agree.
 */
/**
 * Thrown at boot when an environment variable is invalid; names the variable. Here rather than in
 * config.ts so that what uses it without the configuration schema (the SDK's `fromEnv`)
 * does not load zod.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export interface CatalogueEntry {
  readonly status: number;
  readonly message: string;
  /** The envelope carries no `values` (only the jobs-list 500, API.md §1). */
  readonly omitValues?: boolean;
  readonly retryable?: boolean;
}

export const catalogue = {
  // §2 authentication (seed order of checks)
  AUTH_HEADER_NULL: { status: 400, message: 'Authentication header is null' },
  SYM_DATE_NULL: { status: 400, message: 'sym-date header is null' },
  INVALID_DATE_FORMAT: { status: 400, message: 'Invalid Date Format' },
  CLOCK_SKEW: { status: 400, message: 'Please update your server time, it is likely out of sync with UTC' },
  INVALID_USER: { status: 401, message: 'Invalid User' },
  CUSTOMER_ID_MISMATCH: { status: 401, message: 'Customer-ID header [{header}] does not match the user in the path [{user}]' },
  MD5_MISMATCH: { status: 400, message: 'Md5 do not match' },
  INVALID_SIGNATURE: { status: 401, message: 'Invalid Signature' },
  REPLAYED_REQUEST: { status: 401, message: 'Replayed request' },
  ROOT_ONLY: { status: 401, message: 'Only the root user may {action}' },
  INVALID_ENCRYPTED_PAYLOAD: { status: 400, message: 'Invalid encrypted payload' },

  // §1 conventions
  MALFORMED_JSON: { status: 400, message: 'Malformed JSON body: {detail}' },
  INVALID_REQUEST: { status: 400, message: 'Invalid request: {detail}' },
  INVALID_NAME: { status: 400, message: 'Invalid {kind} name [{name}]: {reason}1-128 characters of [A-Za-z0-9_.-], not starting with "." and without ".."' },
  BODY_TOO_LARGE: { status: 413, message: 'Request body larger than the limit of {limit} bytes' },
  JSON_BODY_TOO_LARGE: { status: 413, message: 'Request body larger than the limit of {limit} bytes for this operation (SML_MAX_JSON_BODY_BYTES; learn and forget bodies may be larger, up to SML_BODY_LIMIT)' },
  INFLATED_TOO_LARGE: { status: 413, message: 'Request body larger than the limit of {limit} bytes once inflated (Content-Encoding {encoding})' },
  INFLATE_RATIO: { status: 413, message: 'Compressed request body inflates to more than {ratio} times its {size} bytes (Content-Encoding {encoding})' },
  BAD_CONTENT_ENCODING: { status: 400, message: 'Request body is not valid {encoding} data: {detail}' },
  UNSUPPORTED_CONTENT_ENCODING: { status: 415, message: 'Unsupported Content-Encoding [{encoding}]: send the body as is, or as gzip, deflate or br' },
  HEADERS_TOO_LARGE: { status: 431, message: 'Request line and header fields larger than the limit of {limit} bytes (SML_MAX_HEADER_BYTES)' },
  URL_TOO_LONG: { status: 414, message: 'Request target of {bytes} bytes, longer than the limit of {limit} (SML_MAX_URL_BYTES)' },
  TOO_MANY_QUERY_PARAMETERS: { status: 400, message: 'Query string with {count} parameters, more than the limit of {limit} (SML_MAX_QUERY_PARAMETERS)' },
  MALFORMED_HTTP: { status: 400, message: 'Malformed HTTP request: {detail}' },
  HTTP_REQUEST_TIMEOUT: { status: 408, message: 'The request was not received in time (its headers within {headersMs} ms, all of it within {requestMs} ms)' },
  UNKNOWN_ROUTE: { status: 404, message: 'No route for {method} {path}' },
  BODY_BUDGET: { status: 503, message: 'The gateway holds {inFlight} bytes of request bodies, its limit of {limit} (SML_MAX_BODY_BYTES_IN_FLIGHT); retry later', retryable: true },
  SERVICE_UNAVAILABLE: { status: 503, message: 'Service [{service}] is unavailable', retryable: true },
  SERVICE_TIMEOUT: { status: 503, message: 'Service [{service}] did not answer within {timeoutMs} ms', retryable: true },
  EXECUTOR_FULL: { status: 503, message: 'Job queue of service [{service}] is full ({queueSize} waiting); retry later', retryable: true },
  NATS_UNAVAILABLE: { status: 503, message: 'NATS is unavailable ({cause}); retry later', retryable: true },
  INTERNAL: { status: 500, message: 'Internal error (request id {requestId})' },
  GENERIC_EXCEPTION: { status: 500, message: 'Generic Exception [java.lang.Exception: {detail}]' },

  // §10 jobs
  NO_SUCH_JOB: { status: 400, message: 'No such job' },
  JOB_RUNNING: { status: 202, message: 'Job still running' },
  JOB_FINISHED: { status: 200, message: 'Job is finished' },
  JOB_CANCELLED: { status: 500, message: 'Job was cancelled' },
  // Every job applies its changes in one step as it finishes (services/jobs README "Leases").
  JOB_LEASE_EXPIRED: { status: 500, message: "The {service} process running the job stopped (no heartbeat for {seconds} s) before the job finished; the job's changes were not applied" },
  JOB_ALREADY_DONE: { status: 400, message: 'Job {jobId} is already done' },
  JOBS_ALL_NOT_ROOT: { status: 500, message: 'Generic Exception [java.lang.Exception: Cannot specify all=true for non root user]', omitValues: true },

  // §15 fusion projects
  FUSION_NO_DATA: { status: 400, message: 'Fusion project [{pid}] does not learn data; send it to its cells' },
  NOT_A_FUSION_PROJECT: { status: 400, message: 'Project [{pid}] is not a fusion project' },
  FUSION_CELLS_INVALID: { status: 400, message: 'Invalid fusion cell list: {reason}' },
  FUSION_ALGORITHM: { status: 400, message: 'Fusion project [{pid}] cannot build [{algo}]: online-model state is not merged from cells' },
  FUSION_CELL_FAILED: { status: 503, message: 'Fusion cell {failures}', retryable: true },
  FUSION_NOT_A_CELL: { status: 400, message: 'Project [{pid}] is a fusion project: it cannot be a fusion cell' },
  SECRET_MISMATCH: { status: 401, message: 'Wrong secret for customer [{cid}]' },

  // federation (/fedml)
  FED_MISSING_KEY: { status: 400, message: 'Missing required key [{key}]' },
  FED_INVALID_KEY: { status: 400, message: 'Invalid value [{value}] for key [{key}]: {reason}' },
  FED_NOT_FEDERATED: { status: 400, message: 'Project [{pid}] is not a federated project' },
  FED_NO_FEDERATION: { status: 400, message: 'Project [{pid}] has no federation' },
  FED_INVALID_SCHEDULE: { status: 400, message: 'Invalid schedule [{schedule}]' },
  FED_ADMIN_ONLY: { status: 400, message: 'Only the federation admin can {action}' },
  FED_AWS: { status: 400, message: 'AWS-backed federation is not supported; use a NATS backbone (nats_hosts)' },
  FED_SMPC: { status: 400, message: 'SMPC federation is not supported' },
  FED_HIPAA: { status: 400, message: 'HIPAA compliance mode is not supported' },
  FED_BACKBONE_UNREACHABLE: { status: 503, message: 'Federation backbone unreachable: {reason}', retryable: true },
  FED_INVALID_INVITATION: { status: 400, message: 'Invalid federation invitation' },
  FED_TOKEN_REFUSED: { status: 400, message: 'Federation token expired or already used' },
  FED_ADMIN_NO_ANSWER: { status: 503, message: 'Federation admin did not answer', retryable: true },

  // §4 projects
  PROJECT_EXISTS: { status: 409, message: 'Customer [{user}] already have pid with id[{pid}], ' },
  PROJECT_NOT_FOUND: { status: 400, message: 'Cannot Find Project id[{pid}] for Customer id [{user}]' },
  INVALID_SEQUENCE_ORDER: { status: 400, message: 'Invalid sequence project order: {order}; it must be an integer greater than 0' },
  INVALID_PROJECT_TYPE: { status: 400, message: 'Unknown project type [{type}]; expected one of {expected}' },
  INVALID_PARAMETER: { status: 400, message: 'Invalid parameter [{name}] = [{value}]: {reason}' },
  PROJECT_FROZEN: { status: 400, message: 'Project [{pid}] is frozen: unfreeze it before learning or forgetting' },
  INVALID_FRAME: { status: 400, message: '{detail}' },
  FORGET_NOT_LEARNED: { status: 400, message: 'Cannot forget rows that were never learned: {detail}; nothing was changed' },
  MERGE_SELF: { status: 400, message: 'A project cannot be merged into itself [{pid}]' },
  MERGE_INCOMPATIBLE: { status: 400, message: 'Cannot merge project [{other}] into [{pid}]: {reason}' },
  DS_NOT_FOUND: { status: 400, message: "DS '{ds}' not found" },
  DS_EXISTS: { status: 409, message: "DS '{ds}' already exists" },
  DS_UNKNOWN_TYPE: { status: 400, message: 'Unknown data source type [{type}]; expected one of {expected}' },
  DS_INVALID: { status: 400, message: 'Invalid data source [{ds}]: {detail}' },
  DS_NULL: { status: 500, message: 'Generic Exception [java.lang.NullPointerException: DSInfo is null]' },
  DS_UNREADABLE: { status: 400, message: 'Data source [{ds}] cannot be read: {detail}' },
  DS_NOT_BROWSABLE: { status: 400, message: 'Data source type [{type}] cannot be browsed; dsbrowse lists localfile paths and s3 prefixes' },
  DS_LIMIT: { status: 400, message: 'Customer [{user}] already has {count} data sources, the limit ({variable}); delete one first' },
  DS_TOO_LARGE: { status: 400, message: 'Data source [{ds}]: the DSInfo is {bytes} bytes, more than {limit}' },
  DS_LEARN_FAILED: { status: 400, message: 'Learning from data source [{ds}] failed, nothing was learned: {detail}' },
  DS_NOT_WRITABLE: { status: 400, message: 'Data source [{ds}] of type [{type}] cannot be written: predictions go to localfile, s3 or redshift data sources' },
  DS_PREDICT_FAILED: { status: 400, message: 'Predicting data source [{ds}] into [{out}] failed, nothing was written: {detail}' },
  // §9 streams
  STREAM_UNKNOWN_TYPE: { status: 400, message: 'Customer [{user}] specified unknown DS Stream type [{type}]' },
  STREAM_INVALID: { status: 400, message: 'Invalid stream [{stream}]: {detail}' },
  STREAM_EXISTS: { status: 409, message: 'Customer [{user}] already has a stream named [{stream}] in project [{pid}]' },
  STREAM_NOT_FOUND: { status: 400, message: 'Cannot find stream [{stream}] of project [{pid}] for customer [{user}]' },
  STREAM_LIMIT: { status: 400, message: 'Customer [{user}] already has {count} streams, the limit ({variable}); delete one first' },
  STREAM_PREVIEW_TYPE: { status: 400, message: 'Preview invalid DS Stream type [{type}]' },
  STREAM_POLL_NOT_KAFKA: { status: 400, message: 'Data source [{ds}] is of type [{type}]: only kafka data sources can be polled' },
  STREAM_POLLERS_BUSY: { status: 503, message: 'This server already keeps {count} Kafka pollers (the limit); retry when idle ones expire (2 minutes) or DELETE /streams/poll the unused ones', retryable: true },
  STREAM_POLL_CONFLICT: { status: 409, message: 'Poller [{name}] was polled by another request at the same time; poll again', retryable: true },
  DS_SELECT_TOO_LARGE: { status: 400, message: 'Data source [{ds}] holds more than {limit} {unit} ({variable}): selectModel keeps its scoring data in memory; score on a smaller data source' },
  PROJECT_NOT_PERSISTENT: { status: 400, message: 'Project [{pid}] was created with persist=false: it has no snapshot to save' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, message: 'Idempotency-Key [{key}] was already used for a different batch of this project; send a new key with a new batch' },
  STATE_LIMIT: { status: 400, message: 'Project [{pid}]: {detail} ({variable}); nothing was learned' },
  PROJECT_LIMIT: { status: 400, message: 'Customer [{user}] already has {count} projects, the limit ({variable}); delete one first' },
  PROJECT_UNLOADABLE: { status: 409, message: 'Project [{pid}] cannot be loaded: {detail}; delete it or raise the limit' },
  NOT_PERSISTED: { status: 503, message: 'The batch could not be made durable ({detail}); nothing was learned, retry', retryable: true },

  // §6 exploration, §8 survival
  BAD_METRIC: { status: 400, message: 'bad metric:[{metric}]' },
  MISSING_KNOWN_VALUE: { status: 400, message: 'Metric {metric} needs extraParameters.{key}' },
  EXPLORE_INPUT: { status: 400, message: '{detail}' },
  UNKNOWN_ATTRIBUTE: { status: 400, message: 'Unknown attribute [{name}] in project [{pid}]' },
  HISTOGRAMS_DISABLED: { status: 400, message: 'Histograms for project id[{pid}] for Customer id [{user}] are not enabled' },
  UNKNOWN_DRIFT_METRIC: { status: 400, message: 'Unknown drift metric [{metric}]' },
  ROLLING_WINDOW_UNSUPPORTED: { status: 400, message: 'Rolling-window projects are not supported' },
  SVD_NO_TARGET: { status: 400, message: 'Less than 1 target for svd' },
  SVD_NO_VALUES: { status: 500, message: 'Error computing SVD, no values found' },
  NOT_SURVIVAL: { status: 400, message: 'Project [{pid}] has no survival data: create it with km_time_column and km_event_column' },
  KM_TYPE: { status: 400, message: 'Unsupported prediction type [{type}]: only survival is supported' },
  KM_ALPHA: { status: 400, message: 'alpha must be strictly between 0 and 1, got [{alpha}]' },
  SURVIVAL_INPUT: { status: 400, message: '{detail}' },

  // §7 models
  UNKNOWN_ALGORITHM: { status: 400, message: 'Unknown algorithm [{algo}]' },
  ALGORITHM_NOT_AVAILABLE: { status: 400, message: 'Algorithm [{algo}] is not available in this build yet' },
  MODEL_NOT_FOUND: { status: 400, message: 'Unknown model [{model}] in project [{pid}]' },
  MODEL_INPUT: { status: 400, message: '{detail}' },
  MODEL_STATE_INVALID: { status: 400, message: 'Model [{model}] of project [{pid}] has a state its algorithm cannot read ({detail}): build it again, or import it from a valid document' },
  BATCH_TOO_LARGE: { status: 413, message: 'The batch takes {bytes} bytes in the project log, over the limit of {limit} for one batch (the NATS server max_payload): nothing was learned; send it as smaller batches' },
  JOB_RESULT_TOO_LARGE: { status: 413, message: 'The result of this {jobType} job takes {bytes} bytes, over the limit of {limit} for a job result (the NATS server max_payload): ask for less at a time (fewer attributes or rows)' },
  MODEL_TOO_LARGE: { status: 413, message: 'Model [{model}] would be stored as {bytes} bytes besides its state, over the limit of {limit} (the NATS server max_payload): a smaller EVT wrapper window (evt_window_size, evt_max_exceedances)' },
  MODEL_CHANGED: { status: 409, message: 'Model [{model}] of project [{pid}] changed while this request used it (rebuilt, or written by another replica): send the request again', retryable: true },
  PREDICT_TOO_MANY_CELLS: { status: 400, message: 'A predict takes at most {limit} cells per request (SML_MAX_PREDICT_CELLS); this frame has {cells} in {rows} rows: predict fewer rows at a time, or score a data source with dss/predict' },
  PREDICT_TOO_COSTLY: { status: 400, message: 'Model [{model}] would take up to {steps} steps to predict {rows} rows, over the limit of {limit} (SML_MAX_PREDICT_STEPS): predict fewer rows at a time' },
  PREDICT_REPLY_TOO_LARGE: { status: 400, message: 'Model [{model}] would answer up to {chars} characters for {rows} rows, over the limit of {limit} (SML_MAX_PREDICT_REPLY_CHARS): predict fewer rows at a time' },
  SELECTION_BUDGET: { status: 400, message: 'Feature selection stopped after {tried} candidate subsets: over its time budget of {budgetMs} ms (SML_SELECTION_TIME_BUDGET_MS); use fewer inputs or selector_iterations' },
  AUTOSELECT_TASK: { status: 400, message: 'Unknown task [{task}]: expected binary_classification, binary_classifier, regression or multiclass_classifier' },
  AUTOSELECT_BUDGET: { status: 400, message: 'autoSelect stopped after {tried} candidate models: over its time budget of {budgetMs} ms (SML_SELECTION_TIME_BUDGET_MS); use a smaller autoselect_grid_type, fewer inputs or selector_type_simple' },
  AUTOSELECT_CANDIDATES: { status: 400, message: 'autoSelect stopped after {tried} candidate models: more than SML_MAX_SELECTION_CANDIDATES ({limit}); use a smaller autoselect_grid_type, fewer inputs or selector_type_simple' },
  // reduce
  REDUCE_HEURISTIC: { status: 400, message: 'Unknown heuristic [{heuristic}]' },
  REDUCE_ALGORITHM: { status: 400, message: 'Reduce does not support algorithm [{algo}]' },
  REDUCE_REFUSED: { status: 500, message: 'Optimize Job execution was refused by server.' },
  SINGULAR_SYSTEM: { status: 500, message: 'Generic Exception [java.lang.Exception: {detail}]' },
  EVT_PROJECT_NOT_FOUND: { status: 400, message: 'Cannot find project [{pid}] for user:[{user}]' },
  EVT_NOT_FOUND: { status: 400, message: 'Model [{model}] has no EVT wrapper' },

  // §3 encoders
  ENCODER_NOT_FOUND: { status: 400, message: 'Cannot Find Encoder[{encoder}] for Customer[{user}].' },
  ENCODER_UNKNOWN: { status: 400, message: 'Unknown Encoder [{encoder}]' },
  ENCODER_EXISTS: { status: 409, message: 'Customer [{user}] already has an encoder named [{encoder}]' },
  ENCODER_IN_USE: { status: 409, message: 'Encoder [{encoder}] is used by project(s) {pids}; delete them first' },
  ENCODER_TYPE: { status: 400, message: 'Invalid encoderType [{type}]: expected B (binary target) or C (continuous target)' },
  ENCODER_INPUT: { status: 400, message: '{detail}' },
  ENCODER_KEY_NOT_FOUND: { status: 400, message: 'Encoder [{encoder}] has no key [{key}]' },
  ENCODER_LIMIT: { status: 400, message: 'Encoder [{encoder}]: {detail} ({variable}); nothing was learned' },
  ENCODER_SPARK: { status: 400, message: 'Invalid Spark data source: {detail}' },
  ENCODER_COUNT_LIMIT: { status: 400, message: 'Customer [{user}] already has {count} encoders, the limit ({variable}); delete one first' },

  // users (§11)
  USER_EXISTS: { status: 409, message: 'Customer [{user}] already exists' },
  USER_ID_RETIRED: { status: 409, message: 'Customer id [{user}] belonged to a deleted customer and is never reused; choose another id' },
  USER_NOT_FOUND: { status: 400, message: 'Unknown customer [{user}]' },
  USER_IS_ROOT: { status: 400, message: 'The root user [{user}] cannot be deleted' },

  // §12 WebSocket API, export and import
  WS_CONNECTION_LIMIT: { status: 400, message: 'Customer [{user}] already has {count} WebSocket connections open, the limit ({variable}); close one first' },
  WS_NO_HEADER: { status: 400, message: 'The first message of a WebSocket connection must carry its header {"headers":[date, md5, authorization, customer id],"extraKeys":[…]}' },
  WS_EXTRA_KEYS: { status: 400, message: 'WebSocket {op} needs extraKeys [{expected}], got {count}' },
  EXPORT_TOO_LARGE: { status: 400, message: 'The {kind} document of [{name}] would be {bytes} bytes, more than {limit} (SML_MAX_EXPORT_BYTES)' },
  IMPORT_TOO_LARGE: { status: 400, message: 'The {kind} document is {bytes} bytes, more than {limit} (SML_MAX_EXPORT_BYTES); nothing was imported' },
  IMPORT_VERSION: { status: 400, message: 'Unsupported {kind} document version [{version}]: this build reads version {supported}; nothing was imported' },
  IMPORT_INVALID: { status: 400, message: 'Invalid {kind} document: {detail}; nothing was imported' },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof catalogue;

/** Successful statuses, named here so routes and services share one spelling. */
export const ok = {
  OK: { status: 200, message: 'OK' },
  JOB_CREATED: { status: 202, message: 'Job Created' },
  USER_CREATED: { status: 201, message: 'Customer [{user}] created' },
  USER_DELETED: { status: 200, message: 'Customer [{user}] deleted' },
  USER_ROTATED: { status: 200, message: 'Secret key of customer [{user}] rotated' },
  JOB_CANCEL_REQUESTED: { status: 200, message: 'Job {jobId} cancellation requested' },
  PROJECT_CREATED: { status: 201, message: 'Project Created with id:{pid}' },
  FED_JOINED: { status: 201, message: 'Fed Project created with join' },
  SELECT_MODEL_JOB_CREATED: { status: 202, message: 'SelectModel Job Created' },
  REDUCE_JOB_CREATED: { status: 202, message: 'Reduce Job Created' },
  MODEL_DELETED: { status: 200, message: 'Model [{model}] deleted' },
  EVT_CREATED: { status: 200, message: 'EVT Wrapper created for model [{model}]' },
  EVT_DELETED: { status: 200, message: 'EVT Wrapper of model [{model}] deleted' },
  PROJECT_DELETED: { status: 200, message: 'Project [{pid}] deleted' },
  PROJECT_SAVED: { status: 200, message: 'Project [{pid}] saved' },
  PROJECT_UNLOADED: { status: 200, message: 'Project [{pid}] unloaded' },
  PROJECT_FROZEN_OK: { status: 200, message: 'Project [{pid}] frozen' },
  PROJECT_UNFROZEN: { status: 200, message: 'Project [{pid}] unfrozen' },
  PROJECT_MERGED: { status: 200, message: 'Project [{other}] merged into [{pid}]' },
  HISTOGRAMS_SWITCHED: { status: 200, message: 'Histograms of project [{pid}] {state}' },
  DS_CREATED: { status: 201, message: 'DS [{ds}] created' },
  DS_UPDATED: { status: 200, message: 'DS [{ds}] updated' },
  DS_DELETED: { status: 200, message: 'DS [{ds}] deleted' },
  DS_ATTACHED: { status: 200, message: 'DS [{ds}] added to project [{pid}]' },
  DS_DETACHED: { status: 200, message: 'DS [{ds}] detached from project [{pid}]' },
  STREAM_CREATED: { status: 201, message: 'DS Stream created stream with name [{stream}] for customer [{user}]' },
  STREAM_STARTED: { status: 200, message: 'Stream [{stream}] of project [{pid}] started' },
  STREAM_STOPPED: { status: 200, message: 'Stream [{stream}] of project [{pid}] stopped' },
  STREAM_DELETED: { status: 200, message: 'Stream [{stream}] of project [{pid}] deleted' },
  ENCODER_CREATED: { status: 201, message: 'Encoder[{encoder}] with Target[{target}] created for Customer[{user}]' },
  ENCODER_DELETED: { status: 200, message: 'Encoder[{encoder}] deleted' },
  ENCODER_ASSIGNED: { status: 200, message: 'Encoder[{encoder}] assigned to project [{pid}]' },
  PROJECT_RENAMED: { status: 200, message: 'Project [{pid}] renamed to [{newName}]' },
  PROJECT_IMPORTED: { status: 200, message: 'Project [{pid}] imported' },
  MODEL_IMPORTED: { status: 200, message: 'Model [{model}] imported into project [{pid}]' },
} as const satisfies Record<string, CatalogueEntry>;

export type OkCode = keyof typeof ok;

// C0 controls and DEL: invisible, or a line break, in a message read on a terminal or in a log.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/g;

/** Where `text`'s first control character is, or -1. */
export function controlAt(text: string): number {
  return text.search(CONTROL); // search ignores the g flag and lastIndex
}

const SHORT_ESCAPES: Record<string, string> = { '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r' };

/** `text` with each control character written as a JSON escape (`\r`, `\u0000`, `\u007f`), so it shows and the text stays one line. */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, (c) => SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * A catalogue message with its parameters in place. Parameters come from requests (names,
 * attribute names, keys read from a URL or a CSV), so their control characters are escaped:
 * `Iris_virginica\r` shows as such, never as an invisible carriage return.
 */
export function formatMessage(template: string, params: Record<string, unknown> = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (key in params ? escapeControls(String(params[key])) : whole));
}

/**
 * An error that maps to one REST status and message. It crosses the bus as a `Status`
 * (code, message, retryable, errorCode) and is rebuilt into the same class on the other side.
 */
export class SmlError extends Error {
  override readonly name = 'SmlError';
  constructor(
    readonly code: ErrorCode,
    readonly status: number,
    message: string,
    readonly retryable = false,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** Extra REST `values` the error answers with (e.g. the server's string to sign). */
  values?: Record<string, unknown>;

  withValues(values: Record<string, unknown>): this {
    this.values = values;
    return this;
  }

  get omitValues(): boolean {
    return (catalogue[this.code] as CatalogueEntry).omitValues === true;
  }
}

export function smlError(code: ErrorCode, params: Record<string, unknown> = {}, cause?: unknown): SmlError {
  const entry: CatalogueEntry = catalogue[code];
  return new SmlError(code, entry.status, formatMessage(entry.message, params), entry.retryable ?? false, { cause });
}

export function isErrorCode(code: string): code is ErrorCode {
  return Object.prototype.hasOwnProperty.call(catalogue, code);
}

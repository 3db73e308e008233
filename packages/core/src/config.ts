import { z } from 'zod';
import { ConfigError } from './errors';

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const int = (min: number) => z.coerce.number().int().min(min);

/** Every environment variable any SML process reads, with its default. */
export const configSchema = z.object({
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  // This process's bus identity (README "Bus security"); unset = connect without credentials.
  SML_NATS_USER: z.string().regex(/^[A-Za-z0-9_-]+$/, 'must be a NATS user name (letters, digits, _ and -)').optional(),
  SML_NATS_PASSWORD: z.string().min(1).optional(),
  SML_DATA_DIR: z.string().min(1).default('./.sml'),
  /** Copies of every JetStream stream, KV bucket and object store the services create: 3 on a NATS cluster of 3 or more servers. */
  SML_JETSTREAM_REPLICAS: int(1).max(5).default(1),
  SML_PORT: int(0).max(65535).default(8080),
  SML_HOST: z.string().min(1).default('0.0.0.0'),
  SML_BASE_PATH: z.string().regex(/^\/[A-Za-z0-9_\-/]*$/, 'must start with / and contain only path characters').default('/symetry/rest'),
  SML_ROOT_USER: z.string().regex(/^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$/, 'must be a valid customer id').default('root'),
  SML_ROOT_SECRET: z.string().regex(/^[A-Za-z0-9+/]{22}==$/, 'must be base64 of 16 bytes (24 characters)').optional(),
  /** A request body (learn and forget frames, imports); alias SML_BODY_LIMIT. */
  SML_MAX_BODY_BYTES: int(1).default(256 * 1024 * 1024),
  /**
   * A request body other than a learn or forget frame or an import (those: SML_MAX_BODY_BYTES): the
   * gateway parses it as JSON (decrypts it first for a DSInfo) on its event loop, shared by
   * every customer (31 MB held other requests ≈ 1.1 s).
   */
  SML_MAX_JSON_BODY_BYTES: int(1).default(16 * 1024 * 1024),
  /** A compressed body may inflate to at most this many times its size (and never past SML_MAX_BODY_BYTES). */
  SML_MAX_INFLATE_RATIO: int(1).default(100),
  /** Request bodies one gateway holds at once (REST and WebSocket); alias SML_MAX_BODY_BYTES_IN_FLIGHT. */
  SML_MAX_IN_FLIGHT_BODY_BYTES: int(1).default(1024 * 1024 * 1024),
  /**
   * The request line and header fields of one request together (node's maxHeaderSize): over it
   * the gateway answers 431 from the bytes read so far. Node's own default (16 KiB).
   */
  SML_MAX_HEADER_BYTES: int(1024).max(1024 * 1024).default(16 * 1024),
  /** The request target (path and query) of one request: 414 above (within SML_MAX_HEADER_BYTES). */
  SML_MAX_URL_BYTES: int(64).max(1024 * 1024).default(8 * 1024),
  /** Parameters of one query string (`&`-separated): 400 above, before anything parses them. */
  SML_MAX_QUERY_PARAMETERS: int(1).max(100_000).default(256),
  /**
   * Threads on which the gateway computes the Content-MD5 and signature of large bodies (the
   * protocol hashes each body twice: ≈ 2.5 ms a MB) and reads learn frames (≈ 1.4 ms a MB);
   * 0 = on the event loop. Bodies under SML_GATEWAY_BODY_THREAD_MIN_BYTES stay on the event
   * loop (a thread hop costs more than hashing them).
   */
  SML_GATEWAY_BODY_THREADS: int(0).max(16).default(2),
  SML_GATEWAY_BODY_THREAD_MIN_BYTES: int(0).default(256 * 1024),
  /**
   * Projects whose batch-summary recipe the gateway keeps (least recently used first out;
   * ≈ 300 bytes each): their long learn and forget batches travel to the project, and into its
   * log, as their own summary instead of their rows (@sml/stats/batch). 0 = never.
   */
  SML_GATEWAY_BATCH_SUMMARY_PROJECTS: int(0).max(1_000_000).default(10_000),
  SML_MAX_ATTRIBUTES: int(1).default(2000),
  /** Characters of an attribute name (a frame's name, or `<name>$<value>` of a categorical value). */
  SML_MAX_NAME_LENGTH: int(1).default(256),
  SML_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SML_REQUEST_TIMEOUT_MS: int(1).default(30_000),
  SML_BREAKER_RESET_MS: int(1).default(1_000),
  /**
   * How long a bus request that meets "no responders" (nobody subscribed: a shard being handed
   * over, a replica restarting) is sent again before answering 503 (0: at once). It reached
   * nobody, so sending it again is safe for every operation.
   */
  SML_NO_RESPONDERS_RETRY_MS: int(0).max(60_000).default(2_000),
  SML_REQUIRED_SERVICES: z.string().default('users,jobs,projects,explore,encoders,streams'),
  SML_EXECUTOR_CONCURRENCY: int(1).default(2),
  SML_EXECUTOR_QUEUE: int(0).default(100),
  SML_AUTH_PAST_WINDOW_MS: int(0).default(5 * 60_000),
  SML_AUTH_FUTURE_WINDOW_MS: int(0).default(60_000),
  SML_FILES_ROOT: z.string().min(1).default('./.sml/files'),
  /** http, s3 and redshift data sources may connect to loopback, private and link-local addresses (SSRF guard). */
  SML_SOURCES_ALLOW_PRIVATE: bool.default(false),
  /**
   * Data sources (README "Resource limits"): how long a remote source may stay silent
   * (connect, first byte, between chunks), and the whole of a synchronous read (sample,
   * preview, dsbrowse), which must end before the gateway gives up on the request. Unset:
   * 2/3 of SML_REQUEST_TIMEOUT_MS (20 s at its default); set, it must be less (loadConfig).
   */
  SML_SOURCE_TIMEOUT_MS: int(100).optional(),
  /** The whole of one read of a source by a job (learn, forget, predict, selectModel, encoder learnds), wall clock. */
  SML_SOURCE_READ_DEADLINE_MS: int(1_000).default(6 * 3600 * 1000),
  /** The least rate a source read by a job must keep, bytes a second of waiting on it, over each SML_SOURCE_RATE_WINDOW_MS; 0 = none. */
  SML_SOURCE_MIN_BYTES_PER_S: int(0).default(1024),
  SML_SOURCE_RATE_WINDOW_MS: int(1_000).max(3_600_000).default(60_000),
  /** Fusion projects (README "Fusion projects"): a read refreshes the cells' merge when the last refresh is older than this. */
  SML_FUSION_MIN_REFRESH_MS: int(0).max(3_600_000).default(15_000),
  /** How long one fusion cell may take to answer a refresh (connect to summary received). */
  SML_FUSION_CELL_TIMEOUT_MS: int(100).max(120_000).default(10_000),
  /** Federation (README "Federation"): the shortest sync interval a schedule may have (under 60 000 the unit `s` is accepted). */
  SML_FED_MIN_INTERVAL_MS: int(1).max(86_400_000).default(60_000),
  /** How far a sync message's sentAt may be from this node's clock. */
  SML_FED_CLOCK_SKEW_S: int(1).max(86_400).default(300),
  /**
   * The length of one hour of `fed_token_timeout_hours`, in ms: 3 600 000 in production; a test
   * seam, so that a test sees an invitation token expire in seconds, not hours.
   */
  SML_FED_TOKEN_HOUR_MS: int(1).max(3_600_000).default(3_600_000),
  SML_TRUST_PROXY: bool.default(false),
  SML_HEALTH_PORT: int(0).max(65535).default(0),
  SML_JOB_TTL_MS: int(1).default(7 * 24 * 3600 * 1000),
  // Job leases (services/jobs README "Leases"): a runner renews each of its jobs this often ...
  SML_JOB_HEARTBEAT_MS: int(50).max(60_000).default(2_000),
  // ... and the jobs service fails a job whose runner was silent this long (keep it several heartbeats).
  SML_JOB_LEASE_MS: int(500).max(3_600_000).default(15_000),
  // A GET of an unfinished job answers when its record changes, or after this long (0: at once; services/jobs README "Polls").
  SML_JOB_POLL_WAIT_MS: int(0).max(1_000).default(25),
  SML_SNAPSHOT_EVERY_BATCHES: int(1).default(50),
  SML_SNAPSHOT_EVERY_MS: int(1).default(30_000),
  // Resource limits of a shared service (README "Resource limits"; packages/core/src/limits.ts).
  SML_MAX_SEQUENCE_ORDER: int(1).max(64).default(10),
  SML_MAX_SEQUENCE_NGRAMS: int(1).default(1_000_000),
  SML_MAX_PARTITIONS: int(1).default(1_000),
  SML_MAX_HISTOGRAM_BINS: int(1).default(10_000),
  SML_MAX_SELECTION_CANDIDATES: int(1).default(10_000),
  SML_SELECTION_TIME_BUDGET_MS: int(1).default(120_000),
  SML_MAX_ITERATIONS: int(1).default(100_000),
  SML_MAX_CENTROIDS: int(1).default(10_000),
  SML_MAX_EVT_WINDOW: int(1).default(1_000_000),
  SML_MAX_PROJECTS_PER_CUSTOMER: int(1).default(1_000),
  /** Characters one predict may answer when its model's answer grows faster than its rows (hmm: the decoded sequence on every row). */
  SML_MAX_PREDICT_REPLY_CHARS: int(1).default(64 * 1024 * 1024),
  /**
   * Cells of one predict or learnpredict frame (its rows' lengths summed), checked by the gateway before
   * the bus: a predict's decode, per-row work and reply run on the projects event loop
   * (≈ 0.6 s per 10⁶ cells, 5 columns; 10⁶ rows held it ≈ 3.9 s). Batch scoring: dss/predict.
   */
  SML_MAX_PREDICT_CELLS: int(1).default(1_000_000),
  /** Elementary steps one predict may take when its model costs far more per row than reading it (hmm: rows × states²): predict runs on the projects process's event loop. */
  SML_MAX_PREDICT_STEPS: int(1).default(250_000_000),
  /**
   * A predict whose model counts at least this many steps (Model.predictionSteps: hmm, kmeans,
   * covest, mqda, repca, oospca) runs on the projects service's predict thread, off the event
   * loop; below it the thread's round trip costs more than it saves.
   */
  SML_PREDICT_THREAD_STEPS: int(0).default(1_000_000),
  /** Predict threads of a projects process (PredictPool): with more than one, two costly predicts do not wait for each other. */
  SML_PREDICT_THREADS: int(1).max(16).default(1),
  /**
   * Threads of a projects process on which the online models (rf_* forests, cluster_*
   * micro-clusters) learn each batch (OnlinePool), off the event loop every project shares:
   * with more than one, two customers' forests do not wait for each other.
   */
  SML_ONLINE_MODEL_THREADS: int(1).max(16).default(1),
  /** Attributes one sub-summary request (explore → projects) may name: its co-moments grow with their square (500: ≈ 13 MB). */
  SML_MAX_SUMMARY_ATTRIBUTES: int(1).default(500),
  // ≈ 45–70 bytes held and ≈ 50 stored per value; learning 10⁶ values peaked at 0.6–0.8 GiB RSS (bench/RESULTS.md "encoders").
  SML_MAX_ENCODER_VALUES: int(1).default(2_000_000),
  SML_MAX_ENCODER_PAGE_ROWS: int(1).default(100_000),
  SML_MAX_ENCODERS_PER_CUSTOMER: int(1).default(1_000),
  SML_MAX_DATA_SOURCES_PER_CUSTOMER: int(1).default(1_000),
  /** Rows selectModel/{dsid} reads from a data source: selection keeps its scoring rows in memory (as the inline dataframe, which SML_MAX_BODY_BYTES bounds). */
  SML_MAX_SELECT_DS_ROWS: int(1).default(1_000_000),
  SML_EXECUTOR_PER_CUSTOMER: int(1).default(1),
  // Streams (API.md §9, README "Streams").
  SML_MAX_STREAMS_PER_CUSTOMER: int(1).default(1_000),
  /** A stream batch (one learn) holds at most this many records and bytes of record values ... */
  SML_STREAM_BATCH_RECORDS: int(1).max(1_000_000).default(5_000),
  SML_STREAM_BATCH_BYTES: int(1024).default(4 * 1024 * 1024),
  /** ... and waits at most this long for records to fill it. */
  SML_STREAM_BATCH_MS: int(1).max(60_000).default(250),
  /** A record value longer than this is rejected (errorLog). */
  SML_STREAM_MAX_RECORD_BYTES: int(1).default(1024 * 1024),
  /** Errors a stream's errorLog keeps (the most recent). */
  SML_STREAM_ERROR_LOG: int(1).max(10_000).default(100),
  /** A replica runs a stream under a lease it renews; another takes the stream over this long after the holder went silent. */
  SML_STREAM_LEASE_MS: int(1_000).max(600_000).default(10_000),
  /**
   * Projects replicas (README "Replicas"): one serves the projects, under a lease it renews
   * every third of this; a standby takes over this long after the holder went silent.
   */
  SML_PROJECT_LEASE_MS: int(1_000).max(600_000).default(10_000),
  /**
   * Shards of the projects (README "Replicas"): a project belongs to shard hash(customer,
   * project) mod this, and each shard is served by the projects replica holding its lease.
   * Every process of a deployment must have the same value.
   */
  SML_PROJECT_SHARDS: int(1).max(256).default(1),
  /**
   * This process's name among the replicas of its service (e.g. the Kubernetes pod name). A
   * replica restarted under the same name takes its own leases back at once instead of
   * waiting for them to expire; two live processes must never share one. Default: random.
   */
  SML_REPLICA_ID: z.string().regex(/^[A-Za-z0-9_.#-]{1,128}$/, 'must be 1 to 128 letters, digits or _ . # -').optional(),
  // WebSocket API (API.md §12, README "WebSocket API").
  SML_WS_PATH: z.string().regex(/^\/[A-Za-z0-9_\-/]*$/, 'must start with / and contain only path characters').default('/symetry/ws'),
  SML_WS_MAX_IN_FLIGHT: int(1).max(1024).default(8),
  SML_WS_MAX_CONNECTIONS_PER_CUSTOMER: int(1).default(16),
  /**
   * The largest message a WebSocket connection may send before one of its messages has
   * authenticated: a frame announcing more closes the connection (1009) before its payload is
   * read. SymetryML's clients carry their data on the signed first message (sym-rest-rc sends
   * a whole file as one), so the default admits a first batch; memory is bounded by
   * SML_WS_UNAUTHENTICATED_BYTES_IN_FLIGHT, not by this.
   */
  SML_WS_UNAUTHENTICATED_MAX_BYTES: int(1024).default(16 * 1024 * 1024),
  /**
   * Bytes that the messages over 64 KiB of not-yet-authenticated WebSocket connections may
   * hold at once in this gateway, reserved from their frame headers: one that does not fit
   * closes its connection (1013, retry later) unread. 0: no such message is read.
   */
  SML_WS_UNAUTHENTICATED_BYTES_IN_FLIGHT: int(0).default(64 * 1024 * 1024),
  /** Bytes of an exported or imported project or model document (API.md §12). */
  SML_MAX_EXPORT_BYTES: int(1).default(128 * 1024 * 1024),
  /**
   * @sml/stats' kernels (its README "Kernels"), selected once at start-up by each entry point
   * (statsKernels below): the cross-product kernel wanted (auto = the fastest the machine has;
   * js also reads learn frames without WebAssembly), and whether the native addon is used at all.
   */
  SML_STATS_KERNEL: z.enum(['auto', 'native', 'wasm', 'js']).default('auto'),
  SML_STATS_NATIVE: bool.default(true),
});

/**
 * Limits renamed to the one scheme SML_MAX_<WHAT>[_<UNIT>] (README "Resource limits"): the
 * old name is still accepted as an alias; setting both to different values is a start-up error.
 */
export const CONFIG_ALIASES = {
  SML_MAX_BODY_BYTES: 'SML_BODY_LIMIT',
  SML_MAX_IN_FLIGHT_BODY_BYTES: 'SML_MAX_BODY_BYTES_IN_FLIGHT',
} as const satisfies Partial<Record<keyof typeof configSchema.shape, string>>;

/** The environment, read: SML_SOURCE_TIMEOUT_MS resolved (its default follows SML_REQUEST_TIMEOUT_MS). */
export type Config = Omit<z.infer<typeof configSchema>, 'SML_SOURCE_TIMEOUT_MS'> & { SML_SOURCE_TIMEOUT_MS: number };
export type ConfigKey = keyof Config;
/** What one process (or one library) reads of the configuration: its slice, typed. */
export type ConfigSlice<K extends ConfigKey> = Pick<Config, K>;

const is = (v: string | undefined): v is string => v !== undefined && v !== '';

/** The variables under their current names: an alias's value moved to its name; both set and different is an error. */
function resolveAliases(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const [name, alias] of Object.entries(CONFIG_ALIASES)) {
    if (!is(env[alias])) continue;
    if (is(env[name]) && env[name] !== env[alias]) {
      throw new ConfigError(`Invalid environment: ${name} and ${alias} (its old name) are both set, to different values (${env[name]}, ${env[alias]}); set only ${name}`);
    }
    out[name] = env[alias];
  }
  return out;
}

/**
 * Reads and validates the environment once, at an entry point (a service's main, the CLI, a
 * script, a test); a bad variable stops the process with its name. With `keys`, only that
 * slice is read and validated: a process checks what it uses. Libraries take their slice as
 * an argument and never call this (eslint.config.mjs keeps it so).
 */
export function loadConfig(env?: NodeJS.ProcessEnv): Config;
export function loadConfig<K extends ConfigKey>(env: NodeJS.ProcessEnv, keys: readonly K[]): ConfigSlice<K>;
export function loadConfig(env: NodeJS.ProcessEnv = process.env, keys?: readonly ConfigKey[]): Partial<Config> {
  const resolved = resolveAliases(env);
  // SML_SOURCE_TIMEOUT_MS is checked against SML_REQUEST_TIMEOUT_MS, so it brings it along.
  const wanted = new Set<string>(keys ?? Object.keys(configSchema.shape));
  if (wanted.has('SML_SOURCE_TIMEOUT_MS')) wanted.add('SML_REQUEST_TIMEOUT_MS');
  const shape = Object.fromEntries(Object.entries(configSchema.shape).filter(([k]) => wanted.has(k)));
  const picked = Object.fromEntries(Object.keys(shape).filter((k) => is(resolved[k])).map((k) => [k, resolved[k]]));
  const parsed = z.object(shape).safeParse(picked);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`Invalid environment: ${issues}`);
  }
  const c = parsed.data as Partial<z.infer<typeof configSchema>>;
  if (!wanted.has('SML_SOURCE_TIMEOUT_MS')) return c;
  // A sample or preview that waits on a silent source must answer, naming it, before the
  // gateway answers 503 'did not answer' for the service.
  const request = c.SML_REQUEST_TIMEOUT_MS!;
  const sourceTimeout = c.SML_SOURCE_TIMEOUT_MS ?? Math.floor((request * 2) / 3);
  if (c.SML_SOURCE_TIMEOUT_MS !== undefined && sourceTimeout >= request) {
    throw new ConfigError(`Invalid environment: SML_SOURCE_TIMEOUT_MS: must be less than SML_REQUEST_TIMEOUT_MS (${request}), got ${sourceTimeout}`);
  }
  return { ...c, SML_SOURCE_TIMEOUT_MS: sourceTimeout };
}

/** The variables an entry point that runs @sml/stats reads to select its kernels. */
export const STATS_KERNEL_CONFIG = ['SML_STATS_KERNEL', 'SML_STATS_NATIVE'] as const;

/** @sml/stats' selectKernels options from the configuration (a plain object: core does not depend on stats). */
export function statsKernels(config: ConfigSlice<(typeof STATS_KERNEL_CONFIG)[number]>): { kernel: Config['SML_STATS_KERNEL']; native: boolean } {
  return { kernel: config.SML_STATS_KERNEL, native: config.SML_STATS_NATIVE };
}

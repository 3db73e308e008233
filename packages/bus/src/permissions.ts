/**
 * Who may publish and subscribe what on the bus (README "Bus security"). One NATS user per
 * process kind; nats-server enforces these permissions, so a process holding one identity's
 * credentials can do only what that identity needs. This table is the single source: the
 * local nats.conf (`npm run up`), the testkit and the Kubernetes auth file are rendered from it.
 *
 * JetStream is reached through subjects too. Its API (`$JS.API.>`) is per account in
 * nats-server 2.9, so instead of granting all of it, each identity gets the API subjects that
 * name its own streams (`$JS.API.STREAM.INFO.KV_sml_users` …) plus `$JS.API.INFO` and
 * `$JS.API.STREAM.NAMES` (which reveal account usage and stream names, nothing stored).
 */

/** A process kind that connects to NATS with its own user. */
export type BusIdentity = 'gateway' | 'jobs' | 'projects' | 'explore' | 'encoders' | 'streams' | 'federation' | 'admin';

export const BUS_IDENTITIES: readonly BusIdentity[] = ['gateway', 'jobs', 'projects', 'explore', 'encoders', 'streams', 'federation', 'admin'];

/** The identity of each service process (by the name it registers on the bus); `users` is the gateway process. */
export const SERVICE_IDENTITY: Record<string, BusIdentity> = {
  users: 'gateway', jobs: 'jobs', projects: 'projects', explore: 'explore', encoders: 'encoders', streams: 'streams', federation: 'federation',
};

export interface IdentityRights {
  /** Core subjects it may publish (requests, notices, stream captures). */
  publish: string[];
  /** Core subjects it may subscribe to (its own endpoints). */
  subscribe: string[];
  /** The micro-service name it registers, whose `$SRV` discovery subjects it answers. */
  service?: string;
  /** JetStream streams it owns or uses: KV bucket `b` is stream `KV_b`, object store `o` is `OBJ_o`. */
  kv?: string[];
  objectStores?: string[];
  streams?: string[];
}

/** Large payloads travel through this object store (spill.ts): every identity that sends or receives big messages needs it. */
const SPILL = 'sml_bus_spill';
/** What a service that runs jobs (JobRunner) needs: an id from `jobs`, events into SML_JOB_EVENTS, its cancel notices. */
const jobRunner = (service: string) => ({ publish: ['sml.jobs.create', 'sml.events.job.>'], subscribe: [`sml.jobcancel.${service}`] });

export const BUS_RIGHTS: Record<BusIdentity, IdentityRights> = {
  // The REST front door: the only identity that sends caller-bearing requests to services
  // (the caller comes from an HMAC-authenticated request); hosts the `users` service.
  gateway: {
    publish: ['sml.users.>', 'sml.projects.>', 'sml.explore.>', 'sml.jobs.get', 'sml.jobs.list', 'sml.jobs.cancel', 'sml.encoders.>', 'sml.streams.>', 'sml.federation.>', '$SRV.>'],
    subscribe: ['sml.users.>'],
    service: 'users',
    kv: ['sml_users', 'sml_replay'],
    objectStores: [SPILL],
  },
  jobs: {
    publish: ['sml.jobcancel.>', 'sml.jobids'],
    subscribe: ['sml.jobs.>'],
    service: 'jobs',
    kv: ['sml_jobs'],
    objectStores: [SPILL],
    streams: ['SML_JOB_IDS', 'SML_JOB_EVENTS'],
  },
  projects: {
    // Encoders: encoderAssign lists the project; learn and predict read the statistics.
    // Other shards' holders: a merge or infoAll reads a project served elsewhere (shards.ts).
    publish: ['sml.plog.>', 'sml.encoders.assign', 'sml.encoders.state', 'sml.projects.*.summary', 'sml.projects.*.info', 'sml.projects.*.cellSummary', 'sml.users.checkSecret', ...jobRunner('projects').publish],
    subscribe: ['sml.projects.>', ...jobRunner('projects').subscribe],
    service: 'projects',
    kv: ['sml_projects', 'sml_dss', 'sml_models', 'sml_idempotency', 'sml_project_leases', 'sml_project_replicas', 'sml_fusion'],
    objectStores: ['sml_project_snapshots', 'sml_project_quarantine', 'sml_model_states', SPILL],
    streams: ['SML_PROJECT_LOG'],
  },
  // Explore forwards the gateway's caller to read summaries; it may ask nothing else of projects.
  explore: {
    publish: ['sml.projects.*.summary', 'sml.projects.*.info', 'sml.projects.*.alive', ...jobRunner('explore').publish],
    subscribe: ['sml.explore.>', ...jobRunner('explore').subscribe],
    service: 'explore',
    objectStores: [SPILL],
  },
  // Encoders: their own subjects and bucket; the projects service calls assign and state.
  encoders: {
    publish: [...jobRunner('encoders').publish],
    subscribe: ['sml.encoders.>', ...jobRunner('encoders').subscribe],
    service: 'encoders',
    kv: ['sml_encoders'],
    objectStores: ['sml_encoder_stats', SPILL],
  },
  // Streams: their own subjects and buckets; they learn batches into projects (check a project
  // exists at create, drop a deleted stream's marks) as the stream's customer, nothing else of
  // projects. sml_dss:
  // POST /streams/poll?sid= reads the registered kafka data source `sid` (with its
  // credentials), DELETE /streams/poll?sid= deletes it.
  streams: {
    publish: ['sml.projects.*.learn', 'sml.projects.*.info', 'sml.projects.*.dropStreamMarks', 'sml.projects.*.alive'],
    subscribe: ['sml.streams.>'],
    service: 'streams',
    kv: ['sml_streams', 'sml_stream_status', 'sml_stream_leases', 'sml_stream_polls', 'sml_stream_replicas', 'sml_dss'],
    objectStores: [SPILL],
  },
  // Federation (/fedml): its own subjects and bucket; it creates a federated
  // project (type fed) as the calling customer, reads its info, and deletes it again when the
  // federation cannot be set up. The backbone is another NATS server: nothing of it is here.
  federation: {
    publish: ['sml.projects.*.create', 'sml.projects.*.info', 'sml.projects.*.delete'],
    subscribe: ['sml.federation.>'],
    service: 'federation',
    kv: ['sml_fed'],
    objectStores: [SPILL],
  },
  // The `sml admin` CLI: the customer registry, nothing else.
  admin: {
    publish: ['sml.users.>'],
    subscribe: [],
  },
};

/** Where an identity's replies arrive: `_INBOX.<identity>.…`, so no identity can read another's replies. */
export function inboxPrefix(user: string): string {
  return `_INBOX.${user}`;
}

/** The JetStream API subjects that name stream `s`, and the ack / flow-control subjects of its consumers. */
function streamApi(s: string): string[] {
  return [
    `$JS.API.STREAM.*.${s}`, // INFO, CREATE, UPDATE, PURGE, DELETE
    `$JS.API.STREAM.MSG.*.${s}`, // GET, DELETE
    `$JS.API.DIRECT.GET.${s}`,
    `$JS.API.DIRECT.GET.${s}.>`,
    `$JS.API.CONSUMER.*.${s}`, // CREATE (ephemeral), NAMES, LIST
    `$JS.API.CONSUMER.*.${s}.>`, // CREATE <name> <filter>, INFO, DELETE
    `$JS.API.CONSUMER.DURABLE.CREATE.${s}.>`,
    `$JS.API.CONSUMER.MSG.NEXT.${s}.>`,
    `$JS.ACK.${s}.>`,
    `$JS.FC.${s}.>`,
  ];
}

/** The publish and subscribe allow lists nats-server enforces for `identity`. */
export function natsPermissions(identity: BusIdentity): { publish: string[]; subscribe: string[] } {
  const r = BUS_RIGHTS[identity];
  const streams = [...(r.kv ?? []).map((b) => `KV_${b}`), ...(r.objectStores ?? []).map((o) => `OBJ_${o}`), ...(r.streams ?? [])];
  const jetstream = streams.length === 0 ? [] : [
    '$JS.API.INFO',
    // Names only (no config, no data): object store reads look their stream up by subject.
    '$JS.API.STREAM.NAMES',
    ...streams.flatMap(streamApi),
    ...(r.kv ?? []).map((b) => `$KV.${b}.>`),
    ...(r.objectStores ?? []).map((o) => `$O.${o}.>`),
  ];
  const discovery = r.service ? ['$SRV.*', `$SRV.*.${r.service}`, `$SRV.*.${r.service}.>`] : [];
  return {
    publish: [...r.publish, ...jetstream],
    subscribe: [...r.subscribe, ...discovery, `${inboxPrefix(identity)}.>`],
  };
}

const quote = (s: string) => JSON.stringify(s);

/**
 * The `authorization { users = [...] }` block of a nats.conf: one user per identity, with its
 * password (a bcrypt hash `$2a$…`/`$2b$…`, or plain text) and permissions. Responders may answer
 * the requests they receive (`allow_responses`: one reply each, within an hour), without any
 * right to publish to inboxes in general.
 */
export function natsAuthorizationConf(passwords: Partial<Record<BusIdentity, string>>): string {
  const users = BUS_IDENTITIES.filter((id) => passwords[id] !== undefined).map((id) => {
    const p = natsPermissions(id);
    const list = (xs: string[]) => `[${xs.map(quote).join(', ')}]`;
    return [
      '    {',
      `      user: ${quote(id)}`,
      `      password: ${quote(passwords[id]!)}`,
      '      permissions: {',
      `        publish: { allow: ${list(p.publish)} }`,
      `        subscribe: { allow: ${list(p.subscribe)} }`,
      '        allow_responses: { max: 1, expires: "1h" }',
      '      }',
      '    }',
    ].join('\n');
  });
  return ['# Generated from packages/bus/src/permissions.ts: one user per bus identity (README "Bus security").', 'authorization {', '  users = [', ...users, '  ]', '}', ''].join('\n');
}


import type { ProjectsOp } from './contracts/projects';

/** Subjects of the bus (ARCHITECTURE.md §2): `sml.<service>.<operation>`. */
export const subjects = {
  jobs: {
    create: 'sml.jobs.create',
    get: 'sml.jobs.get',
    list: 'sml.jobs.list',
    cancel: 'sml.jobs.cancel',
  },
  users: {
    add: 'sml.users.add',
    list: 'sml.users.list',
    rotate: 'sml.users.rotate',
    delete: 'sml.users.delete',
    checkSecret: 'sml.users.checkSecret',
  },
  /** Job events, captured by the JetStream stream SML_JOB_EVENTS. */
  jobEvent: (jobId: number | string) => `sml.events.job.${jobId}`,
  jobEvents: 'sml.events.job.>',
  /** Cancellation notices for the jobs a service runs (every replica listens). */
  jobCancel: (service: string) => `sml.jobcancel.${service}`,
  /** Explore: stateless, so any replica answers any project. */
  explore: {
    run: 'sml.explore.run',
    dataDrift: 'sml.explore.dataDrift',
    density: 'sml.explore.density',
    conditionalDensity: 'sml.explore.conditionalDensity',
    matrix: 'sml.explore.matrix',
    kaplanMeier: 'sml.explore.kaplanMeier',
    cumulativeIncidence: 'sml.explore.cumulativeIncidence',
  },
  /** Encoders (API.md §3): one replica owns them all (its KV bucket), no shard token. */
  encoders: {
    create: 'sml.encoders.create',
    learn: 'sml.encoders.learn',
    learnds: 'sml.encoders.learnds',
    stats: 'sml.encoders.stats',
    list: 'sml.encoders.list',
    delete: 'sml.encoders.delete',
    keyvals: 'sml.encoders.keyvals',
    setValues: 'sml.encoders.setValues',
    createKeyValues: 'sml.encoders.createKeyValues',
    /** From the projects service: encoderAssign, and reading the statistics to encode with. */
    assign: 'sml.encoders.assign',
    state: 'sml.encoders.state',
    /** From the gateway when a customer is deleted: every encoder of it, with its statistics. */
    purgeCustomer: 'sml.encoders.purgeCustomer',
  },
  /** Streams (API.md §9): definitions in KV sml_streams; any replica answers, one runs each stream (lease). */
  streams: {
    create: 'sml.streams.create',
    start: 'sml.streams.start',
    stop: 'sml.streams.stop',
    delete: 'sml.streams.delete',
    list: 'sml.streams.list',
    metrics: 'sml.streams.metrics',
    errorLog: 'sml.streams.errorLog',
    /** Kafka pollers (POST / DELETE /{user}/streams/poll), browse and preview of a source. */
    poll: 'sml.streams.poll',
    pollDelete: 'sml.streams.pollDelete',
    browse: 'sml.streams.browse',
    preview: 'sml.streams.preview',
  },
  /** Federation (/fedml): records in KV sml_fed; the backbone is another NATS server. */
  federation: {
    create: 'sml.federation.create',
    createJoin: 'sml.federation.createJoin',
    info: 'sml.federation.info',
    getInvitation: 'sml.federation.getInvitation',
    awsinfo: 'sml.federation.awsinfo',
  },
  /**
   * Project-scoped operations carry a shard token, hash(user, pid) mod S, so that one replica
   * owns a project (S = 1 until sharding lands). A shard of the bus, not a `partition`
   * project's sub-summary (ARCHITECTURE.md §2 calls the token a partition).
   */
  projects: (op: ProjectsOp, shard = 0) => `sml.projects.${shard}.${op}`,
} as const;

/**
 * The shard of a project: FNV-1a (32 bits) of customer and project id, mod `shards`
 * (SML_PROJECT_SHARDS). Every process must agree on it, so it never changes.
 */
export function shardOf(user: string, pid: string, shards: number): number {
  if (shards <= 1) return 0;
  let h = 0x811c9dc5;
  const text = `${user}\u0000${pid}`;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % shards;
}

// SML_PROJECT_SHARDS's default: a process whose entry point set none has one shard.
let shardCount = 1;

/** Sets this process's SML_PROJECT_SHARDS, once at start-up (runService does, from its configuration). */
export function useProjectShards(count: number): void {
  shardCount = count;
}

/** This process's SML_PROJECT_SHARDS. */
export function projectShards(): number {
  return shardCount;
}

/**
 * The subject of an operation on project `pid` of customer `user`: on the project's shard, or
 * shard 0 for an operation of the customer's (list, data sources) — any shard's holder serves
 * those from the shared KV buckets.
 */
export function projectSubject(op: ProjectsOp, user: string, pid?: string): string {
  return subjects.projects(op, pid ? shardOf(user, pid, projectShards()) : 0);
}

/** The operation every projects shard answers at once (an empty reply): BusClient's failover probe. */
export const SHARD_PROBE_OP = 'alive' satisfies ProjectsOp;

/**
 * The failover probe of a projects subject (`sml.projects.<shard>.<op>` → its shard's
 * `alive`), subscribed exactly while a replica serves the shard; undefined for any other subject.
 */
export function shardProbe(subject: string): string | undefined {
  const m = /^sml\.projects\.(\d+)\.[^.]+$/.exec(subject);
  return m ? subjects.projects(SHARD_PROBE_OP, Number(m[1])) : undefined;
}

export const JOB_EVENTS_STREAM = 'SML_JOB_EVENTS';
export const JOB_IDS_STREAM = 'SML_JOB_IDS';

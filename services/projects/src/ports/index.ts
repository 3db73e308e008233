// What the projects domain needs of storage (README "Ports"): the domain classes take these
// interfaces; the JetStream classes implement them (store.ts, model-store.ts, idempotency.ts;
// `@sml/bus` Leases/Presence and the nats KV have their shape) and @sml/testkit holds the
// in-memory ones the unit tests run the domain on.
export type { Appended, ProjectLog, ProjectMetas, ProjectSnapshots, ProjectStorage, QuarantinedBatches, ReplayedEntry, StoredSnapshot } from './project-storage';
export type { ModelStorage } from './model-storage';
export type { IdempotencyKeys } from './idempotency-keys';
export type { ReplicaPresence, ShardEndpoints, ShardLeases } from './leases';
export type { DataSourceRecords } from './data-source-records';

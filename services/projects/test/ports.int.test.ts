// The storage ports' conformance suites (conformance.ts) against the JetStream classes, on one
// throw-away nats-server: the same suites ports.test.ts runs against the in-memory adapters.
import { connect, type NatsConnection } from 'nats';
import { kvBucket, Leases, Presence } from '@sml/bus';
import { startNatsServer, type NatsServer } from '@sml/testkit';
import { KvIdempotencyKeys } from '../src/learning/idempotency';
import { ModelStore } from '../src/store/model-store';
import type { DataSourceRecords, ReplicaPresence, ShardLeases } from '../src/ports';
import { ProjectStore } from '../src/store/store';
import {
  dataSourceRecordsConformance, idempotencyKeysConformance, modelStorageConformance, projectStorageConformance, replicaPresenceConformance, shardLeasesConformance,
} from './conformance';

let nats: NatsServer;
let nc: NatsConnection;
beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
});
afterAll(async () => {
  await nc.close();
  await nats.stop();
});

describe('JetStream: ProjectStore', () => {
  projectStorageConformance(() => ProjectStore.open(nc), { get maxPayload() { return nc.info!.max_payload; } } /* read as the test runs: nc connects in beforeAll */ );
});

describe('JetStream: ModelStore', () => {
  let store: ModelStore | undefined;
  modelStorageConformance(async () => (store ??= await ModelStore.open(nc)));
});

describe('JetStream: KvIdempotencyKeys', () => {
  idempotencyKeysConformance(() => KvIdempotencyKeys.open(nc));
});

describe('JetStream: Leases', () => {
  shardLeasesConformance(async (owner, leaseMs): Promise<ShardLeases> => new Leases(await kvBucket(nc, 'sml_project_leases'), owner, leaseMs));
});

describe('JetStream: Presence', () => {
  let bucket = 0;
  let name = '';
  beforeEach(() => {
    name = `sml_replicas_${++bucket}`;
  });
  replicaPresenceConformance(async (owner): Promise<ReplicaPresence> => new Presence(await kvBucket(nc, name, { ttl: 10_000 }), owner));
});

describe('JetStream: KV sml_dss', () => {
  dataSourceRecordsConformance(async (): Promise<DataSourceRecords> => kvBucket(nc, 'sml_dss'));
});

// The storage ports' conformance suites (conformance.ts) against the in-memory adapters of
// @sml/testkit, the ones the domain's unit tests run on. ports.int.test.ts runs the same
// suites against the JetStream classes.
import { MemoryDataSourceRecords, MemoryIdempotencyKeys, MemoryLeases, MemoryLeaseTable, MemoryModelStore, MemoryPresence, MemoryProjectStore } from '@sml/testkit';
import type { DataSourceRecords, IdempotencyKeys, ModelStorage, ProjectStorage, ReplicaPresence, ShardLeases } from '../src/ports';
import {
  dataSourceRecordsConformance, idempotencyKeysConformance, modelStorageConformance, projectStorageConformance, replicaPresenceConformance, shardLeasesConformance,
} from './conformance';

describe('in memory: ProjectStorage', () => {
  projectStorageConformance((): ProjectStorage => new MemoryProjectStore({ maxPayload: 1024 * 1024 }), { maxPayload: 1024 * 1024 });
});

describe('in memory: ModelStorage', () => {
  modelStorageConformance((): ModelStorage => new MemoryModelStore());
});

describe('in memory: IdempotencyKeys', () => {
  idempotencyKeysConformance((): IdempotencyKeys => new MemoryIdempotencyKeys());

  it('a record is forgotten after the window', async () => {
    let now = 1_000;
    const keys = new MemoryIdempotencyKeys({ windowMs: 100, now: () => now });
    await keys.put('k', 'f');
    now += 99;
    expect(await keys.get('k')).toBe('f');
    now += 1;
    expect(await keys.get('k')).toBeUndefined();
  });
});

describe('in memory: ShardLeases', () => {
  const table = new MemoryLeaseTable();
  shardLeasesConformance((owner, leaseMs): ShardLeases => new MemoryLeases(table, owner, leaseMs));
});

describe('in memory: ReplicaPresence', () => {
  let alive = new Map<string, number>();
  beforeEach(() => {
    alive = new Map();
  });
  replicaPresenceConformance((owner): ReplicaPresence => new MemoryPresence(alive, owner, 10_000));
});

describe('in memory: DataSourceRecords', () => {
  dataSourceRecordsConformance((): DataSourceRecords => new MemoryDataSourceRecords());
});

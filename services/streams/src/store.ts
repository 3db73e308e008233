import type { KV, NatsConnection } from 'nats';
import { isKeyExists, kvBucket } from '@sml/bus';
import { nameToken, smlError, tokenToName } from '@sml/core';
import { sml } from '@sml/proto';

/**
 * Stream state in three KV buckets, each keyed `<customer token>.<project token>.<stream token>`
 * (names are encoded, never raw keys, so a customer addresses only its own streams):
 * `sml_streams` the definitions (DSInfo with its credentials, running or stopped),
 * `sml_stream_status` the counters and errorLog the running replica writes, and
 * `sml_stream_leases` which replica runs each stream (lease.ts).
 */
export class StreamStore {
  private constructor(readonly defs: KV, readonly status: KV, readonly leases: KV) {}

  static async open(nc: NatsConnection): Promise<StreamStore> {
    return new StreamStore(await kvBucket(nc, 'sml_streams'), await kvBucket(nc, 'sml_stream_status'), await kvBucket(nc, 'sml_stream_leases'));
  }

  static key(user: string, pid: string, stream: string): string {
    return `${nameToken(user)}.${nameToken(pid)}.${nameToken(stream)}`;
  }

  async get(user: string, pid: string, stream: string): Promise<{ record: sml.v1.StreamRecord; revision: number } | undefined> {
    const e = await this.defs.get(StreamStore.key(user, pid, stream));
    return e && e.operation === 'PUT' ? { record: sml.v1.StreamRecord.decode(e.value), revision: e.revision } : undefined;
  }

  async getByKey(key: string): Promise<sml.v1.StreamRecord | undefined> {
    const e = await this.defs.get(key);
    return e && e.operation === 'PUT' ? sml.v1.StreamRecord.decode(e.value) : undefined;
  }

  /** Stores a new stream; 409 when the project already has one of that name. */
  async create(record: sml.v1.IStreamRecord): Promise<void> {
    try {
      await this.defs.create(StreamStore.key(record.user!, record.pid!, record.name!), sml.v1.StreamRecord.encode(record).finish());
    } catch (err) {
      if (isKeyExists(err)) throw smlError('STREAM_EXISTS', { user: record.user, pid: record.pid, stream: record.name });
      throw err;
    }
  }

  /** Replaces the record read at `revision`; throws (isKeyExists) when it changed since. */
  async update(record: sml.v1.IStreamRecord, revision: number): Promise<void> {
    await this.defs.update(StreamStore.key(record.user!, record.pid!, record.name!), sml.v1.StreamRecord.encode(record).finish(), revision);
  }

  async delete(user: string, pid: string, stream: string): Promise<void> {
    const key = StreamStore.key(user, pid, stream);
    await this.defs.delete(key);
    await this.status.delete(key).catch(() => undefined);
  }

  /** Every stream key (every customer's): what the replicas share out. */
  async keys(): Promise<string[]> {
    const out: string[] = [];
    for await (const k of await this.defs.keys()) out.push(k);
    return out;
  }

  /** The names of a project's streams, sorted (from the keys alone). */
  async list(user: string, pid: string): Promise<string[]> {
    const prefix = `${nameToken(user)}.${nameToken(pid)}.`;
    const names: string[] = [];
    for await (const k of await this.defs.keys(`${prefix}*`)) names.push(tokenToName(k.slice(prefix.length)));
    return names.sort();
  }

  /** How many streams a customer has. */
  async count(user: string): Promise<number> {
    let n = 0;
    for await (const _k of await this.defs.keys(`${nameToken(user)}.*.*`)) n++;
    return n;
  }

  async getStatus(key: string): Promise<sml.v1.StreamStatus | undefined> {
    const e = await this.status.get(key);
    return e && e.operation === 'PUT' ? sml.v1.StreamStatus.decode(e.value) : undefined;
  }

  async putStatus(key: string, status: sml.v1.IStreamStatus): Promise<void> {
    await this.status.put(key, sml.v1.StreamStatus.encode(status).finish());
  }
}

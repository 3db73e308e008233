import type { KV, NatsConnection } from 'nats';
import { isKeyExists, kvBucket } from '@sml/bus';
import { nameToken, smlError, tokenToName } from '@sml/core';
import { sml } from '@sml/proto';

/** A record and the KV revision it was read at (an update names it, so a concurrent write is never lost). */
export interface StoredEncoder {
  record: sml.v1.EncoderRecord;
  revision: number;
}

/**
 * Encoders in KV bucket sml_encoders under `<customer token>.<encoder token>` (names are
 * encoded, never raw keys): a customer can address only its own encoders.
 */
export class EncoderStore {
  private constructor(private readonly kv: KV) {}

  static async open(nc: NatsConnection): Promise<EncoderStore> {
    return new EncoderStore(await kvBucket(nc, 'sml_encoders'));
  }

  static key(user: string, name: string): string {
    return `${nameToken(user)}.${nameToken(name)}`;
  }

  async get(user: string, name: string): Promise<StoredEncoder | undefined> {
    const e = await this.kv.get(EncoderStore.key(user, name));
    return e && e.operation === 'PUT' ? { record: sml.v1.EncoderRecord.decode(e.value), revision: e.revision } : undefined;
  }

  /** Stores a new encoder; 409 when the customer already has one of that name. */
  async create(user: string, record: sml.v1.IEncoderRecord): Promise<number> {
    try {
      return await this.kv.create(EncoderStore.key(user, record.name!), sml.v1.EncoderRecord.encode(record).finish());
    } catch (err) {
      if (isKeyExists(err)) throw smlError('ENCODER_EXISTS', { user, encoder: record.name });
      throw err;
    }
  }

  /** Replaces the record read at `revision`; throws (isKeyExists) when it changed since. */
  update(user: string, record: sml.v1.IEncoderRecord, revision: number, bytes = sml.v1.EncoderRecord.encode(record).finish()): Promise<number> {
    return this.kv.update(EncoderStore.key(user, record.name!), bytes, revision);
  }

  async delete(user: string, name: string): Promise<void> {
    await this.kv.delete(EncoderStore.key(user, name));
  }

  /** The customer's encoder names, sorted (from the keys alone). */
  async list(user: string): Promise<string[]> {
    const prefix = `${nameToken(user)}.`;
    const names: string[] = [];
    for await (const k of await this.kv.keys(`${prefix}*`)) names.push(tokenToName(k.slice(prefix.length)));
    return names.sort();
  }
}

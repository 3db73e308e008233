import { createHash } from 'node:crypto';
import { StorageType, type KV, type NatsConnection } from 'nats';
import { kvBucket } from '@sml/bus';
import { clip, smlError } from '@sml/core';
import { sml } from '@sml/proto';
import type { IdempotencyKeys } from '../ports';
import { ProjectStore } from '../store/store';

/** How long an Idempotency-Key is remembered: the log stream's duplicate window. */
export const IDEMPOTENCY_WINDOW_MS = 2 * 60_000;

/** Where an Idempotency-Key is remembered, and the fingerprint of the batch it carried. */
export interface IdempotencyRecord {
  /** The KV key: customer, project and a hash of the Idempotency-Key (KV keys have a restricted alphabet). */
  name: string;
  /** SHA-256 of the log entry: operation and encoded frame. */
  fingerprint: string;
}

export function idempotencyRecord(user: string, pid: string, idempotencyKey: string, entry: sml.v1.IProjectLogEntry): IdempotencyRecord {
  return {
    name: `${ProjectStore.key(user, pid)}.${createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 32)}`,
    fingerprint: createHash('sha256').update(sml.v1.ProjectLogEntry.encode(entry).finish()).digest('hex'),
  };
}

/**
 * The JetStream message id of a keyed batch in the log: it names key and content, so the
 * stream's own de-duplication can never drop a different batch under a reused key.
 */
export function messageId(record: IdempotencyRecord): string {
  return `${record.name}.${record.fingerprint}`;
}

/** The record a message id was made from (undefined for an id not made by messageId). */
export function splitMessageId(msgId: string): IdempotencyRecord | undefined {
  const dot = msgId.lastIndexOf('.');
  if (dot <= 0 || !/^[0-9a-f]{64}$/.test(msgId.slice(dot + 1))) return undefined;
  return { name: msgId.slice(0, dot), fingerprint: msgId.slice(dot + 1) };
}

/**
 * Whether a batch is the retry of one already logged under its Idempotency-Key (`stored`:
 * the fingerprint the key first carried, if it is still remembered): then it is answered as
 * the first time and learns nothing. The same key with another batch is refused (422).
 */
export function isRetry(stored: string | undefined, record: IdempotencyRecord, idempotencyKey: string): boolean {
  if (stored === undefined) return false;
  if (stored !== record.fingerprint) throw smlError('IDEMPOTENCY_KEY_REUSED', { key: clip(idempotencyKey) });
  return true;
}

/** Idempotency-Key records in KV `sml_idempotency`, each forgotten after the window (the bucket's TTL). */
export class KvIdempotencyKeys implements IdempotencyKeys {
  private constructor(private readonly kv: KV) {}

  static async open(nc: NatsConnection): Promise<KvIdempotencyKeys> {
    return new KvIdempotencyKeys(await kvBucket(nc, 'sml_idempotency', { ttl: IDEMPOTENCY_WINDOW_MS, storage: StorageType.File }));
  }

  async get(name: string): Promise<string | undefined> {
    const e = await this.kv.get(name);
    return e?.operation === 'PUT' ? e.string() : undefined;
  }

  async put(name: string, fingerprint: string): Promise<void> {
    await this.kv.put(name, fingerprint);
  }
}

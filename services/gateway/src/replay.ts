import { createHash } from 'node:crypto';
import { StorageType, type KV, type NatsConnection } from 'nats';
import { isKeyExists, kvBucket } from '@sml/bus';

/**
 * Signatures seen within the authentication window (API.md §2 [ours]). A signature covers
 * the date with nanoseconds, so an honest client never repeats one; a repeat is a replay.
 * Shared by every gateway replica through a KV bucket whose entries expire with the window:
 * `create` is atomic on the server, so a signature is accepted once, whichever replica
 * sees it first.
 */
export class ReplayCache {
  private constructor(private readonly kv: KV) {}

  static async open(nc: NatsConnection, windowMs: number): Promise<ReplayCache> {
    // Memory storage: nothing to write to disk per request; after a NATS restart the cache
    // starts empty, which only matters for a replay within the same few minutes.
    return new ReplayCache(await kvBucket(nc, 'sml_replay', { ttl: windowMs, storage: StorageType.Memory }));
  }

  /** Records the signature; false when it was already seen within the window. */
  async remember(signature: string): Promise<boolean> {
    // KV keys allow a restricted alphabet: the hex SHA-256 of the signature stands for it.
    const key = createHash('sha256').update(signature).digest('hex');
    try {
      await this.kv.create(key, new Uint8Array(0));
      return true;
    } catch (err) {
      if (isKeyExists(err)) return false;
      throw err;
    }
  }
}

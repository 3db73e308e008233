import { randomBytes } from 'node:crypto';
import type { KV, NatsConnection, ObjectStore } from 'nats';
import { isKeyExists, kvBucket, objectStore } from '@sml/bus';
import { nameToken, smlError, tokenToName } from '@sml/core';
import { sml } from '@sml/proto';

/** A record, the KV revision it was read at (an update names it, so a concurrent write is never lost) and its statistics. */
export interface StoredEncoder {
  record: sml.v1.EncoderRecord;
  revision: number;
}

/** An object younger than this may belong to a write still between its object and its record: the sweep leaves it. */
const ORPHAN_AGE_MS = 10 * 60 * 1000;

/**
 * Encoders in KV bucket sml_encoders under `<customer token>.<encoder token>` (names are
 * encoded, never raw keys): a customer can address only its own encoders. The record is
 * small (options, projects, pointers); the statistics, whose size SML_MAX_ENCODER_VALUES
 * bounds rather than the NATS message size, are objects of sml_encoder_stats: a whole
 * version (statsObject) and the deltas written since (deltaObjects). A write puts a new
 * object, then names it in the record with a revision-checked update, then (a whole
 * version) deletes the objects it replaced: a crash between the steps leaves the record at
 * a complete version, and at most orphan objects that `sweep` removes.
 */
export class EncoderStore {
  private constructor(private readonly kv: KV, private readonly objects: ObjectStore) {}

  static async open(nc: NatsConnection): Promise<EncoderStore> {
    return new EncoderStore(await kvBucket(nc, 'sml_encoders'), await objectStore(nc, 'sml_encoder_stats'));
  }

  static key(user: string, name: string): string {
    return `${nameToken(user)}.${nameToken(name)}`;
  }

  async get(user: string, name: string): Promise<StoredEncoder | undefined> {
    const e = await this.kv.get(EncoderStore.key(user, name));
    return e && e.operation === 'PUT' ? { record: sml.v1.EncoderRecord.decode(e.value), revision: e.revision } : undefined;
  }

  /**
   * The record's statistics (Encoder.serialize): its whole version (its object, or the inline
   * state of a record from before the object store), then its deltas in order. Undefined when
   * an object is gone: a write made since replaced it (read the record again).
   */
  async state(record: sml.v1.IEncoderRecord): Promise<Uint8Array[] | undefined> {
    const names = [record.statsObject ?? '', ...(record.deltaObjects ?? [])];
    const parts: Uint8Array[] = [];
    for (const name of names) {
      const bytes = name === '' ? record.state ?? new Uint8Array() : await this.objects.getBlob(name);
      if (!bytes) return undefined;
      parts.push(bytes);
    }
    return parts;
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

  /** Replaces the record read at `revision` (statistics unchanged); throws (isKeyExists) when it changed since. */
  update(user: string, record: sml.v1.IEncoderRecord, revision: number): Promise<number> {
    return this.kv.update(EncoderStore.key(user, record.name!), sml.v1.EncoderRecord.encode(record).finish(), revision);
  }

  /**
   * Replaces the record read at `revision` and its statistics by `state` (a whole version, or
   * with `delta` what is to be merged into the current statistics, holding `deltaValues`
   * values); throws (isKeyExists) when the record changed since, leaving it and its
   * statistics as they were.
   */
  async write(user: string, record: sml.v1.IEncoderRecord, revision: number, state: Uint8Array, valueCount: number, delta?: { values: number }): Promise<{ record: sml.v1.IEncoderRecord; revision: number }> {
    const key = EncoderStore.key(user, record.name!);
    const generation = Number(record.generation ?? 0) + 1;
    // The nonce keeps two replicas writing the same generation from sharing an object.
    const name = `${key}.${generation}.${randomBytes(6).toString('hex')}`;
    await this.objects.putBlob({ name }, state);
    const next = delta
      ? { ...record, generation, valueCount, deltaObjects: [...(record.deltaObjects ?? []), name], deltaValues: Number(record.deltaValues ?? 0) + delta.values }
      : { ...record, state: new Uint8Array(), statsObject: name, generation, valueCount, deltaObjects: [], deltaValues: 0 };
    let written: number;
    try {
      written = await this.kv.update(key, sml.v1.EncoderRecord.encode(next).finish(), revision);
    } catch (err) {
      // Only a refused update surely left the record as it was; after any other failure (a
      // timeout) the record may name the new object, so the sweep decides later.
      if (isKeyExists(err)) await this.objects.delete(name).catch(() => undefined);
      throw err;
    }
    if (!delta) {
      for (const old of [record.statsObject ?? '', ...(record.deltaObjects ?? [])]) if (old) await this.objects.delete(old).catch(() => undefined);
    }
    return { record: next, revision: written };
  }

  /** Deletes the record, then every statistics object of the encoder. */
  async delete(user: string, name: string): Promise<void> {
    await this.kv.delete(EncoderStore.key(user, name));
    await this.deleteObjects(`${EncoderStore.key(user, name)}.`, () => true);
  }

  /** Deletes every encoder of a customer and their statistics; returns how many there were. */
  async purge(user: string): Promise<number> {
    const names = await this.list(user);
    for (const name of names) await this.kv.delete(EncoderStore.key(user, name));
    await this.deleteObjects(`${nameToken(user)}.`, () => true);
    return names.length;
  }

  /**
   * Removes statistics objects no record points at (a write that stopped between its
   * object and its record, a delete that stopped halfway), once older than ORPHAN_AGE_MS.
   */
  async sweep(now = Date.now()): Promise<number> {
    const live = new Set<string>();
    for await (const k of await this.kv.keys()) {
      const e = await this.kv.get(k);
      if (!e || e.operation !== 'PUT') continue;
      const record = sml.v1.EncoderRecord.decode(e.value);
      for (const name of [record.statsObject, ...record.deltaObjects]) live.add(name);
    }
    return this.deleteObjects('', (name, mtime) => !live.has(name) && now - mtime > ORPHAN_AGE_MS);
  }

  private async deleteObjects(prefix: string, doomed: (name: string, mtime: number) => boolean): Promise<number> {
    let deleted = 0;
    for (const info of await this.objects.list()) {
      if (info.deleted || !info.name.startsWith(prefix) || !doomed(info.name, Date.parse(info.mtime))) continue;
      await this.objects.delete(info.name);
      deleted++;
    }
    return deleted;
  }

  /** The customer's encoder names, sorted (from the keys alone). */
  async list(user: string): Promise<string[]> {
    const prefix = `${nameToken(user)}.`;
    const names: string[] = [];
    for await (const k of await this.kv.keys(`${prefix}*`)) names.push(tokenToName(k.slice(prefix.length)));
    return names.sort();
  }
}

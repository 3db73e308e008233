import { randomUUID } from 'node:crypto';
import { headers as natsHeaders, type MsgHdrs, type NatsConnection, type ObjectStore } from 'nats';
import { SPILL_HEADER } from './headers';
import { objectStore } from './jetstream';

const BUCKET = 'sml_bus_spill';
/** Room left in a message for headers and framing. */
const HEADROOM = 64 * 1024;

/**
 * Payloads larger than the server's max_payload travel through a JetStream object store,
 * which splits them into ordered chunks; the message itself carries only the entry's name.
 * Entries expire after 15 minutes so an abandoned request cannot leak storage.
 */
export class Spill {
  private store?: Promise<ObjectStore>;
  constructor(private readonly nc: NatsConnection) {}

  private bucket(): Promise<ObjectStore> {
    // A failed open (NATS down) is not kept: the next large payload tries again.
    this.store ??= objectStore(this.nc, BUCKET, { ttl: 15 * 60 * 1e9 }).catch((err) => {
      this.store = undefined;
      throw err;
    });
    return this.store;
  }

  get limit(): number {
    return Math.max(1024, (this.nc.info?.max_payload ?? 1024 * 1024) - HEADROOM);
  }

  /** Returns what to publish: the bytes themselves, or an empty body plus a spill header. */
  async pack(data: Uint8Array, h: MsgHdrs = natsHeaders()): Promise<{ data: Uint8Array; headers: MsgHdrs }> {
    if (data.length <= this.limit) return { data, headers: h };
    const name = randomUUID();
    await (await this.bucket()).putBlob({ name }, data);
    h.set(SPILL_HEADER, name);
    return { data: new Uint8Array(0), headers: h };
  }

  /** The payload of a received message, fetched (and removed) from the store when spilled. */
  async unpack(msg: { data: Uint8Array; headers?: MsgHdrs }): Promise<Uint8Array> {
    const name = msg.headers?.get(SPILL_HEADER);
    if (!name) return msg.data;
    const os = await this.bucket();
    const data = await os.getBlob(name);
    if (!data) throw new Error(`spilled payload ${name} is missing`);
    await os.delete(name);
    return data;
  }
}

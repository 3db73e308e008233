import { AckPolicy, connect, DeliverPolicy, nkeyAuthenticator, type ConnectionOptions, type JsMsg, type NatsConnection } from 'nats';
import { smlError, SmlError, type Logger } from '@sml/core';
import type { sml } from '@sml/proto';
import { natsServers, privateAllowed, shown } from './guard';
import { chunks, type BatchLimits, type SourceBatch, type StreamSource } from './source';

/** The NATS settings of a DSInfo (API.md §9). */
export interface NatsSettings {
  servers: string[];
  subject: string;
  /** The JetStream durable consumer of this stream incarnation. */
  durable: string;
  auth: Pick<ConnectionOptions, 'user' | 'pass' | 'token' | 'authenticator'>;
}

export function natsSettings(ds: sml.v1.IDsInfo, instance: string): NatsSettings {
  const info = ds.info ?? {};
  const bad = (detail: string) => smlError('STREAM_INVALID', { stream: ds.name ?? '-', detail });
  const servers = (info.nats_hosts ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (servers.length === 0) throw bad('info nats_hosts (comma-separated URLs) is required');
  const subject = (info['nats.subject'] ?? info.path ?? '').trim();
  if (!subject) throw bad('info nats.subject is required');
  const auth: NatsSettings['auth'] = {};
  if (info.nats_sec_user) Object.assign(auth, { user: info.nats_sec_user, pass: info.nats_sec_passwd ?? '' });
  if (info.nats_sec_token) auth.token = info.nats_sec_token;
  if (info.nats_sec_nkey_seed) auth.authenticator = nkeyAuthenticator(new TextEncoder().encode(info.nats_sec_nkey_seed));
  return { servers, subject, durable: `sml_stream_${instance}`, auth };
}

/**
 * A connection to the customer's NATS. Without SML_SOURCES_ALLOW_PRIVATE nats.js dials only the
 * IP literals the SSRF guard resolved and checked (natsServers, guard.ts; 400 for a refused
 * or unresolvable server) and not the servers the cluster advertises. A failure to connect
 * reads only `cannot connect to <nats_hosts as given>`: nats.js' reasons (Authorization
 * Violation, TIMEOUT, CONNECTION_REFUSED) would tell a customer what listens where.
 */
export async function openNats(s: Pick<NatsSettings, 'servers' | 'auth'>, opts: { stream?: string; reconnect?: boolean } = {}): Promise<NatsConnection> {
  const servers = await natsServers(opts.stream ?? '-', s.servers);
  try {
    return await connect({
      servers, name: 'sml-streams', timeout: 5_000, ignoreClusterUpdates: !privateAllowed(),
      ...(opts.reconnect === false ? { reconnect: false } : { maxReconnectAttempts: -1, reconnectTimeWait: 1_000 }), ...s.auth,
    });
  } catch (err) {
    throw new Error(`cannot connect to ${s.servers.map(shown).join(', ')}`, { cause: err });
  }
}

/**
 * Unacknowledged messages the consumer may have out: room for a whole fetch (and the next).
 * JetStream's default (1000) capped every fetch at 1000 messages, since acks go out only after
 * the learn: ~1000 records/s with the 1 s fetch (bench/RESULTS.md "streams").
 */
function maxAckPending(limits: BatchLimits): number {
  return 2 * limits.records;
}

/**
 * Checks, when a stream is created, that a JetStream stream holds the subject (500 otherwise),
 * and creates the durable consumer: delivering from the first message (fromBeginning) or from
 * the messages published after the create.
 */
export async function prepareNats(s: NatsSettings, fromBeginning: boolean, stream = '-'): Promise<void> {
  let nc: NatsConnection | undefined;
  try {
    nc = await openNats(s, { stream, reconnect: false });
    const jsm = await nc.jetstreamManager();
    const jsStream = await jsm.streams.find(s.subject);
    await jsm.consumers.add(jsStream, {
      durable_name: s.durable, filter_subject: s.subject, ack_policy: AckPolicy.All,
      deliver_policy: fromBeginning ? DeliverPolicy.All : DeliverPolicy.New,
    });
  } catch (err) {
    // The guard's 400 as it is.
    if (err instanceof SmlError) throw err;
    throw smlError('GENERIC_EXCEPTION', { detail: `Cannot build the NATS consumer of subject [${s.subject}]: ${(err as Error).message}` }, err);
  } finally {
    await nc?.close().catch(() => undefined);
  }
}

/** Deletes the stream's durable consumer; best effort. */
export async function dropNats(s: NatsSettings, log: Logger): Promise<void> {
  let nc: NatsConnection | undefined;
  try {
    nc = await openNats(s, { reconnect: false });
    const jsm = await nc.jetstreamManager();
    await jsm.consumers.delete(await jsm.streams.find(s.subject), s.durable);
  } catch (err) {
    log.debug({ err, durable: s.durable }, 'nats durable consumer not deleted');
  } finally {
    await nc?.close().catch(() => undefined);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A pull consumer on the stream's JetStream durable (ack policy "all"): a batch is fetched,
 * learned, then its last message acknowledged, which acknowledges the batch. On start the
 * durable is re-created at its acknowledgement floor, so that messages a previous run had
 * fetched but not acknowledged come again first and in order (JetStream would otherwise
 * redeliver them only after ack_wait, behind newer ones).
 */
export class NatsSource implements StreamSource {
  private nc?: NatsConnection;
  private stopped = false;

  constructor(private readonly s: NatsSettings, private readonly limits: BatchLimits, private readonly log: Logger) {}

  async run(handle: (batch: SourceBatch) => Promise<void>, onError: (err: Error) => void): Promise<void> {
    const nc = await openNats(this.s);
    this.nc = nc;
    const jsm = await nc.jetstreamManager();
    const stream = await jsm.streams.find(this.s.subject);
    const info = await jsm.consumers.info(stream, this.s.durable).catch(() => undefined);
    const floor = info ? info.ack_floor.stream_seq : 0;
    if (info) await jsm.consumers.delete(stream, this.s.durable);
    await jsm.consumers.add(stream, {
      durable_name: this.s.durable, filter_subject: this.s.subject, ack_policy: AckPolicy.All, max_ack_pending: maxAckPending(this.limits),
      ...(info ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: floor + 1 } : { deliver_policy: DeliverPolicy.All }),
    });
    const consumer = await nc.jetstream().consumers.get(stream, this.s.durable);
    // Every message a fetch delivers is handed on (acknowledging a later one acknowledges it
    // too), so a fetch asks only for what it will take: nats.js takes records or bytes, not
    // both, and chunks() bounds the bytes of each learn.
    const fetchAll = async (max: number): Promise<JsMsg[]> => {
      const out: JsMsg[] = [];
      for await (const m of await consumer.fetch({ max_messages: max, expires: 1_000 })) out.push(m);
      return out;
    };
    const pending = async () => (await consumer.info()).num_pending;
    while (!this.stopped) {
      let fetched: JsMsg[] = [];
      try {
        // A batch is what is waiting, up to `records`. With nothing waiting: the next message
        // (a fetch waits up to 1 s, nats.js' least `expires`), then what came within `waitMs`
        // of it. A fetch of n ≤ num_pending messages answers at once: waiting for a fetch of
        // `records` to fill held a stream to one batch a second at moderate rates.
        let waiting = await pending();
        if (waiting === 0) {
          fetched = await fetchAll(1);
          if (fetched.length === 0) continue;
          for (const until = Date.now() + this.limits.waitMs; Date.now() < until && !this.stopped; await sleep(Math.min(20, this.limits.waitMs))) {
            if ((waiting = await pending()) + 1 >= this.limits.records) break;
          }
          waiting = await pending();
        }
        const want = Math.min(waiting, this.limits.records - fetched.length);
        if (want > 0) fetched.push(...await fetchAll(want));
      } catch (err) {
        if (this.stopped) break;
        onError(err as Error);
        // What was fetched is handed on all the same (a later acknowledgement would cover it).
        if (fetched.length === 0) {
          await sleep(1_000);
          continue;
        }
      }
      const bySeq = new Map(fetched.map((m) => [m.seq, m]));
      for (const part of chunks(fetched.map((m) => ({ offset: m.seq, value: Buffer.from(m.data) })), this.limits)) {
        const last = bySeq.get(part[part.length - 1].offset)!;
        await handle({ partition: stream, records: part, lag: last.info.pending });
        // Ack policy "all": acknowledges every message of the batch, now that the project has it.
        await last.ackAck();
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.nc?.close().catch(() => undefined);
  }
}

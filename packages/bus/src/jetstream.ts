import {
  AckPolicy, DeliverPolicy, RetentionPolicy, StorageType,
  type JsMsg, type KV, type KvEntry, type KvOptions, type KvWatchOptions, type NatsConnection, type ObjectStore,
  type ObjectStoreOptions, type QueuedIterator,
} from 'nats';
import { smlError, type Logger } from '@sml/core';
import { BusHealth } from './health';
import { JS_ERR, jsErrorCode } from './js-errors';
import { useNativeObjectDigest } from './object-digest';

// Every resource ensured here is registered with the connection's BusHealth: ensured again
// after a reconnect (a nats-server restart loses memory-storage streams) and checked by /readyz.
// Each is created with the connection's replica count (SML_JETSTREAM_REPLICAS, set by
// connectBus; 1 when unset), and an existing one with another count is moved to it.

const replicasOf = new WeakMap<NatsConnection, number>();

/** Sets how many copies (servers of a NATS cluster) every stream, KV bucket and object store `nc` ensures keeps. */
export function setJetStreamReplicas(nc: NatsConnection, replicas: number): void {
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > 5) throw new Error(`JetStream replicas must be 1 to 5, not ${replicas}`);
  replicasOf.set(nc, replicas);
}

/** The replica count of the streams, KV buckets and object stores `nc` ensures (1 unless set). */
export function jetStreamReplicas(nc: NatsConnection): number {
  return replicasOf.get(nc) ?? 1;
}

/**
 * Moves an existing stream to `replicas` copies when it has another count (a deployment
 * that raised SML_JETSTREAM_REPLICAS after its buckets were created). nats-server refuses
 * more replicas than it has servers: that error stops the ensure, naming the stream.
 */
async function scaleStream(nc: NatsConnection, stream: string, replicas: number): Promise<void> {
  const jsm = await nc.jetstreamManager();
  const info = await jsm.streams.info(stream);
  if ((info.config.num_replicas || 1) === replicas) return;
  try {
    await jsm.streams.update(stream, { ...info.config, num_replicas: replicas });
  } catch (err) {
    throw new Error(`cannot move JetStream stream ${stream} from ${info.config.num_replicas} to ${replicas} replicas (SML_JETSTREAM_REPLICAS): ${(err as Error).message}`, { cause: err });
  }
}

/** A KV bucket (created on first use) with file storage and one value per key. */
export function kvBucket(nc: NatsConnection, name: string, opts: Partial<KvOptions> = {}): Promise<KV> {
  const replicas = jetStreamReplicas(nc);
  return BusHealth.of(nc).track(`kv:${name}`, `kv ${name}`, async () => {
    // nats.js writes into the options it is given: a fresh object per call.
    const kv = await nc.jetstream().views.kv(name, { history: 1, storage: StorageType.File, replicas, ...opts });
    await scaleStream(nc, `KV_${name}`, opts.replicas ?? replicas);
    return kv;
  }, async () => (await nc.jetstreamManager()).streams.info(`KV_${name}`));
}

export function objectStore(nc: NatsConnection, name: string, opts: Partial<ObjectStoreOptions> = {}): Promise<ObjectStore> {
  useNativeObjectDigest();
  const replicas = jetStreamReplicas(nc);
  return BusHealth.of(nc).track(`os:${name}`, `objects ${name}`, async () => {
    const os = await nc.jetstream().views.os(name, { storage: StorageType.File, replicas, ...opts });
    await scaleStream(nc, `OBJ_${name}`, opts.replicas ?? replicas);
    return os;
  }, async () => (await nc.jetstreamManager()).streams.info(`OBJ_${name}`));
}

/** Creates the stream, or updates its subjects and replica count when it exists. */
export function ensureStream(nc: NatsConnection, cfg: { name: string; subjects: string[]; maxAgeMs?: number }): Promise<void> {
  const replicas = jetStreamReplicas(nc);
  return BusHealth.of(nc).track(`stream:${cfg.name}`, `stream ${cfg.name}`, async () => {
    const jsm = await nc.jetstreamManager();
    const config = {
      name: cfg.name,
      subjects: cfg.subjects,
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      max_age: cfg.maxAgeMs ? cfg.maxAgeMs * 1e6 : 0,
      num_replicas: replicas,
    };
    let info;
    try {
      info = await jsm.streams.info(cfg.name);
    } catch (err) {
      if (jsErrorCode(err) !== JS_ERR.STREAM_NOT_FOUND) throw err;
      await jsm.streams.add(config);
      return;
    }
    if (info.config.subjects.join() !== cfg.subjects.join()) await jsm.streams.update(cfg.name, { ...info.config, subjects: cfg.subjects });
    await scaleStream(nc, cfg.name, replicas);
  }, async () => (await nc.jetstreamManager()).streams.info(cfg.name));
}

/**
 * Follows a KV bucket with a watch that outlives nats-server restarts: the watch's consumer
 * lives on the server only, so once the resources are ensured again after a reconnect the
 * watch is started again — `onReset` first, since updates made meanwhile were not seen (a
 * cache clears itself; a full watch re-delivers every key's latest value anyway).
 */
export async function followKv(
  nc: NatsConnection,
  kv: KV,
  opts: KvWatchOptions,
  handle: (e: KvEntry) => void,
  cfg: { onReset?: () => void; log?: Logger } = {},
): Promise<{ stop(): void }> {
  let watch: QueuedIterator<KvEntry> | undefined;
  let generation = 0;
  const start = async (o: KvWatchOptions, mine: number) => {
    const w = await kv.watch(o);
    if (mine !== generation) return w.stop(); // a newer reset, or stop(), came meanwhile
    watch = w;
    void (async () => {
      for await (const e of w) handle(e);
    })();
  };
  await start({ ...opts }, generation);
  const off = BusHealth.of(nc).onEnsured(() => {
    const mine = ++generation;
    watch?.stop();
    watch = undefined;
    cfg.onReset?.();
    void (async () => {
      // Until it works or a newer reset (or stop) takes over.
      for (let delay = 250; mine === generation && !nc.isClosed(); delay = Math.min(delay * 2, 2000)) {
        try {
          await start({ ...opts, initializedFn: undefined }, mine);
          return;
        } catch (err) {
          cfg.log?.warn({ err }, 'could not watch a KV bucket again; retrying');
          await new Promise((r) => setTimeout(r, delay));
        }
      }
    })();
  });
  return {
    stop() {
      generation++;
      off();
      watch?.stop();
    },
  };
}

/**
 * Processes a stream through a durable consumer with explicit acks, one message at a time
 * (max_ack_pending 1) so events are folded in stream order even with several replicas.
 * A message is acked only after `handle` resolves; a crash before that redelivers it, so
 * `handle` must be idempotent (it receives the stream sequence to make that easy).
 */
export async function consumeDurable(
  nc: NatsConnection,
  cfg: { stream: string; durable: string; filterSubject?: string; log: Logger },
  handle: (msg: JsMsg) => Promise<void>,
): Promise<{ stop(): Promise<void> }> {
  const jsm = await nc.jetstreamManager();
  const config = {
    durable_name: cfg.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    max_ack_pending: 1,
    // A message delivered to a replica that died is redelivered after ack_wait; with
    // max_ack_pending 1 nothing else moves meanwhile, so keep it short (handlers take ms).
    ack_wait: 3e9,
    ...(cfg.filterSubject ? { filter_subject: cfg.filterSubject } : {}),
  };
  // add() updates the durable when it exists with other settings.
  await BusHealth.of(nc).track(`consumer:${cfg.stream}/${cfg.durable}`, `consumer ${cfg.stream}/${cfg.durable}`,
    () => jsm.consumers.add(cfg.stream, config).catch(() => jsm.consumers.update(cfg.stream, cfg.durable, config)),
    () => jsm.consumers.info(cfg.stream, cfg.durable));
  const consumer = await nc.jetstream().consumers.get(cfg.stream, cfg.durable);
  // One message per pull, acked (and confirmed) before the next: with max_ack_pending 1 a
  // batched pull stalls on nats-server 2.9 until the pull expires.
  let running = true;
  const done = (async () => {
    while (running) {
      let m: JsMsg | null;
      try {
        m = await consumer.next({ expires: 1000 });
      } catch (err) {
        if (!running || nc.isClosed()) break;
        cfg.log.warn({ err }, 'event pull failed; retrying');
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      if (!m) continue;
      try {
        await handle(m);
        await m.ackAck();
      } catch (err) {
        cfg.log.error({ err, seq: m.seq, subject: m.subject }, 'event handling failed; will be redelivered');
        m.nak(1000);
      }
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
    },
  };
}

/**
 * `next()` of a JetStream delivery (an object store read, a consumer's messages) that fails
 * with a retryable 503 when nothing arrives for `stallMs`. nats.js waits forever when the
 * ordered consumer behind such a read was lost with a server of a NATS cluster and could not
 * be recreated: a read under a lock (a project's load) must not hold it that long.
 */
export async function nextWithin<T>(next: () => Promise<T>, stallMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(smlError('NATS_UNAVAILABLE', { cause: `${what} delivered nothing for ${stallMs / 1000} s` })), stallMs);
  });
  try {
    return await Promise.race([next(), stalled]);
  } finally {
    clearTimeout(timer);
  }
}

import { randomUUID } from 'node:crypto';
import type { Consumer } from 'kafkajs';
import type { KV } from 'nats';
import { isKeyExists } from '@sml/bus';
import { nameToken, smlError, SmlError, type Logger } from '@sml/core';
import { sml } from '@sml/proto';
import { sampleFrame } from './frame';
import { kafkaClient, kafkaFailureText, kafkaSettings, oneMember, startsEarliest, topicOffsets, type KafkaSettings } from './kafka-source';

/**
 * Bounds of the Kafka pollers (POST /{user}/streams/poll, API.md §9), per replica of the
 * streams service (README "Pollers").
 */
export interface PollLimits {
  /** Pollers one customer keeps: a new one evicts that customer's least recently used. */
  perCustomer: number;
  /** Pollers this replica keeps, all customers: beyond, 503 STREAM_POLLERS_BUSY. */
  total: number;
  /** A poller not polled for this long is closed (2 minutes). */
  idleMs: number;
  /** Records (and bytes of record values) one poll answers at most. */
  maxRecords: number;
  maxBytes: number;
  /** Records a poller reads ahead of its polls at most (then it pauses its topic). */
  bufferRecords: number;
  /** How long a poll with nothing read yet waits for records; the first poll of a poller waits for its group join and first fetch, at most firstWaitMs. */
  waitMs: number;
  firstWaitMs: number;
  maxRecordBytes: number;
}

export const POLL_LIMITS: PollLimits = {
  perCustomer: 8, total: 256, idleMs: 120_000, maxRecords: 500, maxBytes: 4 * 1024 * 1024, bufferRecords: 2_000, waitMs: 1_000, firstWaitMs: 15_000,
  maxRecordBytes: 1024 * 1024,
};

/** partition → offset of the next record a poll answers. */
type Positions = Map<number, number>;

/**
 * One Kafka poller: a kafkajs consumer in its own group (nothing committed) that starts at the
 * positions it is given (seek) and reads ahead into a bounded queue that each poll takes the
 * next records from. `revision` is the KV revision of the positions its queue continues.
 */
class KafkaPoller {
  lastUsed = Date.now();
  revision?: number;
  private consumer?: Consumer;
  private queue: { partition: number; offset: number; value: Buffer | null }[] = [];
  private queueBytes = 0;
  /** Where each partition's next queued record must start: a fetch from before a seek took effect is passed over. */
  private readonly expected: Positions;
  private paused = false;
  private fetches = 0;
  private polled = false;
  private failure?: Error;
  private wake?: () => void;

  constructor(readonly user: string, readonly name: string, readonly s: KafkaSettings, readonly next: Positions, private readonly limits: PollLimits, private readonly log: Logger) {
    this.expected = new Map(next);
  }

  async start(): Promise<void> {
    const consumer = kafkaClient(this.s, this.log).consumer({
      groupId: this.s.groupId, partitionAssigners: [oneMember(this.s.partitions)],
      sessionTimeout: 10_000, heartbeatInterval: 1_000, maxWaitTimeInMs: 500, maxBytes: this.limits.maxBytes,
      retry: { retries: 5, initialRetryTime: 300 },
    });
    this.consumer = consumer;
    consumer.on(consumer.events.FETCH, () => {
      this.fetches++;
      this.wake?.();
    });
    consumer.on(consumer.events.CRASH, (e) => {
      if (!e.payload.restart) {
        this.failure = e.payload.error;
        this.wake?.();
      }
    });
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: [this.s.topic], fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        eachBatch: async (payload) => {
          const { batch } = payload;
          for (const m of batch.messages) {
            if (!payload.isRunning() || payload.isStale()) break;
            const offset = Number(m.offset);
            if (offset < (this.expected.get(batch.partition) ?? 0)) {
              payload.resolveOffset(m.offset);
              continue;
            }
            if (this.queue.length >= this.limits.bufferRecords || this.queueBytes >= this.limits.maxBytes * 2) {
              // Read ahead far enough: the topic waits for the polls (kafkajs fetches from the first unresolved offset on resume).
              consumer.pause([{ topic: batch.topic }]);
              this.paused = true;
              break;
            }
            this.queue.push({ partition: batch.partition, offset, value: m.value });
            this.queueBytes += m.value?.length ?? 0;
            this.expected.set(batch.partition, offset + 1);
            payload.resolveOffset(m.offset);
          }
          this.wake?.();
          await payload.heartbeat();
        },
      });
      // Applied by kafkajs before the first fetch of each partition once the group is joined.
      for (const [partition, offset] of this.next) consumer.seek({ topic: this.s.topic, partition, offset: String(offset) });
    } catch (err) {
      await this.stop();
      if (err instanceof SmlError) throw err;
      throw smlError('GENERIC_EXCEPTION', { detail: `Cannot build the Kafka consumer of topic [${this.s.topic}]: ${kafkaFailureText(err, this.s.brokers)}` }, err);
    }
  }

  /**
   * The next records as a DataFrame, and the positions after them (`next` is updated; the
   * caller serializes the polls of one poller).
   */
  async take(ds: sml.v1.IDsInfo): Promise<sml.v1.IDataFrame> {
    this.lastUsed = Date.now();
    if (this.queue.length === 0) {
      // First poll: until the group has joined and a fetch was handled (the second fetch starts
      // only once the first one's batches went through eachBatch); later: a short wait.
      const first = !this.polled;
      const since = this.fetches;
      await this.until(() => this.queue.length > 0 || this.failure !== undefined || (first ? this.fetches >= 2 : this.fetches >= since + 2), first ? this.limits.firstWaitMs : this.limits.waitMs);
    }
    this.polled = true;
    if (this.queue.length === 0 && this.failure) throw smlError('GENERIC_EXCEPTION', { detail: `Kafka poller [${this.name}] failed: ${kafkaFailureText(this.failure, this.s.brokers)}` }, this.failure);
    const out: (Buffer | null)[] = [];
    let bytes = 0;
    while (this.queue.length > 0 && out.length < this.limits.maxRecords) {
      const size = this.queue[0].value?.length ?? 0;
      if (out.length > 0 && bytes + size > this.limits.maxBytes) break;
      const r = this.queue.shift()!;
      out.push(r.value);
      this.next.set(r.partition, r.offset + 1);
      bytes += size;
    }
    this.queueBytes -= bytes;
    if (this.paused && this.queue.length < this.limits.bufferRecords / 2) {
      this.paused = false;
      this.consumer?.resume([{ topic: this.s.topic }]);
    }
    this.lastUsed = Date.now();
    return sampleFrame(out, ds, this.limits.maxRecordBytes);
  }

  private async until(done: () => boolean, ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (!done() && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  async stop(): Promise<void> {
    const consumer = this.consumer;
    this.consumer = undefined;
    if (!consumer) return;
    await consumer.disconnect().catch(() => undefined);
    // Its group holds no offsets (nothing is committed); deleting it is tidiness, best effort.
    const admin = kafkaClient(this.s, this.log).admin();
    await admin.connect().then(() => admin.deleteGroups([this.s.groupId])).catch(() => undefined).finally(() => admin.disconnect().catch(() => undefined));
  }
}

/**
 * The Kafka pollers, keyed by customer and DSInfo name. Where a poll starts is kept in KV
 * `sml_stream_polls` (revision-checked after every poll, TTL `idleMs`), so a poll continues
 * where the previous poll of that name left off whichever replica served it: a replica reuses
 * its local consumer (and what it read ahead) only when the stored positions are the ones its
 * last poll wrote; otherwise (another replica polled since, or none before) it starts a
 * consumer at the stored positions. Local consumers idle `idleMs` are closed.
 */
export class Pollers {
  private readonly pollers = new Map<string, KafkaPoller>();
  /** The poll in progress per key: polls of one name run one after the other in a replica. */
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly limits: PollLimits, private readonly positions: KV, private readonly log: Logger) {
    this.timer = setInterval(() => void this.sweep(), Math.min(10_000, limits.idleMs / 4));
    this.timer.unref();
  }

  /** The local key, and the KV key (encoded names: a customer reaches only its own). */
  private static key(user: string, name: string): string {
    return `${nameToken(user)}.${nameToken(name)}`;
  }

  /** The next records of the poller named `ds.name` (its first poll starts at the topic's start with `fromBeginning`, else at its end). */
  poll(user: string, ds: sml.v1.IDsInfo, fromBeginning: boolean): Promise<sml.v1.IDataFrame> {
    const key = Pollers.key(user, ds.name ?? '');
    const run = (this.chains.get(key) ?? Promise.resolve()).then(() => this.pollOnce(user, key, ds, fromBeginning, true));
    const tail = run.catch(() => undefined);
    this.chains.set(key, tail);
    void tail.then(() => {
      if (this.chains.get(key) === tail) this.chains.delete(key);
    });
    return run;
  }

  private async pollOnce(user: string, key: string, ds: sml.v1.IDsInfo, fromBeginning: boolean, retry: boolean): Promise<sml.v1.IDataFrame> {
    const name = ds.name ?? '';
    const settings = kafkaSettings({ ...ds, name }, `poll-${randomUUID().replace(/-/g, '')}`);
    settings.groupId = settings.groupId.replace('sml-stream-', 'sml-poll-');
    const entry = await this.positions.get(key);
    const stored = entry?.operation === 'PUT' ? sml.v1.StreamPollPosition.decode(entry.value) : undefined;
    let poller = this.pollers.get(key);
    const current = stored && stored.topic === settings.topic ? entry!.revision : undefined;
    if (poller && (poller.revision === undefined || poller.revision !== current || poller.s.topic !== settings.topic)) {
      // Another replica polled since this one did (or the positions expired): what this one read ahead is stale.
      await this.drop(key);
      poller = undefined;
    }
    if (!poller) {
      await this.makeRoom(user);
      const next: Positions = current !== undefined
        ? new Map(Object.entries(stored!.next ?? {}).map(([p, o]) => [Number(p), Number(o)]))
        : new Map((await topicOffsets(settings, this.log, name)).map((o) => [o.partition, fromBeginning || startsEarliest(ds) ? o.low : o.high]));
      poller = new KafkaPoller(user, name, settings, next, this.limits, this.log);
      this.pollers.set(key, poller);
      try {
        await poller.start();
      } catch (err) {
        if (this.pollers.get(key) === poller) this.pollers.delete(key);
        throw err;
      }
    }
    const frame = await poller.take(ds);
    const value = sml.v1.StreamPollPosition.encode({ topic: poller.s.topic, next: Object.fromEntries(poller.next) }).finish();
    try {
      poller.revision = entry && entry.operation === 'PUT' ? await this.positions.update(key, value, entry.revision) : await this.positions.create(key, value);
    } catch (err) {
      if (!isKeyExists(err)) throw err;
      // A poll of the same name on another replica answered first: its records may be these.
      await this.drop(key);
      if (retry) return this.pollOnce(user, key, ds, fromBeginning, false);
      throw smlError('STREAM_POLL_CONFLICT', { name });
    }
    return frame;
  }

  /** Closes this replica's consumer of `key` (the stored positions stay). */
  private async drop(key: string): Promise<KafkaPoller | undefined> {
    const poller = this.pollers.get(key);
    if (!poller) return undefined;
    this.pollers.delete(key);
    await poller.stop();
    return poller;
  }

  /** Closes the poller named `name` and forgets its positions; whether this replica had it. */
  async evict(user: string, name: string): Promise<boolean> {
    const key = Pollers.key(user, name);
    const had = (await this.drop(key)) !== undefined;
    await this.positions.delete(key).catch(() => undefined);
    return had;
  }

  /** The customer's least recently used poller goes (positions too) when it has perCustomer of them here; 503 when this replica has `total`. */
  private async makeRoom(user: string): Promise<void> {
    const prefix = `${nameToken(user)}.`;
    const mine = [...this.pollers].filter(([key]) => key.startsWith(prefix));
    if (mine.length >= this.limits.perCustomer) {
      const [key, oldest] = mine.reduce((a, b) => (a[1].lastUsed <= b[1].lastUsed ? a : b));
      this.log.info({ user, poller: oldest.name }, 'kafka poller evicted: the customer has the most pollers allowed');
      await this.drop(key);
      if (oldest.revision !== undefined) await this.positions.delete(key, { previousSeq: oldest.revision }).catch(() => undefined);
    }
    if (this.pollers.size >= this.limits.total) throw smlError('STREAM_POLLERS_BUSY', { count: this.pollers.size });
  }

  private async sweep(): Promise<void> {
    const now = Date.now();
    for (const [key, poller] of [...this.pollers]) {
      if (now - poller.lastUsed > this.limits.idleMs && !this.chains.has(key) && this.pollers.get(key) === poller) {
        this.pollers.delete(key);
        await poller.stop();
      }
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    const all = [...this.pollers.values()];
    this.pollers.clear();
    await Promise.all(all.map((p) => p.stop()));
  }
}

import { randomUUID } from 'node:crypto';
import type { Consumer } from 'kafkajs';
import { smlError, SmlError, type Logger } from '@sml/core';
import type { sml } from '@sml/proto';
import { sampleFrame } from './frame';
import { kafkaClient, kafkaSettings, oneMember, prepareKafka, type KafkaSettings } from './kafka-source';

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

/**
 * One Kafka poller: a kafkajs consumer in its own group (nothing committed: its position lives
 * in the poller) reading ahead into a bounded queue that each poll takes the next records from.
 */
class KafkaPoller {
  lastUsed = Date.now();
  private consumer?: Consumer;
  private queue: (Buffer | null)[] = [];
  private queueBytes = 0;
  private paused = false;
  private fetches = 0;
  private polled = false;
  private failure?: Error;
  private wake?: () => void;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(readonly user: string, readonly name: string, private ds: sml.v1.IDsInfo, private readonly s: KafkaSettings, private readonly limits: PollLimits, private readonly log: Logger) {}

  async start(fromBeginning: boolean): Promise<void> {
    // Checks the brokers (SSRF guard, 400) and that the topic can be reached (500).
    await prepareKafka(this.s, true, this.log, this.name);
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
      await consumer.subscribe({ topics: [this.s.topic], fromBeginning });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        eachBatch: async (payload) => {
          const { batch } = payload;
          for (const m of batch.messages) {
            if (!payload.isRunning() || payload.isStale()) break;
            if (this.queue.length >= this.limits.bufferRecords || this.queueBytes >= this.limits.maxBytes * 2) {
              // Read ahead far enough: the topic waits for the polls (kafkajs fetches from the first unresolved offset on resume).
              consumer.pause([{ topic: batch.topic }]);
              this.paused = true;
              break;
            }
            this.queue.push(m.value);
            this.queueBytes += m.value?.length ?? 0;
            payload.resolveOffset(m.offset);
          }
          this.wake?.();
          await payload.heartbeat();
        },
      });
    } catch (err) {
      await this.stop();
      if (err instanceof SmlError) throw err;
      throw smlError('GENERIC_EXCEPTION', { detail: `Cannot build the Kafka consumer of topic [${this.s.topic}]: ${(err as Error).message}` }, err);
    }
  }

  /** The next records as a DataFrame (polls of one poller run one after the other). */
  poll(ds: sml.v1.IDsInfo): Promise<sml.v1.IDataFrame> {
    const next = this.chain.then(() => this.take(ds));
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async take(ds: sml.v1.IDsInfo): Promise<sml.v1.IDataFrame> {
    this.lastUsed = Date.now();
    this.ds = ds;
    if (this.queue.length === 0) {
      // First poll: until the group has joined and a fetch was handled (the second fetch starts
      // only once the first one's batches went through eachBatch); later: a short wait.
      const first = !this.polled;
      const since = this.fetches;
      await this.until(() => this.queue.length > 0 || this.failure !== undefined || (first ? this.fetches >= 2 : this.fetches >= since + 2), first ? this.limits.firstWaitMs : this.limits.waitMs);
    }
    this.polled = true;
    if (this.queue.length === 0 && this.failure) throw smlError('GENERIC_EXCEPTION', { detail: `Kafka poller [${this.name}] failed: ${this.failure.message}` }, this.failure);
    const out: (Buffer | null)[] = [];
    let bytes = 0;
    while (this.queue.length > 0 && out.length < this.limits.maxRecords) {
      const size = this.queue[0]?.length ?? 0;
      if (out.length > 0 && bytes + size > this.limits.maxBytes) break;
      out.push(this.queue.shift()!);
      bytes += size;
    }
    this.queueBytes -= bytes;
    if (this.paused && this.queue.length < this.limits.bufferRecords / 2) {
      this.paused = false;
      this.consumer?.resume([{ topic: this.s.topic }]);
    }
    this.lastUsed = Date.now();
    return sampleFrame(out, this.ds, this.limits.maxRecordBytes);
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
 * The Kafka pollers of this replica, keyed by customer and DSInfo name: a poll continues where
 * the previous poll of that name left off; a poller idle `idleMs` is closed.
 */
export class Pollers {
  private readonly pollers = new Map<string, Promise<KafkaPoller>>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly limits: PollLimits, private readonly log: Logger) {
    this.timer = setInterval(() => void this.sweep(), Math.min(10_000, limits.idleMs / 4));
    this.timer.unref();
  }

  private static key(user: string, name: string): string {
    return `${user}\u0000${name}`;
  }

  /** The next records of the poller named `ds.name` (created on its first poll, `fromBeginning` then). */
  async poll(user: string, ds: sml.v1.IDsInfo, fromBeginning: boolean): Promise<sml.v1.IDataFrame> {
    const name = ds.name ?? '';
    const key = Pollers.key(user, name);
    let pending = this.pollers.get(key);
    if (!pending) {
      await this.makeRoom(user);
      const settings = kafkaSettings({ ...ds, name }, `poll-${randomUUID().replace(/-/g, '')}`);
      settings.groupId = settings.groupId.replace('sml-stream-', 'sml-poll-');
      const poller = new KafkaPoller(user, name, ds, settings, this.limits, this.log);
      pending = poller.start(fromBeginning).then(() => poller);
      this.pollers.set(key, pending);
      pending.catch(() => {
        if (this.pollers.get(key) === pending) this.pollers.delete(key);
      });
    }
    const poller = await pending;
    return poller.poll(ds);
  }

  /** Closes the poller named `name`; whether there was one. */
  async evict(user: string, name: string): Promise<boolean> {
    const key = Pollers.key(user, name);
    const pending = this.pollers.get(key);
    if (!pending) return false;
    this.pollers.delete(key);
    const poller = await pending.catch(() => undefined);
    await poller?.stop();
    return poller !== undefined;
  }

  /** The customer's least recently used poller goes when it has perCustomer of them; 503 when this replica has `total`. */
  private async makeRoom(user: string): Promise<void> {
    const mine: KafkaPoller[] = [];
    for (const [key, p] of this.pollers) {
      if (!key.startsWith(`${user}\u0000`)) continue;
      const poller = await p.catch(() => undefined);
      if (poller) mine.push(poller);
    }
    if (mine.length >= this.limits.perCustomer) {
      const oldest = mine.reduce((a, b) => (a.lastUsed <= b.lastUsed ? a : b));
      this.log.info({ user, poller: oldest.name }, 'kafka poller evicted: the customer has the most pollers allowed');
      await this.evict(user, oldest.name);
    }
    if (this.pollers.size >= this.limits.total) throw smlError('STREAM_POLLERS_BUSY', { count: this.pollers.size });
  }

  private async sweep(): Promise<void> {
    const now = Date.now();
    for (const [key, p] of [...this.pollers]) {
      const poller = await p.catch(() => undefined);
      if (poller && now - poller.lastUsed > this.limits.idleMs && this.pollers.get(key) === p) {
        this.pollers.delete(key);
        await poller.stop();
      }
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    const all = [...this.pollers.values()];
    this.pollers.clear();
    await Promise.all(all.map(async (p) => (await p.catch(() => undefined))?.stop()));
  }
}

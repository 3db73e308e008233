import { AssignerProtocol, Kafka, logLevel, type Admin, type Consumer, type KafkaConfig, type PartitionAssigner, type SASLOptions } from 'kafkajs';
import { smlError, type Logger } from '@sml/core';
import type { sml } from '@sml/proto';
import { checkServers, guardedSocketFactory, shown } from './guard';
import { chunks, type BatchLimits, type SourceBatch, type StreamSource } from './source';

const CONNECT_TIMEOUT_MS = 5_000;

/** The Kafka settings of a DSInfo (SymetryML's stream-data-source-api.md keys). */
export interface KafkaSettings {
  brokers: string[];
  topic: string;
  /** Only these partitions (`kafka.partitions`); undefined = all. */
  partitions?: number[];
  /** The consumer group: one per stream incarnation. */
  groupId: string;
  /** TLS (true, or the CA to trust) and SASL, from the `sml.kafka.*` keys (kafkaSecurity). */
  ssl?: true | { ca: string };
  sasl?: SASLOptions;
}

const SECURITY_PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'];
const SASL_MECHANISMS = { PLAIN: 'plain', 'SCRAM-SHA-256': 'scram-sha-256', 'SCRAM-SHA-512': 'scram-sha-512' } as const;
/** The `sml.kafka.*` keys read (SymetryML passes any Kafka client property so prefixed; these are the ones this service acts on). */
export const KAFKA_PASSTHROUGH = ['security.protocol', 'sasl.mechanism', 'sasl.jaas.config', 'sasl.username', 'sasl.password', 'ssl.truststore.certificates'];

/**
 * TLS and SASL of a Kafka DSInfo, from the Java client's property names prefixed `sml.kafka.`
 * (SymetryML's stream-data-source-api.md): `security.protocol` PLAINTEXT | SSL |
 * SASL_PLAINTEXT | SASL_SSL, `sasl.mechanism` PLAIN (default) | SCRAM-SHA-256 | SCRAM-SHA-512,
 * the credentials as `sasl.jaas.config` (`… username="u" password="p";`) or `sasl.username` /
 * `sasl.password`, and `ssl.truststore.certificates` (PEM) for a private CA. Any other
 * `sml.kafka.*` key is refused (400 naming it) rather than silently ignored: a property a
 * customer relies on must not be dropped without a word.
 */
export function kafkaSecurity(info: Record<string, string>, stream: string): Pick<KafkaSettings, 'ssl' | 'sasl'> {
  const bad = (detail: string) => smlError('STREAM_INVALID', { stream, detail });
  const prop = (key: string) => info[`sml.kafka.${key}`]?.trim();
  for (const key of Object.keys(info)) {
    if (key.startsWith('sml.kafka.') && !KAFKA_PASSTHROUGH.includes(key.slice('sml.kafka.'.length))) {
      throw bad(`info ${key} is not supported; the sml.kafka.* keys read are ${KAFKA_PASSTHROUGH.map((k) => `sml.kafka.${k}`).join(', ')}`);
    }
  }
  const protocol = (prop('security.protocol') ?? 'PLAINTEXT').toUpperCase();
  if (!SECURITY_PROTOCOLS.includes(protocol)) throw bad(`sml.kafka.security.protocol must be one of ${SECURITY_PROTOCOLS.join(', ')}`);
  const out: Pick<KafkaSettings, 'ssl' | 'sasl'> = {};
  if (protocol.endsWith('SSL')) {
    const ca = prop('ssl.truststore.certificates');
    out.ssl = ca ? { ca } : true;
  }
  if (protocol.startsWith('SASL')) {
    const name = (prop('sasl.mechanism') ?? 'PLAIN').toUpperCase();
    if (!Object.hasOwn(SASL_MECHANISMS, name)) throw bad(`sml.kafka.sasl.mechanism must be one of ${Object.keys(SASL_MECHANISMS).join(', ')}`);
    const jaas = prop('sasl.jaas.config') ?? '';
    const quoted = (field: string) => new RegExp(`\\b${field}\\s*=\\s*"((?:[^"\\\\]|\\\\.)*)"`).exec(jaas)?.[1]?.replace(/\\(.)/g, '$1');
    const username = prop('sasl.username') ?? quoted('username');
    const password = info['sml.kafka.sasl.password'] ?? quoted('password');
    // Never the values in the message: they are credentials.
    if (!username || password === undefined) throw bad(`${protocol} needs the SASL credentials: sml.kafka.sasl.jaas.config with username="…" password="…", or sml.kafka.sasl.username and sml.kafka.sasl.password`);
    out.sasl = { mechanism: SASL_MECHANISMS[name as keyof typeof SASL_MECHANISMS], username, password };
  } else if (prop('sasl.mechanism') || prop('sasl.jaas.config') || prop('sasl.username')) {
    throw bad(`SASL settings are given but sml.kafka.security.protocol is ${protocol}: use SASL_SSL or SASL_PLAINTEXT`);
  }
  return out;
}

export function kafkaSettings(ds: sml.v1.IDsInfo, instance: string): KafkaSettings {
  const info = ds.info ?? {};
  const bad = (detail: string) => smlError('STREAM_INVALID', { stream: ds.name ?? '-', detail });
  const brokers = (info['bootstrap.servers'] ?? '').split(',').map((b) => b.trim()).filter(Boolean);
  if (brokers.length === 0) throw bad('info bootstrap.servers (host:port, comma-separated) is required');
  const topic = (info['kafka.topic'] ?? info.path ?? '').trim();
  if (!topic) throw bad('info kafka.topic is required');
  let partitions: number[] | undefined;
  if (info['kafka.partitions']?.trim()) {
    partitions = info['kafka.partitions'].split(',').map((p) => Number(p.trim()));
    if (partitions.some((p) => !Number.isInteger(p) || p < 0)) throw bad('kafka.partitions must be comma-separated partition numbers');
  }
  startsEarliest(ds);
  return { brokers, topic, partitions, groupId: `sml-stream-${instance}`, ...kafkaSecurity(info, ds.name ?? '-') };
}

/**
 * Whether the DSInfo asks to start from the earliest records: `auto.offset.reset` earliest
 * (SymetryML's key; `latest` or absent: new records only). The create's and the poll's
 * `fromBeginning=true` asks the same; either suffices.
 */
export function startsEarliest(ds: sml.v1.IDsInfo): boolean {
  const reset = (ds.info?.['auto.offset.reset'] ?? 'latest').trim().toLowerCase();
  if (reset !== 'earliest' && reset !== 'latest') throw smlError('STREAM_INVALID', { stream: ds.name ?? '-', detail: 'info auto.offset.reset must be earliest or latest' });
  return reset === 'earliest';
}

/**
 * What a customer reads of a kafkajs failure: a failure to connect (kafkajs'
 * KafkaJSConnectionError, alone or as the cause of its retries) reads only `cannot connect to
 * <bootstrap.servers as given>` (ECONNREFUSED, a timeout or a closed connection would tell what
 * listens where), unless it is the SSRF guard's refusal of a broker the cluster advertises,
 * which names that address; any other failure (the cluster's own answer) keeps its message.
 */
export function kafkaFailureText(err: unknown, brokers: string[]): string {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e.name !== 'KafkaJSConnectionError' && e.name !== 'KafkaJSConnectionClosedError') continue;
    const refused = /Kafka broker \S+: address \S+ is .*, not a public address; set SML_SOURCES_ALLOW_PRIVATE=true to allow/.exec(e.message);
    return refused ? refused[0] : `cannot connect to ${brokers.map(shown).join(', ')}`;
  }
  return (err as Error).message;
}

/** A kafkajs client whose every connection goes through the SSRF guard (guard.ts). */
export function kafkaClient(s: Pick<KafkaSettings, 'brokers' | 'ssl' | 'sasl'>, log: Logger): Kafka {
  const config: KafkaConfig = {
    clientId: 'sml-streams', brokers: s.brokers, connectionTimeout: CONNECT_TIMEOUT_MS, socketFactory: guardedSocketFactory(),
    ...(s.ssl ? { ssl: s.ssl } : {}), ...(s.sasl ? { sasl: s.sasl } : {}),
    retry: { retries: 3, initialRetryTime: 200 },
    logLevel: logLevel.WARN,
    // kafkajs logs through pino, never its own console lines.
    logCreator: () => ({ namespace, level, log: entry }) => {
      const { message, ...rest } = entry;
      if (level <= logLevel.ERROR) log.warn({ kafka: namespace, ...rest }, message);
      else log.debug({ kafka: namespace, ...rest }, message);
    },
  };
  return new Kafka(config);
}

/**
 * Checks, when a stream is created, that the topic can be reached (500 otherwise) and, unless
 * it starts from the beginning, returns the partitions' current end offsets: "new records" are
 * those produced after the create answered, wherever and whenever the consumer first runs.
 * (Committing them for the group would say the same, but the mock broker of the tests does not
 * take an OffsetCommit from outside the group.)
 */
export async function prepareKafka(s: KafkaSettings, fromBeginning: boolean, log: Logger, stream = '-'): Promise<Record<string, number>> {
  const wanted = await topicOffsets(s, log, stream);
  return fromBeginning ? {} : Object.fromEntries(wanted.map((o) => [`${s.topic}:${o.partition}`, o.high]));
}

/**
 * The first (`low`) and next (`high`) offset of each partition of the topic (of kafka.partitions
 * when given), after the SSRF guard's check of the brokers (400); 500 when the topic cannot be reached.
 */
export async function topicOffsets(s: KafkaSettings, log: Logger, stream = '-'): Promise<{ partition: number; low: number; high: number }[]> {
  await checkServers(stream, 'bootstrap.servers', s.brokers);
  const admin: Admin = kafkaClient(s, log).admin();
  try {
    await admin.connect();
    const offsets = await admin.fetchTopicOffsets(s.topic);
    const wanted = offsets.filter((o) => !s.partitions || s.partitions.includes(o.partition));
    if (s.partitions && wanted.length !== s.partitions.length) throw new Error(`topic ${s.topic} has no partition ${s.partitions.filter((p) => !offsets.some((o) => o.partition === p)).join(',')}`);
    return wanted.map((o) => ({ partition: o.partition, low: Number(o.low), high: Number(o.high) }));
  } catch (err) {
    throw smlError('GENERIC_EXCEPTION', { detail: `Cannot build the Kafka consumer of topic [${s.topic}]: ${kafkaFailureText(err, s.brokers)}` }, err);
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/** Deletes the stream's consumer group (its committed offsets); best effort. */
export async function dropKafka(s: KafkaSettings, log: Logger): Promise<void> {
  const admin = kafkaClient(s, log).admin();
  try {
    await admin.connect();
    await admin.deleteGroups([s.groupId]);
  } catch (err) {
    log.debug({ err, group: s.groupId }, 'kafka consumer group not deleted');
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/**
 * Every partition (or those of kafka.partitions) to one member: a stream runs in one replica
 * (its lease), and should a second member ever join, it gets nothing rather than half a stream.
 */
export function oneMember(only: number[] | undefined): PartitionAssigner {
  return ({ cluster }) => ({
    name: 'SmlOneMember',
    version: 1,
    assign({ members, topics }) {
      const sorted = [...members].sort((a, b) => a.memberId.localeCompare(b.memberId));
      const assignment: Record<string, number[]> = {};
      for (const topic of topics) {
        const ids = cluster.findTopicPartitionMetadata(topic).map((m) => m.partitionId);
        assignment[topic] = only ? ids.filter((p) => only.includes(p)) : ids;
      }
      return Promise.resolve(sorted.map((m, i) => ({
        memberId: m.memberId,
        memberAssignment: AssignerProtocol.MemberAssignment.encode({ version: 1, assignment: i === 0 ? assignment : {}, userData: Buffer.alloc(0) }),
      })));
    },
    protocol({ topics }) {
      return { name: 'SmlOneMember', metadata: AssignerProtocol.MemberMetadata.encode({ version: 1, topics, userData: Buffer.alloc(0) }) };
    },
  });
}

/** A kafkajs consumer in the stream's own group, committing each batch's offset after its learn. */
export class KafkaSource implements StreamSource {
  private consumer?: Consumer;

  constructor(private readonly s: KafkaSettings, private readonly limits: BatchLimits, private readonly log: Logger, private readonly startOffsets: Record<string, number> = {}) {}

  async run(handle: (batch: SourceBatch) => Promise<void>, onError: (err: Error) => void): Promise<void> {
    const consumer = kafkaClient(this.s, this.log).consumer({
      groupId: this.s.groupId, partitionAssigners: [oneMember(this.s.partitions)],
      sessionTimeout: 10_000, heartbeatInterval: 1_000, maxWaitTimeInMs: this.limits.waitMs, maxBytes: this.limits.bytes,
      retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 300, maxRetryTime: 10_000 },
    });
    this.consumer = consumer;
    const ended = new Promise<void>((resolve, reject) => {
      consumer.on(consumer.events.STOP, () => resolve());
      consumer.on(consumer.events.CRASH, (e) => {
        onError(e.payload.error);
        if (!e.payload.restart) reject(e.payload.error);
      });
    });
    await consumer.connect();
    // Where the group has no committed offset (fromBeginning at create, or a partition added since).
    await consumer.subscribe({ topics: [this.s.topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async (payload) => {
        const { batch } = payload;
        const partition = `${batch.topic}:${batch.partition}`;
        const start = this.startOffsets[partition] ?? 0;
        const messages = batch.messages.filter((m) => Number(m.offset) >= start);
        const high = Number(batch.highWatermark);
        if (messages.length === 0 && batch.messages.length > 0) {
          // Only records from before the stream was created: passed over, and their offsets committed.
          const last = batch.lastOffset();
          await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: String(Number(last) + 1) }]);
          payload.resolveOffset(last);
          return;
        }
        const records = messages.map((m) => ({ offset: Number(m.offset), value: m.value }));
        for (const part of chunks(records, this.limits)) {
          if (!payload.isRunning() || payload.isStale()) return;
          const last = part[part.length - 1].offset;
          await handle({ partition, records: part, lag: Math.max(0, high - last - 1) });
          // Committed only now that the project has the batch (exactly-once with its stream marks).
          await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: String(last + 1) }]);
          payload.resolveOffset(String(last));
          await payload.heartbeat();
        }
      },
    });
    await ended;
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect().catch(() => undefined);
  }
}

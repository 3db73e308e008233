import { randomUUID } from 'node:crypto';
import type { NatsConnection } from 'nats';
import { smlError, SmlError, type Logger } from '@sml/core';
import type { sml } from '@sml/proto';
import { sampleFrame } from './frame';
import { checkServers } from './guard';
import { kafkaClient, kafkaFailureText, kafkaSecurity, kafkaSettings, oneMember } from './kafka-source';
import { natsSettings, openNats } from './nats-source';
import { STREAM_TYPES } from './streams';

/** Records a preview reads at most (as a data-source sample), and how long it waits for them. */
export const PREVIEW_RECORDS = 128;
const PREVIEW_WAIT_MS = 3_000;
const PREVIEW_JOIN_MS = 15_000;

function typeOf(user: string, ds: sml.v1.IDsInfo): 'kafka' | 'nats' {
  const type = (ds.type ?? '').toLowerCase();
  if (!(STREAM_TYPES as readonly string[]).includes(type)) throw smlError('STREAM_UNKNOWN_TYPE', { user, type: ds.type ?? '' });
  return type as 'kafka' | 'nats';
}

/** A 500 naming what failed; Kafka's failures to connect reduced as kafkaFailureText says (NATS': openNats). */
function failure(what: string, err: unknown, brokers?: string[]): never {
  if (err instanceof SmlError) throw err;
  throw smlError('GENERIC_EXCEPTION', { detail: `${what}: ${brokers ? kafkaFailureText(err, brokers) : (err as Error).message}` }, err);
}

/**
 * POST /{user}/streams/browse (API.md §9). Kafka: `files` = `<topic>:<partitions>` of every
 * topic not starting with `_` (path ignored). NATS: no path → the JetStream stream names in
 * `dirs`; path = a stream → its subjects in `files` and `path` echoed; an unknown stream →
 * only `ok`. Unset fields are left out (the gateway's presentation).
 */
export async function browse(user: string, ds: sml.v1.IDsInfo, log: Logger): Promise<sml.v1.IDsDirectoryListing> {
  const info = ds.info ?? {};
  if (typeOf(user, ds) === 'kafka') {
    const brokers = (info['bootstrap.servers'] ?? '').split(',').map((b) => b.trim()).filter(Boolean);
    if (brokers.length === 0) throw smlError('STREAM_INVALID', { stream: ds.name || '-', detail: 'info bootstrap.servers (host:port, comma-separated) is required' });
    await checkServers(ds.name || '-', 'bootstrap.servers', brokers);
    const admin = kafkaClient({ brokers, ...kafkaSecurity(info, ds.name || '-') }, log).admin();
    try {
      await admin.connect();
      const { topics } = await admin.fetchTopicMetadata();
      const files = topics.filter((t) => !t.name.startsWith('_')).map((t) => `${t.name}:${t.partitions.length}`).sort();
      return { ok: true, files };
    } catch (err) {
      return failure('Cannot browse the Kafka cluster', err, brokers);
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }
  const servers = (info.nats_hosts ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (servers.length === 0) throw smlError('STREAM_INVALID', { stream: ds.name || '-', detail: 'info nats_hosts (comma-separated URLs) is required' });
  const { auth } = natsSettings({ ...ds, info: { ...info, 'nats.subject': info['nats.subject'] || '-' } }, '-');
  let nc: NatsConnection | undefined;
  try {
    nc = await openNats({ servers, auth }, { stream: ds.name || '-', reconnect: false });
    const jsm = await nc.jetstreamManager();
    const path = (info.path ?? '').trim();
    if (!path) {
      const dirs: string[] = [];
      for await (const name of jsm.streams.names()) dirs.push(name);
      return { ok: true, dirs: dirs.sort() };
    }
    const stream = await jsm.streams.info(path).catch((err: Error) => {
      if (/stream not found/i.test(err.message)) return undefined;
      throw err;
    });
    if (!stream) return { ok: true };
    return { ok: true, files: [...(stream.config.subjects ?? [])], path };
  } catch (err) {
    return failure('Cannot browse the NATS server', err);
  } finally {
    await nc?.close().catch(() => undefined);
  }
}

/**
 * POST /{user}/streams/preview (API.md §9): up to PREVIEW_RECORDS records from the start of
 * the source as a DataFrame (frame.ts). Registers nothing and touches no poller: Kafka reads
 * with a throw-away consumer group, deleted afterwards; NATS with an ordered (ephemeral)
 * consumer.
 */
export async function preview(user: string, ds: sml.v1.IDsInfo, maxRecordBytes: number, log: Logger): Promise<sml.v1.IDataFrame> {
  const name = ds.name || 'preview';
  const values: (Buffer | Uint8Array | null)[] = [];
  if (typeOf(user, ds) === 'kafka') {
    const s = kafkaSettings({ ...ds, name }, `preview-${randomUUID().replace(/-/g, '')}`);
    await checkServers(name, 'bootstrap.servers', s.brokers);
    const kafka = kafkaClient(s, log);
    const admin = kafka.admin();
    const consumer = kafka.consumer({ groupId: s.groupId, partitionAssigners: [oneMember(s.partitions)], maxWaitTimeInMs: 300, retry: { retries: 2 } });
    try {
      await admin.connect();
      const offsets = (await admin.fetchTopicOffsets(s.topic)).filter((o) => !s.partitions || s.partitions.includes(o.partition));
      const available = offsets.reduce((n, o) => n + Math.max(0, Number(o.high) - Number(o.low)), 0);
      const wanted = Math.min(PREVIEW_RECORDS, available);
      if (wanted > 0) {
        await consumer.connect();
        await consumer.subscribe({ topics: [s.topic], fromBeginning: true });
        let done!: () => void;
        const enough = new Promise<void>((resolve) => { done = resolve; });
        let joined = false;
        consumer.on(consumer.events.GROUP_JOIN, () => { joined = true; });
        await consumer.run({
          autoCommit: false,
          eachMessage: ({ message }) => {
            if (values.length < wanted) values.push(message.value);
            if (values.length >= wanted) done();
            return Promise.resolve();
          },
        });
        const started = Date.now();
        await Promise.race([enough, new Promise<void>((resolve) => {
          const t = setInterval(() => {
            if (Date.now() - started > PREVIEW_JOIN_MS || (joined && Date.now() - started > PREVIEW_WAIT_MS)) {
              clearInterval(t);
              resolve();
            }
          }, 50);
          void enough.then(() => clearInterval(t));
        })]);
      }
    } catch (err) {
      return failure(`Cannot build the Kafka consumer of topic [${s.topic}]`, err, s.brokers);
    } finally {
      await consumer.disconnect().catch(() => undefined);
      await admin.deleteGroups([s.groupId]).catch(() => undefined);
      await admin.disconnect().catch(() => undefined);
    }
  } else {
    const s = natsSettings({ ...ds, name }, 'preview');
    let nc: NatsConnection | undefined;
    try {
      nc = await openNats(s, { stream: name, reconnect: false });
      const jsm = await nc.jetstreamManager();
      const stream = await jsm.streams.find(s.subject);
      const consumer = await nc.jetstream().consumers.get(stream, { filterSubjects: s.subject });
      const msgs = await consumer.fetch({ max_messages: PREVIEW_RECORDS, expires: 1_000 });
      for await (const m of msgs) {
        values.push(m.data);
        if (values.length >= PREVIEW_RECORDS) break;
      }
    } catch (err) {
      return failure(`Cannot build the NATS consumer of subject [${s.subject}]`, err);
    } finally {
      await nc?.close().catch(() => undefined);
    }
  }
  return sampleFrame(values.slice(0, PREVIEW_RECORDS), ds, maxRecordBytes);
}

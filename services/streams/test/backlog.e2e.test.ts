import { Kafka, logLevel, type Producer } from 'kafkajs';
import { encryptDsInfo } from '@sml/core';
import type { SmlClient } from '@sml/sdk';
import type { KafkaMock } from '@sml/testkit';
import type { SummaryReader } from '../../projects/test/helpers';
import { startKafkaStreams, type KafkaStreams } from './helpers';

// Issue 12: a Kafka stream created with fromBeginning over a backlog already in the topic
// learns every record the broker still holds, once. (bench/streams.mjs saw 16 000 of 200 000
// learned: the mock broker keeps only the newest few MiB of a partition — its low watermark
// moves as records are produced —, so the older records were gone before the stream began.)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a Kafka stream over a backlog', () => {
  let kafka: KafkaMock;
  let producer: Producer;
  let reader: SummaryReader;
  let alice: SmlClient;
  let secret: string;

  let rig: KafkaStreams;

  beforeAll(async () => {
    rig = await startKafkaStreams({ clientId: 'backlog', env: {} });
    ({ kafka, producer, reader, alice, secret } = rig);
  }, 60_000);
  afterAll(async () => {
    await rig?.stop();
  });

  /** 20 numeric fields (learn requests of a few MiB: past the bus's max payload): x = i, f1…f19 fixed-width decimals. */
  const FIELDS = Array.from({ length: 19 }, (_, k) => `f${k + 1}`);
  const record = (i: number) => JSON.stringify({ x: i, ...Object.fromEntries(FIELDS.map((f, k) => [f, ((i * (k + 3)) % 1000) / 7])) });

  it('fromBeginning: every record already in the topic learned once', async () => {
    const N = 60_000;
    for (let i = 0; i < N; i += 1000) {
      await producer.send({ topic: 'backlog', messages: Array.from({ length: 1000 }, (_, k) => ({ partition: 0, value: record(i + k) })) });
    }
    // What the broker still holds: [low, high) of partition 0.
    const admin = new Kafka({ brokers: kafka.bootstrap.split(','), clientId: 'backlog-admin', logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    const held = (await admin.fetchTopicOffsets('backlog')).find((o) => o.partition === 0)!;
    await admin.disconnect();
    const [low, high] = [Number(held.low), Number(held.high)];
    expect(high).toBe(N);
    expect((await alice.createProject('b')).status).toBe(201);
    const created = await alice.request('POST', '/projects/b/streams/create', {
      query: 'fromBeginning=true', raw: encryptDsInfo({ type: 'kafka', name: 'sb', info: { 'bootstrap.servers': kafka.bootstrap, 'kafka.topic': 'backlog', attributeNames: ['x', ...FIELDS].join(',') }, extra: ['x', ...FIELDS].map(() => 'C') }, secret),
    });
    expect(created.status).toBe(201);
    const rows = async () => Number((await reader.parts('alice', 'b', { attributeNames: ['x'], moments: true }).catch(() => undefined))?.rowCount ?? 0);
    let last = -1;
    let still = 0;
    for (const deadline = Date.now() + 120_000; Date.now() < deadline && still < 50; await sleep(100)) {
      const now = await rows();
      still = now === last ? still + 1 : 0;
      last = now;
      if (now >= high - low) break;
    }
    await sleep(2000);
    const parts = await reader.parts('alice', 'b', { attributeNames: ['x'], moments: true });
    const sum = ((high - low) * (low + high - 1)) / 2;
    expect({ rows: Number(parts.rowCount), sum: parts.moments[0].sum }).toEqual({ rows: high - low, sum });
  }, 200_000);
});

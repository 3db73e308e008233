import type { Producer } from 'kafkajs';
import { encryptDsInfo } from '@sml/core';
import type { SmlClient } from '@sml/sdk';
import type { KafkaMock, RunningSystem } from '@sml/testkit';
import type { SummaryReader } from '../../projects/test/helpers';
import { startKafkaStreams, totalsOf, type KafkaStreams } from './helpers';

// @sml-run-alone: kills processes on a timetable while 100 000 records flow (scripts/jest-alone.js).
// Issue 12 chaos: 100 000 numbered Kafka records while the streams service and the projects
// service are each SIGKILLed twice mid-stream; after the restarts the project has learned
// every record exactly once (row count and the sum of the numbers equal what was produced).
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const N = 100_000;

describe('streams chaos', () => {
  let sys: RunningSystem;
  let kafka: KafkaMock;
  let producer: Producer;
  let reader: SummaryReader;
  let alice: SmlClient;
  let secret: string;

  let rig: KafkaStreams;

  beforeAll(async () => {
    rig = await startKafkaStreams({ clientId: 'chaos', env: { SML_STREAM_LEASE_MS: '2000', SML_STREAM_BATCH_RECORDS: '2000', SML_STREAM_BATCH_MS: '100' } });
    ({ sys, kafka, producer, reader, alice, secret } = rig);
  }, 60_000);
  afterAll(async () => {
    await rig?.stop();
  });

  const totals = () => totalsOf(reader, 'chaos');
  async function until(what: string, check: () => Promise<boolean>, timeoutMs = 180_000): Promise<void> {
    for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(200)) if (await check()) return;
    throw new Error(`timed out waiting for ${what} (${JSON.stringify(await totals())})\n${sys.logs('streams').slice(-3000)}`);
  }

  it('100 000 records, streams and projects SIGKILLed twice each: every record learned exactly once', async () => {
    expect((await alice.createProject('chaos')).status).toBe(201);
    const c = await alice.request('POST', '/projects/chaos/streams/create', {
      query: 'fromBeginning=true',
      raw: encryptDsInfo({ type: 'kafka', name: 'c', info: { 'bootstrap.servers': kafka.bootstrap, 'kafka.topic': 'chaos', attributeNames: 'x' }, extra: ['C'] }, secret),
    });
    expect(c.status).toBe(201);
    const sending = (async () => {
      for (let i = 0; i < N; i += 1000) {
        await producer.send({ topic: 'chaos', messages: Array.from({ length: 1000 }, (_, k) => ({ value: `{"x":${i + k}}` })) });
        await sleep(40);
      }
    })();
    const kills: Array<[number, 'streams' | 'projects']> = [[10_000, 'streams'], [30_000, 'projects'], [50_000, 'streams'], [70_000, 'projects']];
    for (const [rows, service] of kills) {
      await until(`${rows} learned`, async () => (await totals()).rows >= rows);
      await sys.kill(service, 'SIGKILL');
      await sleep(500);
      await sys.start(service);
    }
    await sending;
    await until(`${N} learned`, async () => (await totals()).rows >= N, 300_000);
    await sleep(4000); // nothing more arrives: no batch learned twice
    expect(await totals()).toEqual({ rows: N, sum: (N * (N - 1)) / 2 });
  }, 600_000);
});

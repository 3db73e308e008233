import type { Producer } from 'kafkajs';
import { encryptDsInfo } from '@sml/core';
import type { SmlClient } from '@sml/sdk';
import type { KafkaMock, RunningSystem } from '@sml/testkit';
import type { SummaryReader } from '../../projects/test/helpers';
import { startKafkaStreams, totalsOf, type KafkaStreams } from './helpers';

// @sml-run-alone: stream hand-overs while replicas are SIGKILLed (scripts/jest-alone.js).
// Issue 12: two replicas of the streams service share the streams. Each replica is SIGKILLed
// in turn while records flow (so whichever held the stream, the other one takes it over at
// least once), and every record is learned exactly once: count and sum equal what was produced.
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('streams with two replicas', () => {
  let sys: RunningSystem;
  let kafka: KafkaMock;
  let producer: Producer;
  let reader: SummaryReader;
  let alice: SmlClient;
  let secret: string;

  let rig: KafkaStreams;

  beforeAll(async () => {
    rig = await startKafkaStreams({ clientId: 'replicas', services: ['users', 'jobs', 'projects', 'streams', 'streams#2'], env: { SML_STREAM_LEASE_MS: '2000', SML_STREAM_BATCH_RECORDS: '300', SML_STREAM_BATCH_MS: '100' } });
    ({ sys, kafka, producer, reader, alice, secret } = rig);
  }, 60_000);
  afterAll(async () => {
    await rig?.stop();
  });

  const totals = () => totalsOf(reader, 'r');
  async function until(what: string, check: () => Promise<boolean>, timeoutMs = 90_000): Promise<void> {
    for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(100)) if (await check()) return;
    throw new Error(`timed out waiting for ${what}\n${sys.logs('streams').slice(-2000)}\n${sys.logs('streams#2').slice(-2000)}`);
  }
  const produce = (from: number, to: number) => producer.send({ topic: 'tr', messages: Array.from({ length: to - from }, (_, k) => ({ value: JSON.stringify({ x: from + k }) })) });
  const sumOf = (to: number) => (to * (to - 1)) / 2;

  it('each replica killed in turn while records flow: every record learned once', async () => {
    expect((await alice.createProject('r')).status).toBe(201);
    const created = await alice.request('POST', '/projects/r/streams/create', {
      query: 'fromBeginning=true', raw: encryptDsInfo({ type: 'kafka', name: 'sr', info: { 'bootstrap.servers': kafka.bootstrap, 'kafka.topic': 'tr', attributeNames: 'x' }, extra: ['C'] }, secret),
    });
    expect(created.status).toBe(201);
    let produced = 0;
    const burst = async (records: number) => {
      for (const end = produced + records; produced < end; produced += 500) {
        await produce(produced, produced + 500);
        await sleep(30);
      }
    };
    await burst(3000);
    await until('the first records learned', async () => (await totals()).rows > 0);
    const replicas = new Set<string>();
    const runningReplica = async () => (await alice.request<{ KSVSMap: { values: Record<string, string>[] } }>('GET', '/projects/r/streams/sr/metrics')).body.values!.KSVSMap.values[0].replica;
    replicas.add(await runningReplica());
    for (const replica of ['streams', 'streams#2']) {
      const sending = burst(4000);
      await sys.kill(replica, 'SIGKILL');
      await sending;
      await until(`all ${produced} learned after killing ${replica}`, async () => (await totals()).rows >= produced);
      replicas.add(await runningReplica());
      await sys.start(replica);
    }
    // Whichever replica held the stream first was killed at some point and another took it
    // over (a restarted replica has a new instance id, so 2 or 3 ids were seen).
    replicas.delete('');
    expect(replicas.size).toBeGreaterThanOrEqual(2);
    await burst(2000);
    await until(`all ${produced} learned`, async () => (await totals()).rows >= produced);
    await sleep(3000); // nothing more arrives: no batch learned twice
    expect(await totals()).toEqual({ rows: produced, sum: sumOf(produced) });
    expect(sys.unexpectedExits()).toEqual([]);
  }, 240_000);

  it('the running streams are shared out between the replicas', async () => {
    // Only these four run (the first test's stream, if it ran, is stopped): two per replica.
    await alice.request('GET', '/projects/r/streams/sr/stop');
    expect((await alice.createProject('b')).status).toBe(201);
    await producer.send({ topic: 'tb', messages: [{ value: JSON.stringify({ x: 0 }) }] });
    const names = ['b1', 'b2', 'b3', 'b4'];
    // Created while one replica is up: it runs all four; the second one gets two of them.
    await sys.kill('streams#2', 'SIGTERM');
    for (const name of names) {
      const r = await alice.request('POST', '/projects/b/streams/create', { raw: encryptDsInfo({ type: 'kafka', name, info: { 'bootstrap.servers': kafka.bootstrap, 'kafka.topic': 'tb', attributeNames: 'x' }, extra: ['C'] }, secret) });
      expect(r.status).toBe(201);
    }
    const owners = async () => Promise.all(names.map(async (n) => (await alice.request<{ KSVSMap: { values: Record<string, string>[] } }>('GET', `/projects/b/streams/${n}/metrics`)).body.values!.KSVSMap.values[0].replica));
    const perReplica = (o: string[]) => [...o.reduce((m, r) => m.set(r, (m.get(r) ?? 0) + 1), new Map<string, number>()).values()].sort();
    await until('all four running on the one replica', async () => JSON.stringify(perReplica(await owners())) === '[4]', 30_000);
    await sys.start('streams#2');
    await until('two streams per replica', async () => JSON.stringify(perReplica(await owners())) === '[2,2]', 30_000);
    for (const name of names) expect((await alice.request('DELETE', `/projects/b/streams/${name}`)).status).toBe(200);
  }, 60_000);

  it('a Kafka poller continues where the last poll left off whichever replica serves the poll', async () => {
    const topic = 'tp';
    await producer.send({ topic, messages: Array.from({ length: 1500 }, (_, k) => ({ value: JSON.stringify({ x: k }) })) });
    const ds = encryptDsInfo({ type: 'kafka', name: 'pr', info: { 'bootstrap.servers': kafka.bootstrap, 'kafka.topic': topic, attributeNames: 'x' }, extra: ['C'] }, secret);
    const seen: number[] = [];
    const pollOnce = async () => {
      const r = await alice.request<{ dataframe: { data: string[][] } }>('POST', '/streams/poll', { query: 'fromBeginning=true', raw: ds });
      expect([r.status, r.status === 200 ? '' : JSON.stringify(r.body)]).toEqual([200, '']);
      const got = r.body.values!.dataframe.data.map((row) => Number(row[0]));
      seen.push(...got);
      return got.length;
    };
    // Only one replica up at a time: each poll is served by the one that did not serve the last.
    await sys.kill('streams#2', 'SIGKILL');
    while ((await pollOnce()) === 0);
    for (const [up, down] of [['streams#2', 'streams'], ['streams', 'streams#2']]) {
      await sys.kill(down, 'SIGKILL');
      await sys.start(up); // ready once `up` answers: the only replica left
      const before = seen.length;
      for (let i = 0; i < 10 && seen.length === before; i++) await pollOnce();
      expect(seen.length).toBeGreaterThan(before);
    }
    // Both up: the polls go to either, each replica's read-ahead is dropped once the other polled.
    await sys.start('streams#2');
    for (let i = 0; i < 60 && seen.length < 1500; i++) await pollOnce();
    // Every record exactly once: nothing skipped, nothing answered twice (in order per partition).
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 1500 }, (_, k) => k));
  }, 180_000);
});

import { Kafka, logLevel, type Producer } from 'kafkajs';
import { connect, type NatsConnection } from 'nats';
import { encryptDsInfo } from '@sml/core';
import { SmlClient } from '@sml/sdk';
import { startKafkaMock, startNatsServer, startSystem, type KafkaMock, type NatsServer, type RunningSystem } from '@sml/testkit';
import { ProjectStore } from '../../projects/src/store/store';
import { SummaryReader } from '../../projects/test/helpers';

// Issue 12: Kafka (kafka-mock) and NATS JetStream (a second nats-server, the customer's) streams
// learned into projects through the running system: counts and sums equal what was produced,
// stop/start, a SIGKILLed streams service, bad records, a project deleted under its stream, a
// deleted stream's marks leaving its project.
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
type Metrics = Record<string, string>;

describe('streams', () => {
  let sys: RunningSystem;
  let kafka: KafkaMock;
  let producer: Producer;
  let source: NatsServer;
  let snc: NatsConnection;
  let reader: SummaryReader;
  let alice: SmlClient;
  let secret: string;

  beforeAll(async () => {
    [kafka, source] = await Promise.all([startKafkaMock(), startNatsServer()]);
    sys = await startSystem({
      services: ['users', 'jobs', 'projects', 'streams'],
      env: { SML_STREAM_LEASE_MS: '2000', SML_STREAM_BATCH_RECORDS: '300', SML_STREAM_BATCH_MS: '100', KAFKAJS_NO_PARTITIONER_WARNING: '1' },
    });
    reader = await SummaryReader.open(sys.nats);
    const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
    secret = String(((await root.addUser('alice')).body.values as { secretKey: string }).secretKey);
    alice = new SmlClient({ url: sys.url, user: 'alice', secret });
    producer = new Kafka({ brokers: kafka.bootstrap.split(','), clientId: 'test', logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    snc = await connect({ servers: source.url });
    await (await snc.jetstreamManager()).streams.add({ name: 'EVENTS', subjects: ['events.>'] });
  }, 60_000);
  afterAll(async () => {
    await producer?.disconnect();
    await snc?.close();
    await reader?.close();
    await sys?.stop();
    await Promise.all([kafka?.stop(), source?.stop()]);
  });

  const create = (pid: string, ds: object, fromBeginning = false) =>
    alice.request('POST', `/projects/${pid}/streams/create`, { query: `fromBeginning=${fromBeginning}`, raw: encryptDsInfo(ds, secret) });
  const metrics = async (pid: string, s: string): Promise<Metrics> =>
    (await alice.request<{ KSVSMap: { values: Metrics[] } }>('GET', `/projects/${pid}/streams/${s}/metrics`)).body.values!.KSVSMap.values[0];
  async function until(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
    for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(100)) if (await check()) return;
    throw new Error(`timed out waiting for ${what}\n${sys.logs('streams').slice(-3000)}`);
  }
  const totals = async (pid: string) => {
    const parts = await reader.parts('alice', pid, { attributeNames: ['x'], moments: true }).catch(() => undefined);
    return { rows: Number(parts?.rowCount ?? 0), sum: parts?.moments[0]?.sum ?? 0 };
  };
  /** Records i in [from, to): x = i, y = i mod 7. */
  const sumOf = (from: number, to: number) => (to - from) * (from + to - 1) / 2;
  const produceJson = (topic: string, from: number, to: number) => producer.send({ topic, messages: Array.from({ length: to - from }, (_, k) => ({ value: JSON.stringify({ x: from + k, y: (from + k) % 7 }) })) });

  it('an unknown stream type is refused with the seed message; a stream of an unknown project is 400', async () => {
    expect((await alice.createProject('seed')).status).toBe(201);
    const r = await create('seed', { type: 'mqtt', name: 's1', info: {} });
    expect([r.status, r.body.statusString]).toEqual([400, 'Customer [alice] specified unknown DS Stream type [mqtt]']);
    const u = await create('nope', { type: 'kafka', name: 's1', info: { 'bootstrap.servers': kafka.bootstrap, 'kafka.topic': 't', attributeNames: 'x' } });
    expect(u.status).toBe(400);
    const b = await create('seed', { type: 'kafka', name: 's1', info: { 'bootstrap.servers': '127.0.0.1:1', 'kafka.topic': 't', attributeNames: 'x' } });
    expect(b.status).toBe(500);
  });

  it('kafka json: every record learned once, stop holds new records back, start learns them, a SIGKILL loses and doubles nothing', async () => {
    expect((await alice.createProject('k')).status).toBe(201);
    await produceJson('tk', -1000, 0); // before the create: not learned (fromBeginning=false)
    const c = await create('k', { type: 'kafka', name: 'sk', info: { 'bootstrap.servers': kafka.bootstrap, 'kafka.topic': 'tk', attributeNames: 'x,y' }, extra: ['C', 'C'] });
    expect([c.status, c.body.statusString]).toEqual([201, 'DS Stream created stream with name [sk] for customer [alice]']);
    expect((await alice.request<{ stringList: { values: string[] } }>('GET', '/projects/k/streams/list')).body.values?.stringList.values).toEqual(['sk']);
    await produceJson('tk', 0, 2000);
    await until('2000 learned', async () => (await totals('k')).rows === 2000);
    expect(await totals('k')).toEqual({ rows: 2000, sum: sumOf(0, 2000) });
    await until('metrics', async () => (await metrics('k', 'sk')).recordsLearned === '2000');

    expect((await alice.request('GET', '/projects/k/streams/sk/stop')).status).toBe(200);
    expect((await metrics('k', 'sk')).state).toBe('stopped');
    await produceJson('tk', 2000, 2500);
    await sleep(2500);
    expect((await totals('k')).rows).toBe(2000);
    expect((await alice.request('GET', '/projects/k/streams/sk/start')).status).toBe(200);
    await until('2500 learned', async () => (await totals('k')).rows === 2500);

    // SIGKILL the streams service while records flow; the restarted one resumes at the committed offsets.
    const sending = (async () => {
      for (let i = 2500; i < 10_000; i += 500) {
        await produceJson('tk', i, i + 500);
        await sleep(50);
      }
    })();
    await until('some of the burst learned', async () => (await totals('k')).rows > 3000);
    await sys.kill('streams', 'SIGKILL');
    await sending;
    await sys.start('streams');
    await until('10000 learned', async () => (await totals('k')).rows >= 10_000, 90_000);
    await sleep(3000); // nothing more arrives: no batch learned twice
    expect(await totals('k')).toEqual({ rows: 10_000, sum: sumOf(0, 10_000) });
  }, 180_000);

  it('nats csv: learned once across a SIGKILL; bad records are rejected into the errorLog and the stream goes on', async () => {
    expect((await alice.createProject('n')).status).toBe(201);
    const js = snc.jetstream();
    const publish = async (from: number, to: number) => {
      for (let i = from; i < to; i++) await js.publish('events.a', new TextEncoder().encode(`${i},${i % 7}`));
    };
    await publish(0, 100); // before the create, learned with fromBeginning=true
    const c = await create('n', { type: 'nats', name: 'sn', info: { nats_hosts: source.url, 'nats.subject': 'events.a', format: 'csv', attributeNames: 'x,y' }, extra: ['C', 'C'] }, true);
    expect(c.status).toBe(201);
    await publish(100, 1000);
    await js.publish('events.a', new TextEncoder().encode('1,2,3'));
    await js.publish('events.a', new TextEncoder().encode('"unterminated,1'));
    await js.publish('events.a', new TextEncoder().encode('abc,1'));
    await until('1000 learned', async () => (await totals('n')).rows === 1000);
    await until('3 rejected', async () => (await metrics('n', 'sn')).recordsRejected === '3');
    const log = (await alice.request<{ stringList: { values: string[] } }>('GET', '/projects/n/streams/sn/errorLog')).body.values!.stringList.values;
    expect(log.join('\n')).toMatch(/3 fields, expected 2/);
    expect(log.join('\n')).toMatch(/unterminated quoted field/);

    const sending = publish(1000, 4000);
    await until('some learned', async () => (await totals('n')).rows > 1500);
    await sys.kill('streams', 'SIGKILL');
    await sending;
    await sys.start('streams');
    await until('4000 learned', async () => (await totals('n')).rows >= 4000, 90_000);
    await sleep(3000);
    expect(await totals('n')).toEqual({ rows: 4000, sum: sumOf(0, 4000) });
    expect(JSON.stringify(await metrics('n', 'sn'))).not.toMatch(/passw/);
  }, 180_000);

  it('a batch too large for one log entry (max_payload, 8 MB here) is learned in halves, none rejected', async () => {
    // Batches are ≤ 4 MiB of records (SML_STREAM_BATCH_BYTES), but a batch is logged as JSON: an
    // ignored text column of 150 000 U+0001 (each \u0001 in JSON) makes 4 MiB of records ≈ 24 MB.
    for (let i = 0; i < 40; i++) await snc.jetstream().publish('events.big', new TextEncoder().encode(`${i},${i % 7},${'\u0001'.repeat(150_000)}`));
    expect((await alice.createProject('big')).status).toBe(201);
    const c = await create('big', { type: 'nats', name: 'sb', info: { nats_hosts: source.url, 'nats.subject': 'events.big', format: 'csv', attributeNames: 'x,y,note' }, extra: ['C', 'C', 'X'] }, true);
    expect(c.status).toBe(201);
    await until('40 records learned', async () => (await totals('big')).rows === 40);
    expect(await totals('big')).toEqual({ rows: 40, sum: sumOf(0, 40) });
    const m = await metrics('big', 'sb');
    expect(Number(m.recordsRejected ?? 0)).toBe(0);
    expect(Number(m.batchesLearned)).toBeGreaterThan(1);
  });

  it('a project deleted under its running stream stops the stream with a clear last error', async () => {
    expect((await alice.createProject('gone')).status).toBe(201);
    expect((await create('gone', { type: 'kafka', name: 'sg', info: { 'bootstrap.servers': kafka.bootstrap, 'kafka.topic': 'tg', attributeNames: 'x,y' } })).status).toBe(201);
    await produceJson('tg', 0, 10);
    await until('10 learned', async () => (await totals('gone')).rows === 10);
    expect((await alice.request('DELETE', '/projects/gone')).status).toBe(200);
    await produceJson('tg', 10, 20);
    await until('stopped', async () => (await metrics('gone', 'sg')).state === 'stopped');
    expect((await metrics('gone', 'sg')).lastError).toBe('Project [gone] no longer exists: the stream stopped');
    expect((await alice.request('DELETE', '/projects/gone/streams/sg')).status).toBe(200);
    expect((await alice.request('GET', '/projects/gone/streams/sg/metrics')).status).toBe(400);
  }, 60_000);

  it("a deleted stream's marks leave its project: the delete logs a dropMarks entry, which a reload replays", async () => {
    expect((await alice.createProject('dm')).status).toBe(201);
    const js = snc.jetstream();
    for (let i = 0; i < 50; i++) await js.publish('events.d', new TextEncoder().encode(`${i},${i % 7}`));
    expect((await create('dm', { type: 'nats', name: 'sd', info: { nats_hosts: source.url, 'nats.subject': 'events.d', format: 'csv', attributeNames: 'x,y' }, extra: ['C', 'C'] }, true)).status).toBe(201);
    await until('50 learned', async () => (await totals('dm')).rows === 50);
    // The project's log, read as the projects service reads it.
    const nc = await connect({ servers: sys.nats.url, ...sys.nats.connectOptions('projects') });
    try {
      const store = await ProjectStore.open(nc);
      const entries = async () => {
        const out = [];
        for await (const e of store.replay('alice', 'dm', 0, await store.logTail('alice', 'dm'))) out.push(e.entry);
        return out;
      };
      const learned = await entries();
      const instances = new Set(learned.map((e) => e.streamPosition?.stream));
      expect(instances.size).toBe(1);
      const [instance] = instances;
      expect(instance).toMatch(/^[0-9a-f]{32}$/);
      expect((await alice.request('DELETE', '/projects/dm/streams/sd')).status).toBe(200);
      const after = await entries();
      expect(after).toHaveLength(learned.length + 1);
      expect(after.at(-1)).toMatchObject({ op: 'dropMarks', streamPosition: { stream: instance } });
      // A reload replays the drop: the project loads, with its rows, and learns on.
      await sys.kill('projects');
      await sys.start('projects');
      expect(await totals('dm')).toEqual({ rows: 50, sum: sumOf(0, 50) });
      expect(sys.logs('projects')).not.toMatch(/quarantin/i);
    } finally {
      await nc.close();
    }
  }, 90_000);
});

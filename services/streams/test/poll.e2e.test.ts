import { Kafka, logLevel, type Producer } from 'kafkajs';
import { connect, type NatsConnection } from 'nats';
import { encryptDsInfo } from '@sml/core';
import { SmlClient } from '@sml/sdk';
import { startKafkaMock, startNatsServer, startSystem, type KafkaMock, type NatsServer, type RunningSystem } from '@sml/testkit';

// API.md §9: Kafka pollers (POST/DELETE /{user}/streams/poll, the three call patterns),
// browse (Kafka topics, NATS streams and subjects) and preview, against kafka-mock and a
// second nats-server -js (the customer's), through the built services.
interface Frame { attributeNames: string[]; attributeTypes: string[]; data: string[][] }
type Listing = { dsdirectoryListing: Record<string, unknown> };

describe('streams poll, browse, preview', () => {
  let sys: RunningSystem;
  let kafka: KafkaMock;
  let producer: Producer;
  let source: NatsServer;
  let snc: NatsConnection;
  let alice: SmlClient;
  let secret: string;

  beforeAll(async () => {
    [kafka, source] = await Promise.all([startKafkaMock(), startNatsServer()]);
    sys = await startSystem({ services: ['users', 'jobs', 'projects', 'streams'], env: { KAFKAJS_NO_PARTITIONER_WARNING: '1' } });
    const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
    secret = String(((await root.addUser('alice')).body.values as { secretKey: string }).secretKey);
    alice = new SmlClient({ url: sys.url, user: 'alice', secret });
    producer = new Kafka({ brokers: kafka.bootstrap.split(','), clientId: 'test', logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    snc = await connect({ servers: source.url });
    await (await snc.jetstreamManager()).streams.add({ name: 'EVENTS', subjects: ['events.>'] });
    await (await snc.jetstreamManager()).streams.add({ name: 'OTHER', subjects: ['other.a', 'other.b'] });
  }, 60_000);
  afterAll(async () => {
    await producer?.disconnect();
    await snc?.close();
    await sys?.stop();
    await Promise.all([kafka?.stop(), source?.stop()]);
  });

  const produce = (topic: string, from: number, to: number) =>
    producer.send({ topic, messages: Array.from({ length: to - from }, (_, k) => ({ value: JSON.stringify({ x: from + k, y: `v${(from + k) % 3}` }) })) });
  const kafkaDs = (name: string, topic: string, type = 'kafka', extra: Record<string, string> = {}) =>
    ({ type, name, info: { 'bootstrap.servers': kafka.bootstrap, 'kafka.topic': topic, ...extra } });
  const poll = (options: { ds?: object; query?: string }) =>
    alice.request<{ dataframe: Frame }>('POST', '/streams/poll', { query: options.query ?? '', ...(options.ds ? { raw: encryptDsInfo(options.ds, secret) } : {}) });
  const xs = (f: Frame) => f.data.map((r) => Number(r[f.attributeNames.indexOf('x')]));
  const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
  // kafka-mock topics have 4 partitions: records come in order per partition only.
  const sorted = (a: number[]) => [...a].sort((p, q) => p - q);
  /** Polls `name` until `count` records came (or 30 polls). */
  async function pollAll(count: number, options: { ds?: object; query?: string }): Promise<number[]> {
    const got: number[] = [];
    for (let i = 0; i < 30 && got.length < count; i++) {
      const r = await poll(options);
      expect(r.status).toBe(200);
      got.push(...xs(r.body.values!.dataframe));
    }
    return got;
  }

  it('DELETE poll: no sid 500, an unknown sid 200 OK', async () => {
    expect((await alice.request('DELETE', '/streams/poll')).status).toBe(500);
    const r = await alice.request('DELETE', '/streams/poll', { query: 'sid=never-polled' });
    expect([r.status, r.body.statusString]).toEqual([200, 'OK']);
  });

  it('a body of type kafka-poll is polled and answered 400 with its dataframe; polls continue where they left off', async () => {
    const empty = await poll({ ds: kafkaDs('fresh', 'never-produced', 'kafka-poll') });
    expect([empty.status, empty.body.statusString]).toEqual([400, 'Preview invalid DS Stream type [kafka-poll]']);
    expect(empty.body.values?.dataframe).toEqual({ attributeNames: [], attributeTypes: [], data: [], errorHandling: 0 });

    await produce('pt', 0, 1200);
    const first = await poll({ ds: kafkaDs('p1', 'pt', 'kafka-poll'), query: 'fromBeginning=true' });
    expect(first.status).toBe(400);
    expect(first.body.values!.dataframe.attributeNames).toEqual(['x', 'y']);
    expect(first.body.values!.dataframe.attributeTypes).toEqual(['C', 'S']);
    const seen = xs(first.body.values!.dataframe);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.length).toBeLessThanOrEqual(500);
    while (seen.length < 1200) {
      const r = await poll({ ds: kafkaDs('p1', 'pt') }); // type kafka: 200; same name, same poller
      expect(r.status).toBe(200);
      const got = xs(r.body.values!.dataframe);
      expect(got.length).toBeGreaterThan(0);
      seen.push(...got);
    }
    expect(sorted(seen)).toEqual(range(0, 1200));
    await produce('pt', 1200, 1250);
    expect(sorted(await pollAll(50, { ds: kafkaDs('p1', 'pt') }))).toEqual(range(1200, 1250));

    // Without fromBeginning, a new poller reads what is produced after its first poll.
    const none = await poll({ ds: kafkaDs('p2', 'pt') });
    expect(none.body.values!.dataframe.data).toEqual([]);
    await produce('pt', 1250, 1260);
    expect(sorted(await pollAll(10, { ds: kafkaDs('p2', 'pt') }))).toEqual(range(1250, 1260));

    // DELETE evicts: the next poll of that name starts a new poller (from the beginning here).
    expect((await alice.request('DELETE', '/streams/poll', { query: 'sid=p1' })).status).toBe(200);
    expect(sorted(await pollAll(1260, { ds: kafkaDs('p1', 'pt'), query: 'fromBeginning=true' }))).toEqual(range(0, 1260));
    // Another customer's poller of the same name is its own: it starts at the beginning, not at alice's positions.
    const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
    const bobSecret = String(((await root.addUser('bob')).body.values as { secretKey: string }).secretKey);
    const bob = new SmlClient({ url: sys.url, user: 'bob', secret: bobSecret });
    const bobSeen: number[] = [];
    for (let i = 0; i < 30 && bobSeen.length < 1260; i++) {
      const r = await bob.request<{ dataframe: Frame }>('POST', '/streams/poll', { query: 'fromBeginning=true', raw: encryptDsInfo(kafkaDs('p1', 'pt'), bobSecret) });
      expect(r.status).toBe(200);
      bobSeen.push(...xs(r.body.values!.dataframe));
    }
    expect(sorted(bobSeen)).toEqual(range(0, 1260));
    // The DSInfo's auto.offset.reset=earliest asks the same as fromBeginning.
    expect(sorted(await pollAll(1260, { ds: kafkaDs('p3', 'pt', 'kafka', { 'auto.offset.reset': 'earliest' }) }))).toEqual(range(0, 1260));
  }, 120_000);

  it('sid names a registered kafka data source and wins over the body; DELETE removes both poller and data source', async () => {
    await produce('st', 0, 30);
    expect((await alice.request('POST', '/dss/create', { raw: encryptDsInfo(kafkaDs('kds', 'st', 'kafka', { attributeNames: 'x' }), secret) })).status).toBe(201);
    expect((await alice.request<{ stringList: { values: string[] } }>('GET', '/dss')).body.values!.stringList.values).toContain('kds:kafka');
    const r = await poll({ query: 'sid=kds&fromBeginning=true', ds: { type: 'mqtt', name: 'ignored', info: {} } });
    expect(r.status).toBe(200);
    expect(r.body.values!.dataframe.attributeNames).toEqual(['x']);
    const first = xs(r.body.values!.dataframe);
    expect(sorted([...first, ...await pollAll(30 - first.length, { query: 'sid=kds' })])).toEqual(range(0, 30));
    // learnds cannot read it (only the streams service does), and it is not a stream.
    expect((await poll({ query: 'sid=nope' })).status).toBe(400);
    const d = await alice.request('DELETE', '/streams/poll', { query: 'sid=kds' });
    expect([d.status, d.body.statusString]).toEqual([200, 'OK']);
    expect((await alice.request<{ stringList: { values: string[] } }>('GET', '/dss')).body.values!.stringList.values).not.toContain('kds:kafka');
    expect((await poll({ query: 'sid=kds' })).status).toBe(400);
  }, 60_000);

  it('other body types are refused; an unreachable broker is 500', async () => {
    const r = await poll({ ds: { type: 'nats', name: 'n', info: {} } });
    expect([r.status, r.body.statusString]).toEqual([400, 'Preview invalid DS Stream type [nats]']);
    expect(r.body.values).toEqual({});
    const u = await poll({ ds: { type: 'kafka', name: 'u', info: { 'bootstrap.servers': '127.0.0.1:1', 'kafka.topic': 't' } } });
    expect(u.status).toBe(500);
    // sml.kafka.* passthrough: an unread key is 400 naming it; TLS to a plaintext broker fails the handshake: 500.
    const key = await poll({ ds: kafkaDs('k', 'pt', 'kafka', { 'sml.kafka.fetch.min.bytes': '1' }) });
    expect([key.status, key.body.statusString]).toEqual([400, expect.stringContaining('info sml.kafka.fetch.min.bytes is not supported')]);
    const tls = await poll({ ds: kafkaDs('tls', 'pt', 'kafka', { 'sml.kafka.security.protocol': 'SSL' }) });
    expect([tls.status, tls.body.statusString]).toEqual([500, expect.stringContaining('Cannot build the Kafka consumer of topic [pt]')]);
  }, 60_000);

  it('browse: Kafka topics with their partitions (no _ topics), NATS streams and a stream\'s subjects', async () => {
    await produce('bt', 0, 1);
    const k = await alice.request<Listing>('POST', '/streams/browse', { raw: encryptDsInfo({ type: 'kafka', name: 'b', info: { 'bootstrap.servers': kafka.bootstrap }, path: 'ignored' }, secret) });
    expect(k.status).toBe(200);
    const files = k.body.values!.dsdirectoryListing.files as string[];
    expect(files).toContain('bt:4');
    expect(files.some((f) => f.startsWith('_'))).toBe(false);
    expect(Object.keys(k.body.values!.dsdirectoryListing).sort()).toEqual(['files', 'ok']);
    const browse = async (path?: string) => (await alice.request<Listing>('POST', '/streams/browse', { raw: encryptDsInfo({ type: 'nats', name: 'b', info: { nats_hosts: source.url, ...(path ? { path } : {}) } }, secret) }));
    expect((await browse()).body.values).toEqual({ dsdirectoryListing: { ok: true, dirs: ['EVENTS', 'OTHER'] } });
    expect((await browse('OTHER')).body.values).toEqual({ dsdirectoryListing: { ok: true, files: ['other.a', 'other.b'], path: 'OTHER' } });
    const unknown = await browse('NOPE');
    expect([unknown.status, unknown.body.values]).toEqual([200, { dsdirectoryListing: { ok: true } }]);
  }, 60_000);

  it('preview: a sample of a topic or subject, nothing registered, no poller touched', async () => {
    await produce('pv', 0, 300);
    const k = await alice.request<{ dataframe: Frame }>('POST', '/streams/preview', { raw: encryptDsInfo(kafkaDs('pv', 'pv'), secret) });
    expect(k.status).toBe(200);
    const sample = xs(k.body.values!.dataframe);
    expect(sample.length).toBe(128);
    expect(new Set(sample).size).toBe(128);
    expect(sample.every((x) => x >= 0 && x < 300)).toBe(true);
    const js = snc.jetstream();
    for (let i = 0; i < 5; i++) await js.publish('events.pv', new TextEncoder().encode(`${i},a${i}`));
    const n = await alice.request<{ dataframe: Frame }>('POST', '/streams/preview', { raw: encryptDsInfo({ type: 'nats', name: 'npv', info: { nats_hosts: source.url, 'nats.subject': 'events.pv', format: 'csv' } }, secret) });
    expect([n.status, n.body.statusString]).toEqual([200, 'OK']);
    expect(n.body.values!.dataframe).toMatchObject({ attributeNames: ['f1', 'f2'], attributeTypes: ['C', 'S'], data: range(0, 5).map((i) => [String(i), `a${i}`]) });
    expect((await alice.request<{ stringList: { values: string[] } }>('GET', '/dss')).body.values!.stringList.values).toEqual([]);
    // The poller named pv (if any) is untouched: a first poll of it starts from the beginning.
    expect(sorted(await pollAll(300, { ds: kafkaDs('pv', 'pv'), query: 'fromBeginning=true' }))).toEqual(range(0, 300));
  }, 60_000);
});

import { StorageType, type KV, type NatsConnection } from 'nats';
import { sml } from '@sml/proto';
import { BusClient, BusHealth, BusService, connectBus, followKv, kvBucket } from '@sml/bus';
import { startNatsServer, type NatsServer } from '@sml/testkit';
import { log, until } from './helpers';

const caller = { user: 'c1', root: false, requestId: 'r1' };
const BUCKET = 'sml_test_memory';

describe('a nats-server restart', () => {
  let nats: NatsServer;
  let serviceNc: NatsConnection;
  let clientNc: NatsConnection;
  let service: BusService;
  let client: BusClient;

  beforeAll(async () => {
    nats = await startNatsServer();
    // connectBus: what every service uses, reconnecting for ever.
    serviceNc = await connectBus({ url: nats.url, name: 'reconnect-service', log });
    clientNc = await connectBus({ url: nats.url, name: 'reconnect-client', log });
    // As runService does: each connection's health follows its status from the start.
    for (const nc of [serviceNc, clientNc]) BusHealth.of(nc, log);
    service = await BusService.start(serviceNc, { name: 'echo', log });
    service.endpoint('sml.echo.get', sml.v1.JobGetRequest, sml.v1.JobListReply, (req) => ({ jobinfolist: [{ jobId: req.jobId }] }));
    await serviceNc.flush();
    client = new BusClient(clientNc, { timeoutMs: 2000, resetMs: 60_000 });
  });

  afterAll(async () => {
    client.close();
    await service.stop().catch(() => undefined);
    await serviceNc.close();
    await clientNc.close();
    await nats.stop();
  });

  const echo = (jobId: number) => client.request('echo', 'sml.echo.get', sml.v1.JobGetRequest, { caller, jobId }, sml.v1.JobListReply);

  it('a BusService keeps answering after a hard restart; meanwhile calls fail at once with 503 naming NATS and leave the breaker closed', async () => {
    expect((await echo(1)).jobinfolist).toEqual([expect.objectContaining({ jobId: 1 })]);
    const health = BusHealth.of(clientNc);
    await nats.restart({
      hard: true,
      whileDown: async () => {
        await until('the client sees the disconnect', () => (health.connected ? undefined : true));
        for (let i = 0; i < 6; i++) {
          const err = await echo(2).catch((e) => e);
          expect(err).toEqual(expect.objectContaining({ code: 'NATS_UNAVAILABLE', status: 503, retryable: true, message: 'NATS is unavailable (connection lost); retry later' }));
        }
        expect(client.breakerOpen('sml.echo.get')).toBe(false);
      },
    });
    // Both connections back (the service's subscriptions are sent again as it reconnects):
    // the first call answers, without retries that could count against the breaker.
    await until('both reconnected', () => (health.connected && BusHealth.of(serviceNc).connected ? true : undefined));
    await serviceNc.flush();
    expect((await echo(3)).jobinfolist).toEqual([expect.objectContaining({ jobId: 3 })]);
    expect(client.breakerOpen('sml.echo.get')).toBe(false);
  });
});

describe('BusHealth re-ensures JetStream resources', () => {
  let nats: NatsServer;
  let nc: NatsConnection;
  let kv: KV;
  let health: BusHealth;
  let ensured = 0;
  let resets = 0;
  const seen: string[] = [];
  let watch: { stop(): void };

  beforeAll(async () => {
    nats = await startNatsServer();
    nc = await connectBus({ url: nats.url, name: 'reconnect-health', log });
    health = BusHealth.of(nc, log);
    health.onEnsured(() => ensured++);
    kv = await kvBucket(nc, BUCKET, { storage: StorageType.Memory });
    watch = await followKv(nc, kv, { key: '>' }, (e) => seen.push(`${e.operation} ${e.key}`), { onReset: () => resets++ });
    await kv.put('before', 'x');
    await until('the watch sees the first key', () => (seen.includes('PUT before') ? true : undefined));
  });

  afterAll(async () => {
    watch.stop();
    await nc.close();
    await nats.stop();
  });

  it('a memory-storage KV bucket lost by a hard restart is created again and its watch follows it again', async () => {
    expect(await health.missing()).toEqual([]);
    await nats.restart({
      hard: true,
      // While disconnected every registered resource reads as missing.
      whileDown: async () => {
        await until('the disconnect', () => (health.connected ? undefined : true));
        expect(await health.missing()).toEqual([`kv ${BUCKET}`]);
      },
    });
    await until('the resources ensured again', () => (ensured >= 1 ? true : undefined));
    expect(await health.missing()).toEqual([]);
    // Created again, empty: the restart lost what memory storage held.
    expect(await kv.get('before')).toBeNull();
    expect(resets).toBe(1);
    await kv.put('after', 'y');
    await until('the watch sees a key put after the restart', () => (seen.includes('PUT after') ? true : undefined));
  });

  it('a bucket deleted while connected is named by missing() and created again', async () => {
    const before = ensured;
    await (await nc.jetstreamManager()).streams.delete(`KV_${BUCKET}`);
    expect(await health.missing()).toEqual([`kv ${BUCKET}`]);
    await until('re-created', async () => ((await health.missing()).length === 0 && ensured > before ? true : undefined));
    await kv.put('again', 'z');
    expect((await kv.get('again'))?.string()).toBe('z');
  });

  it('a handler that meets a missing bucket answers a retryable 503 naming NATS (not a 500), and the bucket is created again', async () => {
    const service = await BusService.start(nc, { name: 'writer', log });
    service.endpoint('sml.writer.put', sml.v1.JobGetRequest, sml.v1.JobGetReply, async (req) => {
      await kv.put('written', String(req.jobId));
      return {};
    });
    await nc.flush();
    const client = new BusClient(nc, { timeoutMs: 2000, resetMs: 1000 });
    const put = (jobId: number) => client.request('writer', 'sml.writer.put', sml.v1.JobGetRequest, { caller, jobId }, sml.v1.JobGetReply);
    expect((await put(1)).status?.code).toBe(200);
    await (await nc.jetstreamManager()).streams.delete(`KV_${BUCKET}`);
    const reply = await put(2);
    expect(reply.status).toEqual(expect.objectContaining({ code: 503, errorCode: 'NATS_UNAVAILABLE', retryable: true }));
    expect(reply.status?.message).toMatch(/^NATS is unavailable \(no JetStream responder/);
    const again = await until('the bucket is back and the handler succeeds', async () => {
      const r = await put(3);
      return r.status?.code === 200 ? r : undefined;
    });
    expect(again.status?.code).toBe(200);
    expect((await kv.get('written'))?.string()).toBe('3');
    const stats = await service.service.stats();
    expect(stats.endpoints?.find((e) => e.subject === 'sml.writer.put')?.data).toEqual(expect.objectContaining({ crashes: 0 }));
    client.close();
    await service.stop();
  });
});

import { randomBytes } from 'node:crypto';
import { connect, type Msg, type NatsConnection } from 'nats';
import { sml } from '@sml/proto';
import { BusClient, BusService, REQUEST_ID_HEADER, SPILL_HEADER, Spill, unwrap } from '@sml/bus';
import { startNatsServer, type NatsServer } from '@sml/testkit';
import { log, until } from './helpers';

const caller = { user: 'c1', root: false, requestId: 'r1' };
const BUCKET = 'sml_bus_spill';
const MAX_PAYLOAD = 128 * 1024;

/** What crossed the wire on one subject: the body's size and whether it named a spill entry. */
interface Seen { subject: string; requestId?: string; bytes: number; spilled: boolean }

/** Entries of the spill bucket that are not deleted, and chunk subjects still stored. */
async function leftovers(nc: NatsConnection): Promise<{ entries: string[]; chunkSubjects: string[] }> {
  const os = await nc.jetstream().views.os(BUCKET);
  const entries = (await os.list()).map((e) => e.name);
  const info = await (await nc.jetstreamManager()).streams.info(`OBJ_${BUCKET}`, { subjects_filter: `$O.${BUCKET}.C.>` });
  return { entries, chunkSubjects: Object.keys(info.state.subjects ?? {}) };
}

describe('large payloads spill through the object store', () => {
  let nats: NatsServer;
  let serviceNc: NatsConnection;
  let clientNc: NatsConnection;
  let sniffer: NatsConnection;
  let service: BusService;
  let client: BusClient;
  const seen: Seen[] = [];
  const bigReply = randomBytes(3 * MAX_PAYLOAD);

  beforeAll(async () => {
    nats = await startNatsServer({ maxPayload: '128KB' });
    serviceNc = await connect({ servers: nats.url });
    clientNc = await connect({ servers: nats.url });
    sniffer = await connect({ servers: nats.url });
    // Sees every request and every reply as the server delivers them.
    const record = (_err: unknown, m: Msg) => seen.push({
      subject: m.subject, requestId: m.headers?.get(REQUEST_ID_HEADER), bytes: m.data.length, spilled: !!m.headers?.get(SPILL_HEADER),
    });
    sniffer.subscribe('sml.big.>', { callback: record });
    sniffer.subscribe('_INBOX.>', { callback: record });
    await sniffer.flush();
    service = await BusService.start(serviceNc, { name: 'big', log });
    // `pid` chooses the reply: the request's bytes back, a reply of 3× max_payload, or a small one.
    service.endpoint('sml.big.echo', sml.v1.LearnRequest, sml.v1.JobGetReply, (req) => ({
      result: { typeName: 'bytes', payload: req.pid === 'echo' ? req.frameJson : req.pid === 'big' ? bigReply : new Uint8Array([1, 2, 3]) },
    }));
    await serviceNc.flush();
    client = new BusClient(clientNc, { timeoutMs: 10_000, resetMs: 1000 });
  });

  afterAll(async () => {
    client.close();
    await service.stop();
    for (const nc of [serviceNc, clientNc, sniffer]) await nc.close();
    await nats.stop();
  });

  let calls = 0;
  let lastRequestId = '';
  const call = (pid: string, frameJson: Uint8Array) => {
    lastRequestId = `spill-${++calls}`;
    return client.request('big', 'sml.big.echo', sml.v1.LearnRequest, { caller, pid, frameJson }, sml.v1.JobGetReply, { requestId: lastRequestId }).then(unwrap);
  };

  /** The request and the reply of the call `run` makes, as the sniffer saw them (JetStream's own traffic aside). */
  async function wire(run: () => Promise<unknown>): Promise<{ request: Seen; reply: Seen }> {
    await run();
    await sniffer.flush();
    const mine = await until('request and reply seen', () => {
      const both = seen.filter((s) => s.requestId === lastRequestId);
      return both.length === 2 ? both : undefined;
    });
    return { request: mine.find((s) => s.subject === 'sml.big.echo')!, reply: mine.find((s) => s.subject.startsWith('_INBOX.'))! };
  }

  it('the limit leaves room for headers under the server max_payload; a payload at the limit travels inline, one byte more spills', async () => {
    const spill = new Spill(clientNc);
    expect(clientNc.info?.max_payload).toBe(MAX_PAYLOAD);
    expect(spill.limit).toBe(MAX_PAYLOAD - 64 * 1024);
    const at = await spill.pack(new Uint8Array(spill.limit));
    expect(at.headers.get(SPILL_HEADER)).toBe('');
    expect(at.data.length).toBe(spill.limit);
    const over = await spill.pack(new Uint8Array(spill.limit + 1));
    expect(over.headers.get(SPILL_HEADER)).not.toBe('');
    expect(over.data.length).toBe(0);
    expect(await spill.unpack(over)).toEqual(new Uint8Array(spill.limit + 1));
  });

  it('a request and its reply of 3× max_payload round-trip byte for byte, each spilled', async () => {
    const body = randomBytes(3 * MAX_PAYLOAD);
    let reply: sml.v1.IJobGetReply | undefined;
    const { request, reply: back } = await wire(async () => { reply = await call('echo', body); });
    expect(Buffer.from(reply!.result!.payload!).equals(body)).toBe(true);
    expect(request).toEqual(expect.objectContaining({ spilled: true, bytes: 0 }));
    expect(back).toEqual(expect.objectContaining({ spilled: true, bytes: 0 }));
  });

  it('only the direction over the limit spills: a large request with a small reply, a small request with a large reply', async () => {
    const large = await wire(() => call('small', randomBytes(3 * MAX_PAYLOAD)));
    expect(large.request.spilled).toBe(true);
    expect(large.reply.spilled).toBe(false);
    expect(large.reply.bytes).toBeGreaterThan(0);

    let reply: sml.v1.IJobGetReply | undefined;
    const small = await wire(async () => { reply = await call('big', new Uint8Array(10)); });
    expect(small.request.spilled).toBe(false);
    expect(small.reply.spilled).toBe(true);
    expect(Buffer.from(reply!.result!.payload!).equals(bigReply)).toBe(true);
  });

  it('every entry is removed once read, and the bucket expires what is never read after 15 minutes', async () => {
    expect(await leftovers(clientNc)).toEqual({ entries: [], chunkSubjects: [] });
    const info = await (await clientNc.jetstreamManager()).streams.info(`OBJ_${BUCKET}`);
    expect(info.config.max_age).toBe(15 * 60 * 1e9);
  });
});

describe('an abandoned spill entry', () => {
  let nats: NatsServer;
  let nc: NatsConnection;

  beforeAll(async () => {
    nats = await startNatsServer({ maxPayload: '128KB' });
    nc = await connect({ servers: nats.url });
  });

  afterAll(async () => {
    await nc.close();
    await nats.stop();
  });

  it('of a request nobody answered is removed by the bucket TTL', async () => {
    // The bucket as Spill would open it, but with a 1 s TTL instead of 15 minutes.
    await nc.jetstream().views.os(BUCKET, { ttl: 1e9 });
    const spilled: string[] = [];
    const mute = nc.subscribe('sml.mute.get', { callback: (_err, m) => spilled.push(m.headers?.get(SPILL_HEADER) ?? '') });
    await nc.flush();
    const client = new BusClient(nc, { timeoutMs: 300, resetMs: 1000 });
    const err = await client.request('mute', 'sml.mute.get', sml.v1.LearnRequest, { caller, frameJson: randomBytes(3 * MAX_PAYLOAD) }, sml.v1.JobGetReply).catch((e) => e);
    expect(err).toEqual(expect.objectContaining({ code: 'SERVICE_TIMEOUT', status: 503 }));
    expect(spilled).toEqual([expect.stringMatching(/./)]);
    // The stream's state, not os.list(): a listing can wait for ever on an entry that expires under it.
    const stored = async () => (await (await nc.jetstreamManager()).streams.info(`OBJ_${BUCKET}`)).state.messages;
    await until('abandoned entry expired', async () => ((await stored()) === 0 ? true : undefined));
    client.close();
    mute.unsubscribe();
  });
});

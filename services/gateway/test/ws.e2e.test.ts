import { SmlClient } from '@sml/sdk';
import { newCustomer, sharedSystem, type SharedSystem } from '@sml/testkit';
import { SummaryReader } from '../../projects/test/helpers';
import { WsClient, wsMessage, type WsSigner } from './ws-client';

// The WebSocket API (API.md §12) against real processes: the gateway, jobs and projects.
describe('WebSocket API end to end', () => {
  let sys: SharedSystem;
  let reader: SummaryReader;
  const who: Record<'alice' | 'bob', WsSigner & { sdk: SmlClient }> = {} as never;
  const wsUrl = (op: string) => `${sys.url.replace(/^http/, 'ws')}/symetry/ws/${op}`;

  // y = 1 + 2·x1 − x2 + noise, in batches of 25 rows.
  const batch = (k: number) => JSON.stringify({
    attributeNames: ['x1', 'x2', 'y'], attributeTypes: ['C', 'C', 'C'],
    data: Array.from({ length: 25 }, (_, j) => {
      const i = k * 25 + j;
      const x1 = (i % 17) / 3;
      const x2 = ((i * 7) % 11) / 2;
      return [String(x1), String(x2), String(1 + 2 * x1 - x2 + ((i % 5) - 2) * 0.1)];
    }),
  });
  const BATCHES = 24;

  const customer = async (name: 'alice' | 'bob') => {
    who[name] = await newCustomer(sys, name);
  };
  const info = async (pid: string) => (await who.alice.sdk.projectInfo(pid, { hash: true })).body.values as { smlInfo: { hash: number; attributeNames: string[] } };

  beforeAll(async () => {
    // Two messages in flight per connection at most, three connections per customer.
    sys = await sharedSystem('small-bodies');
    reader = await SummaryReader.open(sys.nats);
    await customer('alice');
    await customer('bob');
    for (const pid of ['viaWs', 'viaRest']) expect((await who.alice.sdk.createProject(pid)).status).toBe(201);
  });
  afterAll(async () => {
    await reader?.close();
    who.alice?.sdk.close();
    who.bob?.sdk.close();
  });

  it('pipelined learn messages are answered in order and learn what REST learns', async () => {
    const c = await WsClient.open(wsUrl('learn'));
    for (let k = 0; k < BATCHES; k++) c.send(wsMessage(who.alice, 'learn', batch(k), ['viaWs']));
    for (let k = 0; k < BATCHES; k++) expect(await c.next()).toEqual({ statusCode: 200, statusString: 'OK', values: {} });
    c.close();
    for (let k = 0; k < BATCHES; k++) expect((await who.alice.sdk.learn('viaRest', JSON.parse(batch(k)))).status).toBe(200);

    const [ws, rest] = [await reader.full(who.alice.user, 'viaWs'), await reader.full(who.alice.user, 'viaRest')];
    expect(ws.rowCount).toBe(BATCHES * 25);
    expect(ws.rowCount).toBe(rest.rowCount);
    expect((await info('viaWs')).smlInfo.hash).toBe((await info('viaRest')).smlInfo.hash);
  });

  it('forget over the WebSocket is the inverse of learn, as over REST', async () => {
    const c = await WsClient.open(wsUrl('forget'));
    c.send(wsMessage(who.alice, 'forget', batch(0), ['viaWs']));
    expect(await c.next()).toMatchObject({ statusCode: 200, statusString: 'OK' });
    c.close();
    expect((await who.alice.sdk.forget('viaRest', JSON.parse(batch(0)))).status).toBe(200);
    expect((await reader.full(who.alice.user, 'viaWs')).rowCount).toBe((BATCHES - 1) * 25);
    expect((await info('viaWs')).smlInfo.hash).toBe((await info('viaRest')).smlInfo.hash);
  });

  it("accepts the Rust client's form (full ws:// URL signed, a newline after every key)", async () => {
    const c = await WsClient.open(wsUrl('learn'));
    c.send(wsMessage(who.alice, 'learn', batch(100), ['viaWs'], { servicePath: wsUrl('learn'), trailingNewline: true }));
    expect(await c.next()).toMatchObject({ statusCode: 200, statusString: 'OK' });
    c.close();
  });

  it('a forged signature, a replayed message, a stale date and bad framing each get their envelope; the connection stays usable', async () => {
    const before = (await reader.full(who.alice.user, 'viaWs')).rowCount;
    const c = await WsClient.open(wsUrl('learn'));
    const good = wsMessage(who.alice, 'learn', batch(200), ['viaWs']);
    c.send(wsMessage(who.alice, 'learn', batch(201), ['viaWs'], { signWith: who.bob.secret }));
    c.send(good);
    const forged = await c.next();
    expect(forged).toMatchObject({ statusCode: 401, statusString: 'Invalid Signature' });
    expect(forged.values.stringToSign).toContain('\nSECRETKEY\n');
    expect(forged.values.stringToSign).not.toContain(who.alice.secret);
    expect(await c.next()).toMatchObject({ statusCode: 200 });
    c.send(good);
    c.send(wsMessage(who.alice, 'learn', batch(202), ['viaWs'], { dateOffsetMs: -10 * 60_000 }));
    c.send('not a message');
    c.send('9999,{}');
    c.send(wsMessage(who.alice, 'learn', '{"attributeNames":["x1"],"attributeTypes":["C"],"data":[["abc"]]}', ['viaWs']));
    c.send(wsMessage(who.alice, 'learn', batch(203), ['viaWs']));

    expect(await c.next()).toMatchObject({ statusCode: 401, statusString: 'Replayed request' });
    expect(await c.next()).toMatchObject({ statusCode: 400, statusString: 'Please update your server time, it is likely out of sync with UTC' });
    expect(await c.next()).toMatchObject({ statusCode: 400, statusString: expect.stringContaining('<header length>,<header JSON>') });
    expect(await c.next()).toMatchObject({ statusCode: 400, statusString: expect.stringContaining('header length 9999') });
    expect(await c.next()).toMatchObject({ statusCode: 400 });
    expect(await c.next()).toMatchObject({ statusCode: 200 });
    expect(c.closed).toBeUndefined();
    c.close();
    expect((await reader.full(who.alice.user, 'viaWs')).rowCount).toBe(before + 50);
  });

  it("another customer's project is not found from the WebSocket either", async () => {
    const before = await info('viaWs');
    const c = await WsClient.open(wsUrl('learn'));
    c.send(wsMessage(who.bob, 'learn', batch(300), ['viaWs']));
    expect(await c.next()).toEqual({ statusCode: 400, statusString: `Cannot Find Project id[viaWs] for Customer id [${who.bob.user}]`, values: {} });
    // A connection speaks for one customer: alice cannot take over bob's.
    c.send(wsMessage(who.alice, 'learn', batch(300), ['viaWs']));
    expect(await c.next()).toMatchObject({ statusCode: 401, statusString: `Customer-ID header [${who.alice.user}] does not match the user in the path [${who.bob.user}]` });
    c.close();
    expect((await info('viaWs')).smlInfo.hash).toBe(before.smlInfo.hash);
  });

  it('a message without header speaks as the connection’s first; a first message without header is refused', async () => {
    const before = (await reader.full(who.alice.user, 'viaWs')).rowCount;
    const c = await WsClient.open(wsUrl('learn'));
    c.send(`0,${batch(400)}`);
    expect(await c.next()).toMatchObject({ statusCode: 400, statusString: expect.stringContaining('must carry its header') });
    c.send(wsMessage(who.alice, 'learn', batch(401), ['viaWs']));
    c.send(batch(402));
    expect(await c.next()).toMatchObject({ statusCode: 200 });
    expect(await c.next()).toMatchObject({ statusCode: 200 });
    c.close();
    expect((await reader.full(who.alice.user, 'viaWs')).rowCount).toBe(before + 50);
  });

  it('predict over the WebSocket answers what REST predict answers', async () => {
    const built = await who.alice.sdk.request('POST', '/projects/viaRest/build', { query: { modelid: 'm', algo: 'mlr' }, json: { inputAttributeNames: ['x1', 'x2'], targetAttributeNames: ['y'], extraParameters: {} } });
    expect(built.status).toBe(202);
    expect((await who.alice.sdk.waitForJob(built)).status).toBe(200);
    const frame = JSON.stringify({ attributeNames: ['x1', 'x2'], attributeTypes: ['C', 'C'], data: [['1', '2'], ['3.5', '0.25'], ['', '1']] });
    const rest = await who.alice.sdk.request('POST', '/projects/viaRest/predict/m', { raw: frame, headers: { 'content-type': 'application/json' } });
    expect(rest.status).toBe(200);
    const c = await WsClient.open(wsUrl('predict'));
    c.send(wsMessage(who.alice, 'predict', frame, ['viaRest', 'm']));
    c.send(wsMessage(who.alice, 'predict', frame, ['viaRest']));
    expect(await c.next()).toEqual(rest.body);
    expect(await c.next()).toMatchObject({ statusCode: 400, statusString: 'WebSocket predict needs extraKeys [pid, m], got 1' });
    c.close();
  });

  it('bounds the connections of a customer and the size of a message', async () => {
    const open = await Promise.all([0, 1, 2].map(() => WsClient.open(wsUrl('learn'))));
    for (const [i, c] of open.entries()) c.send(wsMessage(who.bob, 'learn', batch(500 + i), ['bobs']));
    for (const c of open) expect(await c.next()).toMatchObject({ statusCode: 400, statusString: `Cannot Find Project id[bobs] for Customer id [${who.bob.user}]` });
    const fourth = await WsClient.open(wsUrl('learn'));
    fourth.send(wsMessage(who.bob, 'learn', batch(600), ['bobs']));
    expect(await fourth.next()).toMatchObject({ statusCode: 400, statusString: expect.stringContaining('SML_WS_MAX_CONNECTIONS_PER_CUSTOMER = 3') });
    expect((await fourth.whenClosed()).code).toBe(1008);
    // Alice's connections are not bob's.
    const a = await WsClient.open(wsUrl('learn'));
    // A first message that carries its batch, read from its header within SML_WS_UNAUTHENTICATED_MAX_BYTES.
    a.send(wsMessage(who.alice, 'learn', batch(602), ['viaWs']));
    expect(await a.next()).toMatchObject({ statusCode: 200 });
    const big = JSON.stringify({ attributeNames: ['x1'], attributeTypes: ['C'], data: Array.from({ length: 21_000 }, () => ['1.2345']) });
    a.send(wsMessage(who.alice, 'learn', big, ['viaWs']));
    expect(await a.next()).toMatchObject({ statusCode: 413 });
    a.send(wsMessage(who.alice, 'learn', batch(601), ['viaWs']));
    expect(await a.next()).toMatchObject({ statusCode: 200 });
    for (const c of [...open, a]) c.close();
  });

  it("GET /projects/list (SymetryML's path) lists the caller's projects", async () => {
    const r = await who.alice.sdk.request('GET', '/projects/list');
    expect(r.body).toEqual({ statusCode: 200, statusString: 'OK', values: { stringList: { values: ['viaRest', 'viaWs'] } } });
  });

  it('answers 404 to an upgrade of another path', async () => {
    await expect(WsClient.open(`${sys.url.replace(/^http/, 'ws')}/symetry/ws/explore`)).rejects.toThrow(/404/);
  });
});

import { connect, type KV, type NatsConnection } from 'nats';
import { sml } from '@sml/proto';
import { ALGORITHMS, EvtWrapper, Summary, type Model } from '@sml/stats';
import { startNatsServer, type NatsServer } from '@sml/testkit';
import { ModelStore } from '../src/store/model-store';

/** An mlr model of y on x, from rows where y = slope·x + 1. */
function mlrOf(slope: number): Model {
  const s = new Summary();
  s.learn({ attributeNames: ['x', 'y'], attributeTypes: ['C', 'C'], data: [1, 2, 3, 4].map((x) => [String(x), String(slope * x + 1)]) });
  return ALGORITHMS.mlr.build(s, { algo: 'mlr', inputs: [0], targets: [1], params: {} });
}
const info = { modelId: 'm', algo: 'mlr', creationDate: Date.now() };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The slope a cached or restored mlr model answers with (its state's coefficients). */
const slopeOf = (m: Model) => (m.state() as { coef: number[] }).coef[0];

describe('ModelStore: its cache of models against two replicas on a real JetStream', () => {
  let nats: NatsServer;
  let ncA: NatsConnection;
  let ncB: NatsConnection;
  let a: ModelStore;
  let b: ModelStore;
  beforeAll(async () => {
    nats = await startNatsServer();
    ncA = await connect({ servers: nats.url });
    ncB = await connect({ servers: nats.url });
    a = await ModelStore.open(ncA);
    b = await ModelStore.open(ncB);
  });
  afterAll(async () => {
    await ncA.close();
    await ncB.close();
    await nats.stop();
  });

  it("keeps the model it just stored (the watch's echo of its own put does not evict it), and drops it for another replica's later one", async () => {
    // The watch's echo of a put usually comes before the put's answer (then it finds nothing to
    // evict); about 1 time in 30 on loopback it comes after: 100 puts make that case all but certain.
    let kept = 0;
    for (let i = 0; i < 100; i++) {
      const built = mlrOf(2);
      await a.put('u', 'p', info, built);
      await sleep(10); // the watch delivers the put's own update meanwhile
      if ((await a.model('u', 'p', 'm')) === built) kept++;
    }
    expect(kept).toBe(100);
    // Another replica rebuilds the model: this one answers with the new state, not its cached one.
    await b.put('u', 'p', info, mlrOf(5));
    await sleep(300);
    expect(slopeOf(await a.model('u', 'p', 'm'))).toBeCloseTo(5, 9);
    // The restored model is cached in turn: asked again, the same instance.
    expect(await a.model('u', 'p', 'm')).toBe(await a.model('u', 'p', 'm'));
  });

  it("keeps a model cached through its own record's updates: the EVT wrapper set, its state after predictions, a stateful model's state", async () => {
    const built = mlrOf(3);
    await a.put('u', 'p', info, built);
    await a.setEvt('u', 'p', 'm', 'res', new EvtWrapper({}));
    await sleep(20); // the watch's news of the put, if it comes after the put's answer
    expect(await a.model('u', 'p', 'm')).toBe(built);
    const predictions = built.predict({ names: ['x'], rows: [['1'], ['2']] });
    await a.applyEvt('u', 'p', 'm', predictions);
    await sleep(20);
    expect(await a.model('u', 'p', 'm')).toBe(built);
    await a.saveState('u', 'p', 'm', built);
    await sleep(20);
    expect(await a.model('u', 'p', 'm')).toBe(built);
    // Another replica's read of the record sees every change.
    expect((await b.info('u', 'p', 'm')).modelId).toBe('m');
    expect(await b.hasEvt('u', 'p', 'm')).toBe(true);
  });

  it('never caches a restore that another replica rebuilt while it was being read', async () => {
    // A restores the model (nothing cached) while B stores a later one: when the watch's news of
    // B's put comes before A's restore is cached, that restore must not be kept. The two
    // answers usually come in the same read from the socket: every round tries the race.
    let stale = 0;
    for (let i = 0; i < 60; i++) {
      await b.put('u', 'p', info, mlrOf(100 + i));
      await sleep(20); // A's cached model (if any) dropped: the next read restores
      await Promise.all([a.model('u', 'p', 'm'), b.put('u', 'p', info, mlrOf(200 + i))]);
      await sleep(20);
      if (Math.round(slopeOf(await a.model('u', 'p', 'm'))) !== 200 + i) stale++;
    }
    expect(stale).toBe(0);
  }, 30_000);

  it('never caches a restore older than the watch reported: a read answered by a JetStream follower that lags', async () => {
    // A cluster's KV gets may be answered by any replica of the stream. The follower's answer is
    // stood in for by the record as it was before the latest put: the one read B's kv.get returns.
    const lag = { ...info, modelId: 'lag' };
    await a.put('u', 'p', lag, mlrOf(7));
    const kvOfB = (b as unknown as { kv: KV }).kv;
    const before = await kvOfB.get('u.p.lag');
    await a.put('u', 'p', lag, mlrOf(8));
    await sleep(100); // B's watch reports A's second put
    const get = jest.spyOn(kvOfB, 'get').mockResolvedValueOnce(before);
    try {
      expect(Math.round(slopeOf(await b.model('u', 'p', 'lag')))).toBe(7); // what the follower had
      expect(Math.round(slopeOf(await b.model('u', 'p', 'lag')))).toBe(8); // not cached: read again
      expect(get).toHaveBeenCalledTimes(2);
      // The current record is cached as usual.
      expect(await b.model('u', 'p', 'lag')).toBe(await b.model('u', 'p', 'lag'));
      expect(get).toHaveBeenCalledTimes(2);
    } finally {
      get.mockRestore();
    }
  });

  it('a change to a record read from a lagging follower is made again on the current record, never over it', async () => {
    // B's read answers the record as it was before A's latest write (the follower's answer,
    // stood in for by that record): a plain put of B's change would lose A's write.
    const evt = { ...info, modelId: 'evt' };
    const kvOfB = (b as unknown as { kv: KV }).kv;
    await a.put('u', 'p', evt, mlrOf(2));
    await a.setEvt('u', 'p', 'evt', 'res', new EvtWrapper({ evt_warmup_size: '50' }));
    const before = await kvOfB.get('u.p.evt');
    const built = await a.model('u', 'p', 'evt');
    await a.applyEvt('u', 'p', 'evt', built.predict({ names: ['x'], rows: [['1'], ['2'], ['3']] })); // A's write: three scores in the warm-up
    const seen = async () => (JSON.parse((await b.records('u', 'p')).find((r) => r.info?.modelId === 'evt')!.evtJson) as { warmup: number[] }).warmup.length;
    expect(await seen()).toBe(3);
    const get = jest.spyOn(kvOfB, 'get').mockResolvedValueOnce(before);
    try {
      // B's two predictions are added to A's three: its first read was stale, its write refused, its second read current.
      await b.applyEvt('u', 'p', 'evt', built.predict({ names: ['x'], rows: [['4'], ['5']] }));
      expect(get).toHaveBeenCalledTimes(2);
      expect(await seen()).toBe(5);
      // A stateful model's state from a stale read: not written, 409 to send the predict again.
      get.mockResolvedValueOnce(before);
      await expect(b.saveState('u', 'p', 'evt', mlrOf(9))).rejects.toMatchObject({ code: 'MODEL_CHANGED' });
      expect(Math.round(slopeOf(await b.model('u', 'p', 'evt')))).toBe(2);
      expect(await seen()).toBe(5);
    } finally {
      get.mockRestore();
    }
  });
});

describe('ModelStore: a model whose state does not fit a KV record (max_payload, 256 KB here)', () => {
  let nats: NatsServer;
  let nc: NatsConnection;
  let ncB: NatsConnection;
  let a: ModelStore;
  let b: ModelStore;
  /** A covest on 100 inputs: its precision and covariance are ≈ 380 KB of JSON. */
  const wideCovest = (shift: number): Model => {
    const names = Array.from({ length: 100 }, (_, j) => `x${j}`);
    const s = new Summary();
    s.learn({ attributeNames: names, attributeTypes: names.map(() => 'C'), data: Array.from({ length: 300 }, (_, i) => names.map((_, j) => String(Math.sin(i * 1.7 + j * 0.31) + shift))) });
    return ALGORITHMS.covest.build(s, { algo: 'covest', inputs: names.map((_, j) => j), targets: [], params: { estimate_type: 'shrunk' } });
  };
  const probe = { names: Array.from({ length: 100 }, (_, j) => `x${j}`), rows: [Array.from({ length: 100 }, (_, j) => String(j / 100))] };
  const wideInfo = { modelId: 'wide', algo: 'covest', creationDate: Date.now() };
  const stored = async () => sml.v1.ModelRecord.decode((await (a as unknown as { kv: KV }).kv.get('u.p.wide'))!.value);
  const objects = async () => (await (await nc.jetstream().views.os('sml_model_states')).list()).filter((o) => !o.deleted).map((o) => o.name);

  beforeAll(async () => {
    nats = await startNatsServer({ maxPayload: '256KB' });
    nc = await connect({ servers: nats.url });
    a = await ModelStore.open(nc);
    ncB = await connect({ servers: nats.url });
    b = await ModelStore.open(ncB);
  });
  afterAll(async () => {
    await nc.close();
    await ncB.close();
    await nats.stop();
  });

  it('keeps the state as an object of its own; every read, another replica and an export see the same model', async () => {
    const model = wideCovest(0);
    expect(JSON.stringify(model.state()).length).toBeGreaterThan(256 * 1024);
    await a.put('u', 'p', wideInfo, model);
    const record = await stored();
    expect(record.stateJson).toBe('');
    expect(await objects()).toEqual([record.bodyObject]);
    expect((await b.model('u', 'p', 'wide')).predict(probe)).toEqual(model.predict(probe));
    const [exported] = await b.records('u', 'p');
    expect(exported.bodyObject).toBe('');
    expect(exported.stateJson).toBe(JSON.stringify(model.state()));
    // Its EVT wrapper lives in the KV record: setting it and predicting write no new object.
    await a.setEvt('u', 'p', 'wide', 'score', new EvtWrapper({ evt_warmup_size: '50' }));
    await a.applyEvt('u', 'p', 'wide', model.predict(probe));
    expect(await b.hasEvt('u', 'p', 'wide')).toBe(true);
    expect(await objects()).toEqual([record.bodyObject]);
    expect((await b.records('u', 'p'))[0].evtJson).toContain('"warmup":[');
    expect((await b.info('u', 'p', 'wide')).algo).toBe('covest');
  });

  it('a rebuild replaces the object, a delete removes it; an import never takes a bodyObject it names', async () => {
    const first = (await stored()).bodyObject;
    const rebuilt = wideCovest(1);
    await a.put('u', 'p', wideInfo, rebuilt);
    const second = (await stored()).bodyObject;
    expect(second).not.toBe(first);
    expect(await objects()).toEqual([second]);
    await sleep(100); // B's watch drops its cached model
    expect((await b.model('u', 'p', 'wide')).predict(probe)).toEqual(rebuilt.predict(probe));
    // A record naming another record's object, as an import could: its own state is what is kept.
    const small = mlrOf(4);
    await a.putRecord('u', 'q', { info: { ...info, modelId: 'imp' }, stateJson: JSON.stringify(small.state()), bodyObject: second });
    expect(Math.round(slopeOf(await b.model('u', 'q', 'imp')))).toBe(4);
    await a.delete('u', 'p', 'wide');
    expect(await objects()).toEqual([]);
  });

  it('sweeps the state objects no record names (a crash between object and record), not before their grace, never a named one', async () => {
    await a.put('u', 'p', wideInfo, wideCovest(2));
    const named = (await stored()).bodyObject;
    const os = await nc.jetstream().views.os('sml_model_states');
    // What a process that died mid-put leaves: an object for a record that names another, and one for no record at all.
    await os.putBlob({ name: 'u.p.wide.00000000-dead-0000-0000-000000000000' }, new Uint8Array(10));
    await os.putBlob({ name: 'u.p.gone.00000000-dead-0000-0000-000000000001' }, new Uint8Array(10));
    expect(await a.sweepOrphans(60_000)).toEqual([]); // younger than the grace
    const swept = await a.sweepOrphans(60_000, Date.now() + 120_000);
    expect(swept.sort()).toEqual(['u.p.gone.00000000-dead-0000-0000-000000000001', 'u.p.wide.00000000-dead-0000-0000-000000000000']);
    expect(await objects()).toEqual([named]);
    await a.delete('u', 'p', 'wide');
  });
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { encryptDsInfo, nameToken } from '@sml/core';
import { sml } from '@sml/proto';
import { SmlClient } from '@sml/sdk';
import { Encoder } from '@sml/stats';
import { startSystem, type RunningSystem } from '@sml/testkit';
import { Encoders, javaDouble } from '../src/encoders';
import { EncoderStore } from '../src/store';

// An encoder larger than a NATS message (8 MiB max_payload in the testkit): 2·10⁵ distinct
// values learned from a localfile CSV, against the built encoders process and a real
// nats-server, checked against @sml/stats learning the same rows directly.
type FrameValues = { dataframe: { data: string[][] }; valueCount?: number };

const DISTINCT = 200_000;
const ROWS = 250_000;
const rows = Array.from({ length: ROWS }, (_, i) => [`u${i % DISTINCT}`, `s${i % 5}`, (i * 7) % 3 === 0 ? '1' : '0']);
const header = ['id', 'site', 'clicked'];
const types = ['S', 'S', 'B'];

describe('an encoder larger than a NATS message', () => {
  let sys: RunningSystem;
  let nc: NatsConnection;
  const files = mkdtempSync(join(tmpdir(), 'sml-encoder-large-'));
  const user = 'big1';
  let a: SmlClient;
  let root: SmlClient;
  let secret = '';
  const expected = new Encoder({ target: 'clicked', targetType: 'B', minTrimSize: 1 });
  expected.learn({ attributeNames: header, attributeTypes: types, data: rows });

  beforeAll(async () => {
    sys = await startSystem({ services: ['users', 'jobs', 'encoders'], env: { SML_MAX_ENCODER_VALUES: '300000', SML_FILES_ROOT: files } });
    nc = await connect({ servers: sys.nats.url, ...sys.nats.connectOptions('encoders') });
    root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
    const r = await root.addUser(user);
    secret = String((r.body.values as { secretKey: string }).secretKey);
    a = new SmlClient({ url: sys.url, user, secret });
    mkdirSync(join(files, nameToken(user)), { recursive: true });
    writeFileSync(join(files, nameToken(user), 'clicks.csv'), [header, ...rows].map((r) => r.join(',')).join('\n') + '\n');
  }, 120_000);
  afterAll(async () => {
    await nc?.close();
    await sys?.stop();
    rmSync(files, { recursive: true, force: true });
  });

  const kv = () => nc.jetstream().views.kv('sml_encoders');
  const objects = () => nc.jetstream().views.os('sml_encoder_stats');
  const record = async (name: string) => {
    const e = await (await kv()).get(EncoderStore.key(user, name));
    return e && e.operation === 'PUT' ? sml.v1.EncoderRecord.decode(e.value) : undefined;
  };
  const objectsOf = async (prefix: string) => (await (await objects()).list()).filter((o) => !o.deleted && o.name.startsWith(prefix)).map((o) => o.name);
  const statsRows = (e: Encoder) => e.stats().map((s) => [s.key, s.type, javaDouble(s.count), javaDouble(s.mean), javaDouble(s.stddev), javaDouble(s.variance)]);
  const keyRows = (e: Encoder, key: string) => e.keyValues(key)!.map((v) => [v.value, String(v.count), javaDouble(v.sum)]);
  const allValues = async (key: string, e = expected) => {
    const out: string[][] = [];
    for (let offset = 0; ; offset += 100_000) {
      const r = await a.request('GET', `/encoders/big/keyvals/${key}`, { query: { offset: String(offset), limit: '100000' } });
      const v = r.body.values as FrameValues;
      expect(v.valueCount).toBe(e.keyValues(key)!.length);
      out.push(...v.dataframe.data);
      if (v.dataframe.data.length < 100_000) return out;
    }
  };
  const expectSame = async (e: Encoder) => {
    const r = await a.request('GET', '/encoders/big/stats');
    expect((r.body.values as FrameValues).dataframe.data).toEqual(statsRows(e));
    expect(await allValues('site', e)).toEqual(keyRows(e, 'site'));
    expect(await allValues('id', e)).toEqual(keyRows(e, 'id'));
  };

  it('learns 2·10⁵ distinct values from a CSV, answers stats and paged keyvals exactly as @sml/stats, and survives a restart', async () => {
    expect((await a.request('POST', '/encoders/create', { query: 'encodername=big&targetName=clicked' })).status).toBe(201);
    const ds = { raw: encryptDsInfo({ type: 'localfile', name: 'clicks', info: { path: 'clicks.csv' }, extra: types }, secret) };
    let r = await a.request('POST', '/encoders/big/learnds', ds);
    expect(r.status).toBe(202);
    const jobId = r.headers['sym-job-id'];
    for (;;) {
      r = await a.request('GET', `/jobs/${jobId}`);
      if (r.status !== 202) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect([r.status, r.body.statusString]).toEqual([200, 'Job is finished']);
    // The statistics are an object of sml_encoder_stats, larger than one message; the record points at it.
    const rec = (await record('big'))!;
    expect([rec.state.length, Number(rec.valueCount)]).toEqual([0, DISTINCT + 5]);
    const info = await (await objects()).info(rec.statsObject);
    expect(info!.size).toBeGreaterThan(8 * 1024 * 1024);
    await expectSame(expected);
    // A keyvals page is bounded: limit over SML_MAX_ENCODER_PAGE_ROWS gives that many.
    r = await a.request('GET', '/encoders/big/keyvals/id', { query: { offset: '199990', limit: '1000000' } });
    expect((r.body.values as FrameValues).dataframe.data).toEqual(keyRows(expected, 'id').slice(199_990));

    await sys.kill('encoders');
    await sys.start('encoders');
    await expectSame(expected);
  }, 300_000);

  it('concurrent learns are both counted, from one service and from two replicas writing the same record', async () => {
    const batch = (from: number, n: number, y: string) => ({ json: { attributeNames: header, attributeTypes: types, data: Array.from({ length: n }, (_, i) => [`u${from + i}`, 's0', y]) } });
    const results = await Promise.all([a.request('POST', '/encoders/big/learn', batch(0, 1000, '1')), a.request('POST', '/encoders/big/learn', batch(500, 1000, '0'))]);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    // Two more replicas of the encoders service, in this process, over the same bucket and objects.
    const limits = { maxValues: 300_000, maxEncoders: 10, maxPageRows: 100_000, maxKeyLength: 256 };
    const replicas = [new Encoders(await EncoderStore.open(nc), limits), new Encoders(await EncoderStore.open(nc), limits)];
    await Promise.all(replicas.map((e, i) => e.learn(user, 'big', { attributeNames: header, attributeTypes: types, data: [[`u${i}`, 's1', '1'], ['fresh', 's1', '1']] })));
    expected.learn(batch(0, 1000, '1').json);
    expected.learn(batch(500, 1000, '0').json);
    for (const i of [0, 1]) expected.learn({ attributeNames: header, attributeTypes: types, data: [[`u${i}`, 's1', '1'], ['fresh', 's1', '1']] });
    const r = await a.request('GET', '/encoders/big/keyvals/id', { query: { offset: '0', limit: '3' } });
    expect((r.body.values as FrameValues).dataframe.data).toEqual(keyRows(expected, 'id').slice(0, 3));
    expect(((await a.request('GET', '/encoders/big/stats')).body.values as FrameValues).dataframe.data).toEqual(statsRows(expected));
    // These small batches were stored as deltas next to the whole version: exactly the objects the record names are left.
    const rec = (await record('big'))!;
    expect(rec.deltaObjects.length).toBeGreaterThan(0);
    expect((await objectsOf(`${EncoderStore.key(user, 'big')}.`)).sort()).toEqual([rec.statsObject, ...rec.deltaObjects].sort());
    // Read back after a restart: the whole version merged with the deltas, in order.
    await sys.kill('encoders');
    await sys.start('encoders');
    expect(((await a.request('GET', '/encoders/big/stats')).body.values as FrameValues).dataframe.data).toEqual(statsRows(expected));
    expect(await allValues('id')).toEqual(keyRows(expected, 'id'));
  }, 300_000);

  it('a record from before the object store (statistics inline) reads as it is and moves to an object on its next write', async () => {
    expect((await a.request('POST', '/encoders/create', { query: 'encodername=old&targetName=clicked' })).status).toBe(201);
    const old = new Encoder({ target: 'clicked', targetType: 'B', minTrimSize: 1 });
    old.learn({ attributeNames: ['site', 'clicked'], attributeTypes: ['S', 'B'], data: [['a', '1'], ['a', '0'], ['b', '1']] });
    const rec = (await record('old'))!;
    await (await kv()).put(EncoderStore.key(user, 'old'), sml.v1.EncoderRecord.encode({ ...rec, state: old.serialize(), statsObject: '', valueCount: 0 }).finish());
    let r = await a.request('GET', '/encoders/old/keyvals/site');
    expect((r.body.values as FrameValues).dataframe.data).toEqual([['a', '2', '1.0'], ['b', '1', '1.0']]);
    r = await a.request('POST', '/encoders/old/learn', { json: { attributeNames: ['site', 'clicked'], attributeTypes: ['S', 'B'], data: [['b', '0']] } });
    expect(r.status).toBe(200);
    const moved = (await record('old'))!;
    expect([moved.state.length, moved.statsObject !== '', Number(moved.valueCount)]).toEqual([0, true, 2]);
    r = await a.request('GET', '/encoders/old/keyvals/site');
    expect((r.body.values as FrameValues).dataframe.data).toEqual([['a', '2', '1.0'], ['b', '2', '1.0']]);
  });

  it('deleting an encoder removes its record and its statistics; deleting the customer removes the rest', async () => {
    const prefix = `${EncoderStore.key(user, 'big')}.`;
    expect((await objectsOf(prefix)).length).toBeGreaterThan(1);
    expect((await a.request('DELETE', '/encoders/big')).status).toBe(200);
    expect([await record('big'), await objectsOf(prefix)]).toEqual([undefined, []]);
    expect(await objectsOf(`${nameToken(user)}.`)).toHaveLength(1); // encoder `old`
    expect((await root.deleteUser(user)).status).toBe(200);
    expect([await record('old'), await objectsOf(`${nameToken(user)}.`)]).toEqual([undefined, []]);
  });
});

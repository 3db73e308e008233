import { gunzipSync } from 'node:zlib';
import { connect } from 'nats';
import { decryptDsInfo, encryptDsInfo } from '@sml/core';
import { sml } from '@sml/proto';
import { Summary } from '@sml/stats';
import { SmlClient, type SmlResponse } from '@sml/sdk';
import { startFederationLab, type FederationLab, type RunningSystem } from '@sml/testkit';
import { ProjectStore } from '../src/store/store';
import { frame } from './helpers';

// README "Fusion projects": two instances; B hosts two cells, A fuses them and one local cell.

type Values = Record<string, unknown>;

/** Equal up to 1e-9 relative (numbers, also as the strings predictions are), the same shape otherwise. */
function expectClose(actual: unknown, expected: unknown, path = '$'): void {
  const num = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : undefined);
  const a = num(actual);
  const e = num(expected);
  if (a !== undefined && e !== undefined) {
    if (Math.abs(a - e) > 1e-9 * Math.max(1, Math.abs(e))) throw new Error(`${path}: ${a} != ${e}`);
    return;
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    expect(actual.length).toBe(expected.length);
    expected.forEach((v, i) => expectClose(actual[i], v, `${path}[${i}]`));
    return;
  }
  if (expected && typeof expected === 'object' && actual && typeof actual === 'object') {
    expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
    for (const [k, v] of Object.entries(expected)) expectClose((actual as Values)[k], v, `${path}.${k}`);
    return;
  }
  expect(actual).toEqual(expected);
}

describe('fusion projects across two instances', () => {
  let lab: FederationLab;
  let a: RunningSystem;
  let b: RunningSystem;
  let alice: SmlClient;
  let bob: SmlClient;

  // y = 1 + 2·x1 − x2 + noise; b = y > 3; three parts of 60 rows.
  const row = (i: number) => {
    const x1 = (i % 17) / 3;
    const x2 = ((i * 7) % 11) / 2;
    const y = 1 + 2 * x1 - x2 + ((i % 5) - 2) * 0.1;
    return [x1, x2, y, y > 3 ? 1 : 0];
  };
  const names = ['x1', 'x2', 'y', 'b'];
  const types = ['C', 'C', 'C', 'B'];
  const rows = (from: number, to: number) => frame(names, types, Array.from({ length: to - from }, (_, k) => row(from + k)));

  const ok = async <V = Values>(p: Promise<SmlResponse<V>>, status = 200): Promise<V> => {
    const r = await p;
    if (r.status !== status) throw new Error(`${r.status} ${r.body.statusString}`);
    return r.body.values as V;
  };
  const statistics = async (sdk: SmlClient, pid: string) => {
    const explore = async (metric: string, values: unknown[]) => {
      const { smlInfo: _, ...rest } = await ok(sdk.request<Values>('POST', `/projects/${pid}/explore`, { query: { metric }, json: { values } }));
      return rest;
    };
    return {
      uni: await explore('uni', names.map((n) => ({ inputAttributeNames: [n] }))),
      bi: await explore('bi', [{ inputAttributeNames: ['x1', 'y'] }, { inputAttributeNames: ['x2', 'b'] }]),
    };
  };
  const mlrPredictions = async (sdk: SmlClient, pid: string) => {
    const built = await sdk.request('POST', `/projects/${pid}/build`, { query: { modelid: 'm_mlr', algo: 'mlr' }, json: { inputAttributeNames: ['x1', 'x2'], targetAttributeNames: ['y'] } });
    expect((await sdk.waitForJob(built)).status).toBe(200);
    return ok(sdk.request('POST', `/projects/${pid}/predict/m_mlr`, { json: frame(['x1', 'x2'], ['C', 'C'], [[3, 2], [0, 5], [5, 0], [1.5, 1.5]]) }));
  };
  let aliceSecret = '';
  let bobSecret = '';
  /** A customer of `sys` and its secret. */
  const customerOf = async (sys: RunningSystem, user: string): Promise<[SmlClient, string]> => {
    const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
    const secret = (await ok(root.addUser(user), 201)).secretKey;
    return [new SmlClient({ url: sys.url, user, secret }), secret];
  };
  const cells = () => [
    { host: b.url, cid: 'bob', sk: bobSecret, pid: 'c1' },
    { host: `${b.url}/symetry/rest`, cid: 'bob', sk: bobSecret, pid: 'c2' },
    { host: 'local', cid: 'alice', sk: aliceSecret, pid: 'c3' },
  ];
  const fuse = (pid: string, list: Values[], query: Record<string, string> = {}) =>
    alice.request('POST', '/projects/fusion/create', { query: { pid, ...query }, raw: encryptDsInfo({ values: list }, aliceSecret) });
  const cellsStatus = async (pid: string, list?: Values[]) => {
    const raw = list ? encryptDsInfo({ values: list }, aliceSecret) : '';
    const v = await ok(alice.request<{ cellsStatusEncrypted: string }>('POST', `/projects/fusion/${pid}/cellsStatus`, { raw, headers: { 'sym-enc': 'v2' } }));
    expect(v.cellsStatusEncrypted.startsWith('v2:')).toBe(true);
    return (decryptDsInfo(v.cellsStatusEncrypted, aliceSecret) as { values: Values[] }).values;
  };

  beforeAll(async () => {
    lab = await startFederationLab(2);
    [a, b] = lab.instances;
    [alice, aliceSecret] = await customerOf(a, 'alice');
    [bob, bobSecret] = await customerOf(b, 'bob');
    for (const [sdk, pid, from, to] of [[bob, 'c1', 0, 60], [bob, 'c2', 60, 120], [alice, 'c3', 120, 180], [alice, 'all', 0, 180]] as const) {
      await ok(sdk.createProject(pid), 201);
      await ok(sdk.learn(pid, rows(from, to)));
    }
  }, 180_000);
  afterAll(() => lab?.stop());

  it('the lab runs each instance with its own bus, data dir, port and root user', () => {
    expect(new Set(lab.instances.map((i) => i.nats.url)).size).toBe(2);
    expect(new Set(lab.instances.map((i) => i.dataDir)).size).toBe(2);
    expect(new Set(lab.instances.map((i) => i.url)).size).toBe(2);
    expect(new Set(lab.instances.map((i) => i.rootSecret)).size).toBe(2);
    expect(lab.instances.map((i) => i.nats.url)).not.toContain(`nats://127.0.0.1:${lab.backbone.port}`);
  });

  it('fuses two remote cells and a local one into the statistics and models of one project of all rows', async () => {
    expect((await fuse('f', cells())).status).toBe(201);
    const info = (await ok(alice.request<{ smlInfo: Values }>('GET', '/projects/f/info'))).smlInfo;
    expect(info.type).toBe('fusion');
    const listed = decryptDsInfo(String(info.fusionCellInfo), aliceSecret) as { values: Values[] };
    expect(listed.values.map((c) => [c.host, c.cid, c.pid, c.sk])).toEqual(cells().map((c) => [c.host, c.cid, c.pid, '']));
    expectClose(await statistics(alice, 'f'), await statistics(alice, 'all'));
    expectClose(await mlrPredictions(alice, 'f'), await mlrPredictions(alice, 'all'));
    expect((await cellsStatus('f')).map((c) => c.status)).toEqual(['OK', 'OK', 'OK']);
  }, 120_000);

  it('keeps cells\' secrets out of the stored metadata and the logs', async () => {
    const nc = await connect({ servers: a.nats.url, ...a.nats.connectOptions('projects') });
    try {
      const kv = await nc.jetstream().views.kv('sml_projects');
      const stored = Buffer.from((await kv.get(ProjectStore.key('alice', 'f')))?.value ?? []);
      const meta = sml.v1.ProjectMeta.decode(stored);
      expect(meta.type).toBe('fusion');
      expect(meta.fusion?.cells?.map((c) => c.sk?.slice(0, 3))).toEqual(['s1:', 's1:', 's1:']);
      for (const secret of [bobSecret, aliceSecret]) expect(stored.toString('latin1')).not.toContain(secret);
    } finally {
      await nc.close();
    }
    for (const sys of [a, b]) for (const service of ['users', 'projects']) expect(sys.logs(service)).not.toContain(bobSecret);
  });

  it('shows rows learned on a cell once the refresh window has passed', async () => {
    await ok(bob.learn('c1', rows(180, 240)));
    await ok(alice.learn('all', rows(180, 240)));
    await new Promise((r) => setTimeout(r, 300));
    expectClose(await statistics(alice, 'f'), await statistics(alice, 'all'));
  }, 60_000);

  it('refuses data sent to a fusion project and online models built on it', async () => {
    const learned = await alice.learn('f', rows(0, 5));
    expect([learned.status, learned.body.statusString]).toEqual([400, 'Fusion project [f] does not learn data; send it to its cells']);
    const rf = await alice.request('POST', '/projects/f/build', { query: { modelid: 'rf', algo: 'rf_classifier' }, json: { inputAttributeNames: ['x1'], targetAttributeNames: ['b'] } });
    expect(rf.status).toBe(400);
  });

  it('reports a wrong cell secret as UNAUTHORIZED until updateCellsInfo gives the right one', async () => {
    const wrong = 'AAAAAAAAAAAAAAAAAAAAAA==';
    expect((await fuse('w', [{ ...cells()[0], sk: wrong }, { ...cells()[2], sk: wrong }])).status).toBe(201);
    expect((await cellsStatus('w')).map((c) => [c.status, c.sk])).toEqual([['UNAUTHORIZED', undefined], ['UNAUTHORIZED', undefined]]);
    const failed = await alice.request('GET', '/projects/w/info');
    expect(failed.status).toBe(503);
    const updated = await alice.request('POST', '/projects/fusion/w/updateCellsInfo', { raw: encryptDsInfo({ values: [cells()[0], cells()[2]] }, aliceSecret) });
    expect(updated.status).toBe(200);
    expect((await cellsStatus('w')).map((c) => c.status)).toEqual(['OK', 'OK']);
    expect((await cellsStatus('w', [cells()[2]])).map((c) => c.pid)).toEqual(['c3']);
  }, 60_000);

  it('serves a cell\'s summary as gzip with its version, and only unchanged=true while the version holds', async () => {
    const first = await ok(bob.request<{ summary: string; summaryVersion: string }>('GET', '/projects/c2/summary'));
    expect(Summary.deserialize(gunzipSync(Buffer.from(first.summary, 'base64'))).rowCount).toBe(60);
    expect(await ok(bob.request('GET', '/projects/c2/summary', { query: { ifVersion: first.summaryVersion } }))).toEqual({ unchanged: true, summaryVersion: first.summaryVersion });
    await ok(bob.learn('c2', rows(240, 241)));
    const changed = await ok(bob.request<{ summary: string; summaryVersion: string }>('GET', '/projects/c2/summary', { query: { ifVersion: first.summaryVersion } }));
    expect(changed.summaryVersion).not.toBe(first.summaryVersion);
    expect(Summary.deserialize(gunzipSync(Buffer.from(changed.summary, 'base64'))).rowCount).toBe(61);
    await ok(bob.forget('c2', rows(240, 241)));
    const fusionAsCell = await alice.request('GET', '/projects/f/summary');
    expect([fusionAsCell.status, fusionAsCell.body.statusString]).toEqual([400, 'Project [f] is a fusion project: it cannot be a fusion cell']);
  });

  it('answers 503 naming the failed cells when B stops, or serves them stale in stale mode', async () => {
    expect((await fuse('s', cells(), { onCellError: 'stale' })).status).toBe(201);
    const before = await statistics(alice, 's');
    await b.stop();
    await new Promise((r) => setTimeout(r, 300));
    const failed = await alice.request('GET', '/projects/f/info');
    expect(failed.status).toBe(503);
    expect(failed.body.statusString).toContain(`Fusion cell [${b.url}/bob/c1] failed:`);
    expect(failed.body.statusString).toContain(`[${b.url}/symetry/rest/bob/c2] failed:`);
    const explored = await alice.request('POST', '/projects/f/explore', { query: { metric: 'uni' }, json: { values: [{ inputAttributeNames: ['x1'] }] } });
    expect([explored.status, explored.body.statusString.startsWith('Fusion cell [')]).toEqual([503, true]);
    expect((await cellsStatus('f')).map((c) => c.status)).toEqual(['UNREACHABLE', 'UNREACHABLE', 'OK']);
    const stale = (await ok(alice.request<{ smlInfo: { params: Record<string, string> } }>('GET', '/projects/s/info'))).smlInfo.params;
    expect(stale.fusion_stale_cells).toBe(`${b.url}/bob/c1,${b.url}/symetry/rest/bob/c2`);
    expect(stale.fusion_fetch_error).toContain(`${b.url}/bob/c1: `);
    expectClose(await statistics(alice, 's'), before);
  }, 60_000);
});

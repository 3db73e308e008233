import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SmlError } from '@sml/core';
import type { sml } from '@sml/proto';
import { SmlClient } from '@sml/sdk';
import { Summary } from '@sml/stats';
import { dataFile, startSystem, type RunningSystem } from '@sml/testkit';
import { connect } from 'nats';
import { ProjectStore } from '../src/store/store';
import { customer, expectClose, frame, readCsv, SummaryReader } from './helpers';

// Expected values: numpy on the same file (fixtures/gen_iris_moments.py).
const iris = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'iris_moments.json'), 'utf8'));
const IRIS_TYPES = ['C', 'C', 'C', 'C', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B'];

describe('projects end to end', () => {
  let sys: RunningSystem;
  let alice: SmlClient;
  let bob: SmlClient;
  let reader: SummaryReader;

  beforeAll(async () => {
    sys = await startSystem({ services: ['users', 'jobs', 'projects'], env: { SML_MAX_ATTRIBUTES: '40', SML_SNAPSHOT_EVERY_BATCHES: '3', SML_MAX_SUMMARY_ATTRIBUTES: '5' } });
    alice = await customer(sys, 'alice');
    bob = await customer(sys, 'bob');
    reader = await SummaryReader.open(sys.nats);
  });
  afterAll(async () => {
    await reader?.close();
    await sys?.stop();
  });

  it('Iris learned through REST has the moments numpy computes from the file', async () => {
    expect((await alice.createProject('iris', { enableHistogram: true })).status).toBe(201);
    const { names, rows } = readCsv('Iris_rtlm.csv');
    // Two batches, so learning spans calls.
    expect((await alice.learn('iris', frame(names, IRIS_TYPES, rows.slice(0, 70)))).status).toBe(200);
    expect((await alice.learn('iris', frame(names, IRIS_TYPES, rows.slice(70)))).body).toEqual({ statusCode: 200, statusString: 'OK', values: {} });

    const info = (await alice.projectInfo('iris')).body.values as { smlInfo: Record<string, unknown> };
    expect(info.smlInfo).toEqual(expect.objectContaining({
      pid: 'iris', attributeNames: iris.names, attributeTypes: IRIS_TYPES, attributeIndexes: iris.names.map((_: string, i: number) => i),
      histogramEnabled: true, autoSave: true, hash: -1, type: 'cpu', categorySeparator: '$', isDirty: true, loaded: true,
    }));

    const parts = await reader.parts('alice', 'iris', { moments: true, comoments: true });
    expect(Number(parts.rowCount)).toBe(150);
    for (const m of parts.moments) {
      const want = iris.moments[m.name!];
      expect(m.count).toBe(want.count);
      for (const k of ['sum', 'sumSquares', 'sumCubes', 'sumFourths', 'min', 'max'] as const) expectClose(m[k]!, want[k]);
    }
    for (const p of parts.comoments) {
      const want = iris.pairs[`${p.x}|${p.y}`];
      expect(p.count).toBe(want.count);
      expectClose(p.sumXY!, want.sumXY);
      expectClose(p.sumXXYY!, want.sumXXYY);
    }
    const cov = (await reader.full('alice', 'iris')).covariance(iris.names).to2DArray();
    cov.forEach((row: number[], i: number) => row.forEach((v, j) => expectClose(v, iris.populationCovariance[i][j])));
  });

  it('the bus summary API serves histograms, survival counts and sequence counts as protobuf', async () => {
    const h = (await reader.parts('alice', 'iris', { attributeNames: ['sepal_length', 'Iris_setosa'], histograms: true })).histograms;
    expect(h.map((x) => x.name)).toEqual(['sepal_length', 'Iris_setosa']);
    expect(h[0].count!.reduce((a, b) => a + b, 0)).toBe(150);
    expect(h[0].missing).toBe(0);
    expect(Math.min(...h[0].lower!)).toBeLessThanOrEqual(iris.moments.sepal_length.min);
    expect(h[1].count!.reduce((a, b) => a + b, 0)).toBe(150);

    await alice.createProject('km', { params: { km_time_column: 't', km_event_column: 'e', km_group_column: 'g' } });
    const survivalRows = [[1, 1, 'a'], [1, 0, 'a'], [2, 2, 'a'], [3, 1, 'b'], [3, 1, 'B '], [5, 0, 'b']];
    await alice.learn('km', frame(['t', 'e', 'g'], ['C', 'C', 'T'], survivalRows));
    const survival = (await reader.parts('alice', 'km', { survival: true })).survival;
    // Counted by hand from survivalRows (groups trimmed and lower-cased).
    expect(survival.map((g) => ({ group: g.group, rows: g.rows!.map((r) => [r.time, r.censored, ...r.events!]) }))).toEqual([
      { group: 'a', rows: [[1, 1, 1, 0], [2, 0, 0, 1]] },
      { group: 'b', rows: [[3, 0, 2], [5, 1, 0]] }, // events per type seen in the group
    ]);

    // weather.seq as one rows-layout sequence; expected counts from packages/stats/test/fixtures/gen_sequence.py.
    const weather = JSON.parse(readFileSync(join(__dirname, '../../../packages/stats/test/fixtures/sequence_weather.json'), 'utf8'));
    const tokens = readFileSync(dataFile('weather.seq'), 'utf8').split(',');
    await alice.createProject('weather', { type: 'sequence', params: { sml_project_order: '2', sml_sequence_layout: 'rows' } });
    await alice.learn('weather', frame(tokens.map((_, i) => `t${i}`), tokens.map(() => 'T'), [tokens]));
    const seq = await reader.parts('alice', 'weather', { sequences: true });
    expect(seq.sequenceOrder).toBe(2);
    const [variable] = seq.sequences;
    expect(Object.fromEntries(variable.unigrams!.map((u) => [u.state, u.count]))).toEqual(weather.unigrams);
    expect(Object.fromEntries(variable.starts!.map((u) => [u.state, u.count]))).toEqual(weather.starts);
    for (const lag of [1, 2]) {
      const got = variable.lagPairs!.filter((p) => p.lag === lag).map((p) => [p.from, p.to, p.count]).sort();
      expect(got).toEqual(weather[`lag${lag}`].slice().sort());
    }
  });

  it('the full summary is not sent again while the caller\'s etag is current', async () => {
    const first = await reader.parts('alice', 'iris', { full: true });
    expect(first.summary.length).toBeGreaterThan(0);
    const again = await reader.parts('alice', 'iris', { full: true, ifNoneMatch: first.etag });
    expect({ notModified: again.notModified, bytes: again.summary.length, etag: again.etag }).toEqual({ notModified: true, bytes: 0, etag: first.etag });
    await alice.learn('iris', frame(['sepal_length'], ['C'], [[5]]));
    const changed = await reader.parts('alice', 'iris', { full: true, ifNoneMatch: first.etag });
    expect(changed.notModified).toBe(false);
    expect(changed.etag).not.toBe(first.etag);
    await alice.forget('iris', frame(['sepal_length'], ['C'], [[5]]));
  });

  it('a sub-summary holds only the attributes asked for, revalidated by etag; more than SML_MAX_SUMMARY_ATTRIBUTES or an unknown index is a 400', async () => {
    const schema = await reader.parts('alice', 'iris', { schema: true });
    expect(schema.attributeNames.slice(0, 4)).toEqual(['sepal_length', 'sepal_width', 'petal_length', 'petal_width']);
    expect(schema.attributeTypes.slice(3, 5)).toEqual(['C', 'B']);
    const sub = await reader.parts('alice', 'iris', { restricted: true, indexes: [3, 0, 3] });
    expect(sub.attributeIndexes).toEqual([0, 3]);
    const restricted = Summary.deserialize(sub.summary);
    expect(restricted.attributeNames).toEqual(['sepal_length', 'petal_width']);
    expect(restricted.comoments(0, 1).sumXY).toBe(Summary.deserialize((await reader.parts('alice', 'iris', { full: true })).summary).comoments(0, 3).sumXY);
    const again = await reader.parts('alice', 'iris', { restricted: true, indexes: [0, 3], ifNoneMatch: sub.etag });
    expect([again.notModified, again.summary.length]).toEqual([true, 0]);
    const refused = async (req: Partial<sml.v1.ISummaryRequest>) => reader.parts('alice', 'iris', req).then(() => null, (err: SmlError) => [err.status, err.code, err.message]);
    expect(await refused({ restricted: true, indexes: [0, 1, 2, 3, 4, 5] })).toEqual([400, 'INVALID_PARAMETER', expect.stringContaining('SML_MAX_SUMMARY_ATTRIBUTES')]);
    expect(await refused({ restricted: true, indexes: [0, 99] })).toEqual([400, 'INVALID_PARAMETER', expect.stringContaining('unknown attribute index')]);
    expect(await refused({ restricted: true, indexes: [-1] })).toEqual([400, 'INVALID_PARAMETER', expect.stringContaining('not an attribute index')]);
  });

  it('forget is the exact inverse of learn; forgetting rows never learned is a 400 that changes nothing', async () => {
    await alice.createProject('inv');
    const a = frame(['x', 'y'], ['C', 'C'], [[1.5, 2], [2.5, -1], [10, 3]]);
    const b = frame(['x', 'y'], ['C', 'C'], [[7, 7], [-3.25, 0.5]]);
    await alice.learn('inv', a);
    const hashA = (await alice.projectInfo('inv', { hash: true })).body.values as { smlInfo: { hash: number } };
    await alice.learn('inv', b);
    expect((await alice.forget('inv', b)).status).toBe(200);
    const after = (await reader.parts('alice', 'inv', { moments: true })).moments;
    expect(after.map((m) => m.count)).toEqual([3, 3]);
    expectClose(after[0].sum!, 14);
    expectClose(after[1].sumSquares!, 14);
    expect(hashA.smlInfo.hash).not.toBe(-1);

    const before = (await alice.projectInfo('inv', { hash: true })).body.values as { smlInfo: { hash: number } };
    const never = await alice.forget('inv', frame(['x', 'y'], ['C', 'C'], [[1, 1], [2, 2], [3, 3], [4, 4]]));
    expect(never.status).toBe(400);
    expect(never.body.statusString).toMatch(/^Cannot forget rows that were never learned/);
    const unchanged = (await alice.projectInfo('inv', { hash: true })).body.values as { smlInfo: { hash: number } };
    expect(unchanged.smlInfo.hash).toBe(before.smlInfo.hash);
  });

  it('categorical columns expand to <name>$<value> binaries, appended on the fly', async () => {
    await alice.createProject('cat');
    await alice.learn('cat', frame(['color', 'v'], ['T', 'C'], [[' Red', 1], ['blue ', 2]]));
    await alice.learn('cat', frame(['color', 'w'], ['T', 'C'], [['GREEN', 3]]));
    const info = (await alice.projectInfo('cat')).body.values as { smlInfo: { attributeNames: string[]; attributeTypes: string[] } };
    // In order of first appearance; within one frame numeric columns first, then the levels sorted.
    expect(info.smlInfo.attributeNames).toEqual(['v', 'color$blue', 'color$red', 'w', 'color$green']);
    expect(info.smlInfo.attributeTypes).toEqual(['C', 'B', 'B', 'C', 'B']);
  });

  it('lenient frames skip bad rows and report them; strict frames name row and column and learn nothing', async () => {
    await alice.createProject('len');
    const lenient = await alice.learn('len', frame(['x', 'b'], ['C', 'B'], [[1, 0], ['abc', 1], [2, 5], [3, 1]], 1));
    expect(lenient.status).toBe(200);
    expect(lenient.body.values).toEqual({ learnReport: { rowsLearned: 2, rowsSkipped: 2, errors: [expect.stringContaining('row 2'), expect.stringContaining('row 3')] } });
    const strict = await alice.learn('len', frame(['x', 'b'], ['C', 'B'], [[4, 0], ['abc', 1]]));
    expect(strict.status).toBe(400);
    expect(strict.body.statusString).toMatch(/row 2.*column \[x\]/);
    expect(Number((await reader.parts('alice', 'len', {})).rowCount)).toBe(2);
  });

  describe('bad input answers 400 naming the problem and learns nothing', () => {
    beforeAll(async () => {
      await alice.createProject('bad');
      await alice.learn('bad', frame(['x'], ['C'], [[1]]));
    });
    it.each([
      ['an unknown type code', frame(['x'], ['Q'], [[1]]), /type/i],
      ['a ragged row', frame(['x', 'y'], ['C', 'C'], [[1, 2], [3]]), /row 2/],
      ['a non-numeric C cell', frame(['x'], ['C'], [['twelve']]), /row 1.*column \[x\]/],
      ['a B cell that is not 0/1', frame(['b'], ['B'], [[2]]), /row 1.*column \[b\]/],
      ['an empty frame', frame(['x'], ['C'], []), /no data rows/],
      ['duplicate attribute names', frame(['x', 'x'], ['C', 'C'], [[1, 2]]), /duplicate/i],
      ['more attributes than the limit', frame(Array.from({ length: 41 }, (_, i) => `a${i}`), Array(41).fill('C'), [Array(41).fill(1)]), /attribute/i],
    ])('%s', async (_what, body, message) => {
      const r = await alice.learn('bad', body);
      expect(r.status).toBe(400);
      expect(r.body.statusString).toMatch(message);
      expect(Number((await reader.parts('alice', 'bad', {})).rowCount)).toBe(1);
    });

    it.each(['a/b', 'a..b', 'a b', 'a*', 'a>', '.hidden'])('a project name like %j', async (pid) => {
      const r = await alice.request('POST', '/projects', { query: { pid }, json: {} });
      expect(r.status).toBe(400);
      expect(r.body.statusString).toMatch(/pid/);
    });

    it('a batch larger than one log message may be (the NATS max_payload, 8 MB here) → 413 before it is learned; as its summary it fits', async () => {
      // 300 000 rows × 10 columns: ≈ 6.6 MB of JSON, ≈ 12 MB as the log keeps it (columns of mantissas).
      const names = Array.from({ length: 10 }, (_, j) => `c${j}`);
      const raw = JSON.stringify({ attributeNames: names, attributeTypes: names.map(() => 'C'), data: Array.from({ length: 300_000 }, (_, i) => names.map((_, j) => String((i + j) % 10))) });
      // A keyed batch travels as columns (README "Batch summaries").
      const keyed = await alice.request('POST', '/projects/bad/learn', { raw, headers: { 'content-type': 'application/json', 'Idempotency-Key': 'too-large' } });
      expect(keyed.status).toBe(413);
      expect(keyed.body.statusString).toMatch(/^The batch takes \d+ bytes in the project log, over the limit of 8384512 for one batch \(the NATS server max_payload\): nothing was learned; send it as smaller batches$/);
      expect(Number((await reader.parts('alice', 'bad', {})).rowCount)).toBe(1);
      // Without the key the gateway sends (and the log keeps) the batch's summary: a few kB.
      expect((await alice.request('POST', '/projects/bad/learn', { raw, headers: { 'content-type': 'application/json' } })).status).toBe(200);
      expect(Number((await reader.parts('alice', 'bad', {})).rowCount)).toBe(300_001);
    });

    it('malformed JSON', async () => {
      const r = await alice.request('POST', '/projects/bad/learn', { raw: '{"attributeNames": [', headers: { 'content-type': 'application/json' } });
      expect(r.status).toBe(400);
      expect(r.body.statusString).toMatch(/^Malformed JSON body/);
    });

    it('learn on a frozen project, then unfreeze', async () => {
      expect((await alice.request('GET', '/projects/bad/freeze')).status).toBe(200);
      const frozen = await alice.learn('bad', frame(['x'], ['C'], [[2]]));
      expect(frozen.body).toEqual({ statusCode: 400, statusString: 'Project [bad] is frozen: unfreeze it before learning or forgetting', values: {} });
      const info = (await alice.projectInfo('bad')).body.values as { smlInfo: { params: Record<string, string> } };
      expect(info.smlInfo.params.sml_project_is_freeze).toBe('true');
      await alice.request('GET', '/projects/bad/unfreeze');
      expect((await alice.learn('bad', frame(['x'], ['C'], [[2]]))).status).toBe(200);
      await alice.forget('bad', frame(['x'], ['C'], [[2]]));
    });

    it("learn into another customer's project → 400 Cannot Find Project", async () => {
      const r = await bob.learn('bad', frame(['x'], ['C'], [[1]]));
      expect(r.body).toEqual({ statusCode: 400, statusString: 'Cannot Find Project id[bad] for Customer id [bob]', values: {} });
    });
  });

  it('async learn is a job whose result reads 200 Job is finished', async () => {
    await alice.createProject('asy');
    const r = await alice.learn('asy', frame(['x'], ['C'], [[1], [2]]), { async: true });
    expect(r.status).toBe(202);
    expect(r.headers['sym-job-id']).toMatch(/^\d+$/);
    expect(r.headers.location).toBe(`${sys.basePath}/alice/jobs/${r.headers['sym-job-id']}`);
    const done = await alice.waitForJob(r);
    expect(done.body).toEqual({ statusCode: 200, statusString: 'Job is finished', values: {} });
    expect(Number((await reader.parts('alice', 'asy', {})).rowCount)).toBe(2);
  });

  it('projects that read cells get the JSON: the gateway sends columns, is asked for the JSON and sends it (sync and async)', async () => {
    // A partition project: partitions read the rows' cells, which frame columns do not carry.
    await alice.createProject('parts', { type: 'partition', params: { partitionSplit: 'g' } });
    const rows = [[1, 'a'], [2, 'a'], [10, 'b']];
    expect((await alice.learn('parts', frame(['x', 'g'], ['C', 'T'], rows))).body).toEqual({ statusCode: 200, statusString: 'OK', values: {} });
    const job = await alice.learn('parts', frame(['x', 'g'], ['C', 'T'], [[4, 'b']]), { async: true });
    expect(job.status).toBe(202);
    expect((await alice.waitForJob(job)).body).toEqual({ statusCode: 200, statusString: 'Job is finished', values: {} });
    const whole = await reader.parts('alice', 'parts', { attributeNames: ['x'], moments: true });
    expect(Number(whole.rowCount)).toBe(4);
    expect(whole.moments[0].sum).toBe(17);
  });

  it('a large frame is hashed and read on the gateway\'s body threads, in one trip; the JSON a partition project asks for is the body as sent', async () => {
    const threadTasks = async () => {
      const text = await (await fetch(`${sys.url}/metrics`)).text();
      return ['digest', 'digest_frame', 'frame'].map((kind) => Number(new RegExp(`sml_gateway_body_thread_tasks_total\\{kind="${kind}"\\} (\\d+)`).exec(text)?.[1] ?? 0));
    };
    const before = await threadTasks();
    // ≈ 400 kB, over SML_GATEWAY_BODY_THREAD_MIN_BYTES (256 KiB).
    const rows = Array.from({ length: 30_000 }, (_, i) => [i % 100, i % 3 === 0 ? 'a' : 'b']);
    await alice.createProject('bigparts', { type: 'partition', params: { partitionSplit: 'g' } });
    await alice.createProject('big');
    expect((await alice.learn('bigparts', frame(['x', 'g'], ['C', 'T'], rows))).status).toBe(200);
    expect((await alice.learn('big', frame(['x', 'y'], ['C', 'C'], rows.map(([x]) => [x, x])))).status).toBe(200);
    expect(await threadTasks()).toEqual([before[0], before[1] + 2, before[2]]);
    const sum = rows.reduce((s, [x]) => s + Number(x), 0);
    for (const pid of ['bigparts', 'big']) {
      const parts = await reader.parts('alice', pid, { attributeNames: ['x'], moments: true });
      expect([Number(parts.rowCount), parts.moments[0].sum]).toEqual([30_000, sum]);
    }
  });

  it('a batch sent again with the same Idempotency-Key is learned once (the log refuses the duplicate, the project reloads)', async () => {
    await alice.createProject('idem');
    const once = { json: frame(['x'], ['C'], [[1], [2], [3]]), headers: { 'Idempotency-Key': 'batch-1' } };
    expect((await alice.request('POST', '/projects/idem/learn', once)).status).toBe(200);
    // Applied in memory again, then JetStream says duplicate: the project is dropped and reloaded from its log.
    expect((await alice.request('POST', '/projects/idem/learn', once)).status).toBe(200);
    let parts = await reader.parts('alice', 'idem', { attributeNames: ['x'], moments: true });
    expect([Number(parts.rowCount), parts.moments[0].sum]).toEqual([3, 6]);
    // The same rows under another key are another batch.
    expect((await alice.request('POST', '/projects/idem/learn', { ...once, headers: { 'Idempotency-Key': 'batch-2' } })).status).toBe(200);
    parts = await reader.parts('alice', 'idem', { attributeNames: ['x'], moments: true });
    expect([Number(parts.rowCount), parts.moments[0].sum]).toEqual([6, 12]);
  });

  it('merge adds the other project; list and delete', async () => {
    await alice.createProject('m1');
    await alice.createProject('m2');
    await alice.learn('m1', frame(['x'], ['C'], [[1], [2]]));
    await alice.learn('m2', frame(['x'], ['C'], [[10]]));
    expect((await alice.request('GET', '/projects/m1/merge', { query: { otherProjectName: 'm2' } })).status).toBe(200);
    const m = (await reader.parts('alice', 'm1', { moments: true })).moments[0];
    expect([m.count, m.sum, m.sumSquares]).toEqual([3, 13, 105]);
    const list = (await alice.listProjects()).body.values as { stringList: { values: string[] } };
    expect(list.stringList.values).toEqual(expect.arrayContaining(['m1', 'm2', 'iris']));
    expect((await alice.deleteProject('m2')).status).toBe(200);
    expect((await alice.projectInfo('m2')).status).toBe(400);
    expect(((await bob.listProjects()).body.values as { stringList: { values: string[] } }).stringList.values).toEqual([]);
  });

  it('a new project does not inherit what an interrupted import or delete left under its id', async () => {
    // As if an import died after writing its snapshot, and a delete after removing the metadata only.
    const nc = await connect({ servers: sys.nats.url, ...sys.nats.connectOptions('projects') });
    const store = await ProjectStore.open(nc);
    const old = new Summary();
    old.learn(frame(['x'], ['C'], [[5], [6]]));
    await store.snapshot('alice', 'ghost', old.serialize(), 0);
    await store.append('alice', 'ghost', { op: 'learn', frame: { attributeNames: ['x'], attributeTypes: ['C'], data: [{ entries: ['7'] }] } }, 0);
    await nc.close();
    expect((await alice.createProject('ghost')).status).toBe(201);
    expect((await alice.request('GET', '/projects/ghost/unload')).status).toBe(200);
    // Reloaded from the store: nothing of the leftovers (they would give x with 3 rows).
    expect((await reader.parts('alice', 'ghost', { moments: true })).moments).toEqual([]);
    expect((await alice.deleteProject('ghost')).status).toBe(200);
  });

  it('unload drops a project from memory; the next access reloads it exactly; persist=false is gone after a restart', async () => {
    await alice.createProject('mem', { persist: false });
    await alice.learn('mem', frame(['x'], ['C'], [[1]]));
    const before = (await alice.projectInfo('iris', { hash: true })).body.values as { smlInfo: { hash: number } };
    expect((await alice.request('GET', '/projects/iris/unload')).status).toBe(200);
    const reloaded = (await alice.projectInfo('iris', { hash: true })).body.values as { smlInfo: { hash: number; loaded: boolean; persisted: boolean; isDirty: boolean } };
    expect(reloaded.smlInfo).toEqual(expect.objectContaining({ hash: before.smlInfo.hash, loaded: false, persisted: true, isDirty: false }));

    await sys.kill('projects', 'SIGTERM');
    await sys.start('projects');
    expect((await alice.projectInfo('mem')).status).toBe(400);
    const again = (await alice.projectInfo('iris', { hash: true })).body.values as { smlInfo: { hash: number } };
    expect(again.smlInfo.hash).toBe(before.smlInfo.hash);
  });
});

import { createHash } from 'node:crypto';
import type { SmlClient, SmlResponse } from '@sml/sdk';
import { startSystem, type RunningSystem } from '@sml/testkit';
import { customer, frame } from './helpers';

// API.md §12: GET /projects/info, rename, project and model export/import (transfer.ts).

const MAX_EXPORT_BYTES = 1024 * 1024;
type Doc = Record<string, unknown>;

const decode = (text: string): Doc => JSON.parse(Buffer.from(text, 'base64').toString('utf8')) as Doc;
/** A document as an exporter would write it (its sha256 recomputed): only what the import checks beyond the digest can refuse it. */
const encode = (doc: Doc): string => {
  const { sha256: _, ...rest } = doc;
  const digest = createHash('sha256').update(JSON.stringify(rest)).digest('hex');
  return Buffer.from(JSON.stringify({ ...rest, sha256: digest })).toString('base64');
};

describe('project and model transfer end to end', () => {
  let sys: RunningSystem;
  let alice: SmlClient;
  let bob: SmlClient;
  let exported: string;
  let exportedStatus: string;

  // y = 1 + 2·x1 − x2 + noise; b = y > 3; categorical cls = a/b/c.
  const rows = Array.from({ length: 150 }, (_, i) => {
    const x1 = (i % 17) / 3;
    const x2 = ((i * 7) % 11) / 2;
    const y = 1 + 2 * x1 - x2 + ((i % 5) - 2) * 0.1;
    return [x1, x2, (i % 3) * 0.5, y, y > 3 ? 1 : 0, ['a', 'b', 'c'][i % 3]];
  });
  const data = frame(['x1', 'x2', 'x3', 'y', 'b', 'cls'], ['C', 'C', 'C', 'C', 'B', 'T'], rows);
  const inputs = ['x1', 'x2', 'x3'];
  const scoring = frame(inputs, ['C', 'C', 'C'], [[3, 2, 0.5], [0, 5, 0], [5, 0, 1], [1.5, 1.5, 0]]);

  const ok = async <V>(p: Promise<SmlResponse<V>>, status = 200): Promise<V> => {
    const r = await p;
    if (r.status !== status) throw new Error(`${r.status} ${r.body.statusString}`);
    return r.body.values as V;
  };

  /** Everything a client can read of a project: explore (uni, bi, a t-test, chi2, densities), its attributes and models, and both models' predictions. */
  const answers = async (sdk: SmlClient, pid: string, models = ['m_mlr', 'm_lr']) => {
    // Without the smlInfo explore answers with (its pid, isDirty and persisted are the project's own).
    const statistics = async (r: Promise<SmlResponse<Record<string, unknown>>>) => {
      const { smlInfo: _, ...values } = await ok(r);
      return values;
    };
    const explore = (metric: string, values: unknown[]) => statistics(sdk.request('POST', `/projects/${pid}/explore`, { query: { metric }, json: { values } }));
    const info = (await ok(sdk.request<{ smlInfo: Record<string, unknown> }>('GET', `/projects/${pid}/info`))).smlInfo;
    return {
      uni: await explore('uni', ['x1', 'y', 'b', 'cls$a'].map((a) => ({ inputAttributeNames: [a] }))),
      bi: await explore('bi', [{ inputAttributeNames: ['x1', 'y'] }, { inputAttributeNames: ['x2', 'b'] }]),
      ttest: await explore('ttest', [{ inputAttributeNames: ['x1', 'y'] }, { inputAttributeNames: ['y', 'cls$a', 'cls$b'] }]),
      chi2: await explore('chi2', [{ inputAttributeNames: ['b'], targetAttributeNames: ['cls$a'] }]),
      density: await statistics(sdk.request('POST', `/projects/${pid}/densityEstimate`, { json: { values: [{ inputAttributeNames: ['x1'] }, { inputAttributeNames: ['y'] }] } })),
      attributes: [info.attributeNames, info.attributeTypes, info.modelsList, info.modelTypeList, info.params, info.histogramEnabled, info.type],
      predictions: await Promise.all(models.map((m) => ok(sdk.request('POST', `/projects/${pid}/predict/${m}`, { json: scoring })))),
    };
  };

  const pids = async (sdk: SmlClient) => (await ok(sdk.request<{ stringList: { values: string[] } }>('GET', '/projects/list'))).stringList.values;

  beforeAll(async () => {
    sys = await startSystem({ services: ['users', 'jobs', 'projects', 'explore'], env: { SML_MAX_EXPORT_BYTES: String(MAX_EXPORT_BYTES), SML_MAX_PROJECTS_PER_CUSTOMER: '4' } });
    alice = await customer(sys, 'alice');
    bob = await customer(sys, 'bob');
    expect((await alice.createProject('p', { enableHistogram: true })).status).toBe(201);
    expect((await alice.learn('p', data)).status).toBe(200);
    const built = await alice.request('POST', '/projects/p/build', { query: { modelid: 'm_mlr', algo: 'mlr' }, json: { inputAttributeNames: inputs, targetAttributeNames: ['y'] } });
    expect((await alice.waitForJob(built)).status).toBe(200);
    const selected = await alice.request('POST', '/projects/p/selectModel', {
      query: { modelid: 'm_lr', algo: 'lr' }, json: { mlcontext: { inputAttributeNames: inputs, targetAttributeNames: ['b'], extraParameters: {} }, dataframe: data },
    });
    expect((await alice.waitForJob(selected)).status).toBe(200);
    const r = await alice.request<{ document: string; status: string }>('GET', '/projects/p/export');
    expect(r.status).toBe(200);
    exported = r.body.values!.document;
    exportedStatus = r.body.values!.status;
  }, 120_000);
  afterAll(() => sys?.stop());

  it('exports a versioned document holding settings, statistics and both models', () => {
    // values.document names it; values.status carries the same for SymetryML's clients.
    expect(exportedStatus).toBe(exported);
    const doc = decode(exported);
    expect(doc).toMatchObject({ format: 'sml-project', version: 1, project: { pid: 'p', type: 'cpu', histogramEnabled: true } });
    expect((doc.models as Array<{ info: { modelId: string } }>).map((m) => m.info.modelId).sort()).toEqual(['m_lr', 'm_mlr']);
  });

  it('an import under another name, and by another customer, answers every explore and model request identically', async () => {
    const original = await answers(alice, 'p');
    expect(await ok(alice.request('POST', '/projects/import', { query: { pid: 'q' }, raw: exported }))).toEqual({});
    expect(await answers(alice, 'q')).toEqual(original);
    // SymetryML's path form, with the export's whole envelope as a JSON body.
    const envelope = { statusCode: 200, statusString: 'OK', values: { status: exported } };
    const r = await bob.request('POST', '/projects/p2/import', { json: envelope });
    expect({ status: r.status, message: r.body.statusString }).toEqual({ status: 200, message: 'Project [p2] imported' });
    // SML's own key alone reads as well.
    const byDocument = await bob.request('POST', '/projects/p3/import', { json: { statusCode: 200, statusString: 'OK', values: { document: exported } } });
    expect({ status: byDocument.status, message: byDocument.body.statusString }).toEqual({ status: 200, message: 'Project [p3] imported' });
    expect((await bob.deleteProject('p3')).status).toBe(200);
    expect(await answers(bob, 'p2')).toEqual(original);
    // Learning goes on from the imported statistics exactly as from the original's.
    expect((await alice.learn('p', data)).status).toBe(200);
    expect((await bob.learn('p2', data)).status).toBe(200);
    const again = await answers(alice, 'p');
    expect((await answers(bob, 'p2')).uni).toEqual(again.uni);
    expect((await bob.forget('p2', data)).status).toBe(200);
    // The id it was exported with by default; an existing id is a conflict.
    expect((await bob.request('POST', '/projects/import', { raw: exported })).status).toBe(200);
    expect(await pids(bob)).toEqual(['p', 'p2']);
    const conflict = await bob.request('POST', '/projects/import', { raw: exported });
    expect(conflict.status).toBe(409);
  });

  it('model export/import: the model predicts identically in another project and customer', async () => {
    const r = await alice.request<{ document: string; status: string }>('GET', '/projects/p/model/export', { query: { modelid: 'm_lr' } });
    expect(r.status).toBe(200);
    expect(r.body.values!.status).toBe(r.body.values!.document);
    expect(decode(r.body.values!.document)).toMatchObject({ format: 'sml-model', version: 1, model: { info: { modelId: 'm_lr', algo: 'lr' } } });
    expect((await bob.createProject('empty')).status).toBe(201);
    // A model goes only into a project that has its input attributes (import-validation.e2e.test.ts).
    expect((await bob.learn('empty', scoring)).status).toBe(200);
    const imported = await bob.request('POST', '/projects/empty/model/import', { query: { modelid: 'copy' }, raw: r.body.values!.status });
    expect({ status: imported.status, message: imported.body.statusString }).toEqual({ status: 200, message: 'Model [copy] imported into project [empty]' });
    const predict = (sdk: SmlClient, pid: string, m: string) => ok(sdk.request('POST', `/projects/${pid}/predict/${m}`, { json: scoring }));
    expect(await predict(bob, 'empty', 'copy')).toEqual(await predict(alice, 'p', 'm_lr'));
    expect((await alice.request('GET', '/projects/p/model/export', { query: { modelid: 'nope' } })).status).toBe(400);
    expect((await bob.request('POST', '/projects/nope/model/import', { raw: r.body.values!.status })).status).toBe(400);
    // A project document is no model document.
    const wrong = await bob.request('POST', '/projects/empty/model/import', { raw: exported });
    expect(wrong.status).toBe(400);
    expect(wrong.body.statusString).toContain('format is [sml-project], expected [sml-model]');
  });

  it('rename keeps the statistics and models; the old id is gone; an existing new name is 409', async () => {
    const before = await answers(alice, 'q');
    const r = await alice.request('GET', '/projects/q/rename', { query: { newName: 'r' } });
    expect({ status: r.status, message: r.body.statusString }).toEqual({ status: 200, message: 'Project [q] renamed to [r]' });
    expect(await answers(alice, 'r')).toEqual(before);
    expect((await alice.request('GET', '/projects/q/info')).status).toBe(400);
    expect((await alice.request('POST', '/projects/q/predict/m_lr', { json: scoring })).status).toBe(400);
    expect(await pids(alice)).toEqual(['p', 'r']);
    expect((await alice.request('GET', '/projects/r/rename', { query: { newName: 'p' } })).status).toBe(409);
    // Still there after a reload from what is stored.
    expect((await alice.request('GET', '/projects/r/unload')).status).toBe(200);
    expect(await answers(alice, 'r')).toEqual(before);
  });

  it('refuses tampered, oversized, unknown-version and hostile documents with 400, creating nothing', async () => {
    const before = await pids(alice);
    const refused = async (body: string | object, text: string) => {
      const r = await alice.request('POST', '/projects/import', { query: { pid: 'bad' }, ...(typeof body === 'string' ? { raw: body } : { json: body }) });
      expect({ status: r.status, message: r.body.statusString }).toEqual({ status: 400, message: expect.stringContaining(text) });
    };
    const doc = decode(exported);
    // One character of the base64 text changed.
    const i = Math.floor(exported.length / 2);
    await refused(exported.slice(0, i) + (exported[i] === 'A' ? 'B' : 'A') + exported.slice(i + 1), 'Invalid project document');
    await refused(Buffer.from(JSON.stringify({ ...doc, exportedAt: 1 })).toString('base64'), 'sha256 does not match');
    await refused('not base64!', 'not base64 text');
    await refused(encode({ ...doc, version: 2 }), 'Unsupported project document version [2]: this build reads version 1');
    await refused(encode({ ...doc, version: undefined }), 'Unsupported project document version [none]');
    await refused(encode({ ...doc, format: 'sml-model' }), 'format is [sml-model]');
    await refused(encode({ ...doc, summary: Buffer.from('SMLS....').toString('base64') }), 'summary does not match its summarySha256');
    await refused(encode({ ...doc, project: { ...(doc.project as Doc), type: 'sequence' } }), 'summary cannot be imported');
    await refused(encode({ ...doc, project: { ...(doc.project as Doc), type: 'nope' } }), 'would not create a project');
    const models = doc.models as Array<Doc>;
    await refused(encode({ ...doc, models: [{ ...models[0], state: '{}' }] }), 'does not match its stateSha256');
    await refused(encode({ ...doc, models: [models[0], models[0]] }), 'two models have the same id');
    // A summary claiming a million attributes: refused before its statistics are allocated.
    const genuine = Buffer.from(doc.summary as string, 'base64');
    const optionsEnd = 12 + genuine.readUInt32LE(8);
    const hostile = Buffer.concat([genuine.subarray(0, optionsEnd), Buffer.alloc(8), Buffer.from(new Uint32Array([1_000_000]).buffer)]);
    await refused(encode({ ...doc, summary: hostile.toString('base64'), summarySha256: createHash('sha256').update(hostile).digest('hex') }), 'over the limit of 2000');
    // Over SML_MAX_EXPORT_BYTES, before it is decoded.
    await refused('A'.repeat(MAX_EXPORT_BYTES + 4), `more than ${MAX_EXPORT_BYTES} (SML_MAX_EXPORT_BYTES)`);
    expect(await pids(alice)).toEqual(before);
    expect((await alice.request('GET', '/projects/bad/info')).status).toBe(400);
  });

  it('an import counts against the project limit; a project whose document would pass SML_MAX_EXPORT_BYTES is not exported', async () => {
    // bob: p, p2, empty; one more fits (SML_MAX_PROJECTS_PER_CUSTOMER = 4).
    expect((await bob.request('POST', '/projects/import', { query: { pid: 'fourth' }, raw: exported })).status).toBe(200);
    const limit = await bob.request('POST', '/projects/import', { query: { pid: 'fifth' }, raw: exported });
    expect({ status: limit.status, message: limit.body.statusString }).toEqual({ status: 400, message: expect.stringContaining('SML_MAX_PROJECTS_PER_CUSTOMER') });
    expect(await pids(bob)).toEqual(['empty', 'fourth', 'p', 'p2']);
    // 300 attributes: ~45 000 pairs of statistics, several MB.
    const names = Array.from({ length: 300 }, (_, j) => `a${j}`);
    expect((await alice.createProject('wide')).status).toBe(201);
    expect((await alice.learn('wide', frame(names, names.map(() => 'C'), [names.map((_, j) => j), names.map((_, j) => 2 * j)]))).status).toBe(200);
    const big = await alice.request('GET', '/projects/wide/export');
    expect({ status: big.status, message: big.body.statusString }).toEqual({ status: 400, message: expect.stringContaining('(SML_MAX_EXPORT_BYTES)') });
    expect((await alice.request('DELETE', '/projects/wide')).status).toBe(200);
  });

  it('GET /projects/info lists every project: a job by default, at once with async=false', async () => {
    const job = await alice.request('GET', '/projects/info');
    expect(job.status).toBe(202);
    const done = await alice.waitForJob<{ smlInfoList: { values: Array<{ pid: string; modelsList: string[] }> } }>(job);
    expect(done.status).toBe(200);
    const list = done.body.values!.smlInfoList.values;
    expect(list.map((p) => p.pid)).toEqual(await pids(alice));
    expect(list.find((p) => p.pid === 'r')?.modelsList.sort()).toEqual(['m_lr', 'm_mlr']);
    const now = await alice.request<{ smlInfoList: { values: Array<{ pid: string }> } }>('GET', '/projects/info', { query: { async: 'false' } });
    expect(now.status).toBe(200);
    expect(now.body.values!.smlInfoList.values.map((p) => p.pid)).toEqual(list.map((p) => p.pid));
    const bobs = await bob.request<{ smlInfoList: { values: Array<{ pid: string }> } }>('GET', '/projects/info', { query: { async: 'false' } });
    expect(bobs.body.values!.smlInfoList.values.map((p) => p.pid)).toEqual(['empty', 'fourth', 'p', 'p2']);
  });
});

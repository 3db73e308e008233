import { createHash } from 'node:crypto';
import { connect } from 'nats';
import { nameToken } from '@sml/core';
import { sml } from '@sml/proto';
import type { SmlClient, SmlResponse } from '@sml/sdk';
import { Summary } from '@sml/stats';
import { newCustomer, sharedSystem, type SharedSystem } from '@sml/testkit';
import { frame } from './helpers';

// Issue 29, items 8-10: what an import checks beyond the document's digests, which anyone
// recomputes (transfer.ts): every model state through its algorithm's own reader, the model's
// input attributes in the project it goes into, every number of the summary. Each refusal is a
// 400 naming the model or the attribute, and nothing is written.

type Doc = Record<string, unknown>;
type ModelEntry = { info: { modelId: string; algo: string }; state: string; evt: string; evtKey: string; stateSha256: string };

const sha = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');
const decode = (text: string): Doc => JSON.parse(Buffer.from(text, 'base64').toString('utf8')) as Doc;
/** A document as an exporter would write it: its sha256 recomputed, so that only the checks beyond the digest can refuse it. */
const encode = (doc: Doc): string => {
  const { sha256: _, ...rest } = doc;
  return Buffer.from(JSON.stringify({ ...rest, sha256: sha(JSON.stringify(rest)) })).toString('base64');
};
/** A model entry with another state, its stateSha256 recomputed. */
const withState = (m: ModelEntry, state: string): ModelEntry => ({ ...m, state, stateSha256: sha(state) });
/** The project document with one model's state replaced. */
const projectWith = (doc: Doc, model: string, state: string) =>
  encode({ ...doc, models: (doc.models as ModelEntry[]).map((m) => (m.info.modelId === model ? withState(m, state) : m)) });
/** The document's summary changed (`change` gets the deserialized summary's internals), summarySha256 recomputed. */
const summaryWith = (doc: Doc, change: (s: { rows: number; store: { attrs: Float64Array } }, attributes: string[]) => void) => {
  const summary = Summary.deserialize(Buffer.from(doc.summary as string, 'base64'));
  change((summary as unknown as { attributes: { rows: number; store: { attrs: Float64Array } } }).attributes, summary.attributeNames);
  const bytes = summary.serialize();
  return encode({ ...doc, summary: Buffer.from(bytes).toString('base64'), summarySha256: sha(bytes) });
};
/** Per attribute: n, Σx (2), Σx² (2), Σx³ (2), Σx⁴ (2), min, max (moments.ts ATTR). */
const STRIDE = 11;

describe('an import checks model states, model inputs and summary statistics', () => {
  let sys: SharedSystem;
  let alice: SmlClient;
  let exported: string;
  let doc: Doc;
  let mlrState: Doc;

  const rows = Array.from({ length: 120 }, (_, i) => {
    const x1 = (i % 17) / 3;
    const x2 = ((i * 7) % 11) / 2;
    const y = 1 + 2 * x1 - x2 + ((i % 5) - 2) * 0.1;
    return [x1, x2, y, y > 3 ? 1 : 0, ['a', 'b', 'c'][i % 3]];
  });
  const data = frame(['x1', 'x2', 'y', 'b', 'cls'], ['C', 'C', 'C', 'B', 'T'], rows);
  const scoring = frame(['x1', 'x2'], ['C', 'C'], [[3, 2], [0, 5], [5, 0]]);

  const predict = (pid: string, model: string) => alice.request('POST', `/projects/${pid}/predict/${model}`, { json: scoring });
  const pids = async () => (await alice.request<{ stringList: { values: string[] } }>('GET', '/projects/list')).body.values!.stringList.values;
  const answer = (r: SmlResponse<unknown>) => ({ status: r.status, message: r.body.statusString });
  const importProject = async (document: string) => answer(await alice.request('POST', '/projects/import', { query: { pid: 'imported' }, raw: document }));

  beforeAll(async () => {
    sys = await sharedSystem('limits');
    alice = (await newCustomer(sys, 'alice')).sdk;
    expect((await alice.createProject('p', { enableHistogram: true })).status).toBe(201);
    expect((await alice.learn('p', data)).status).toBe(200);
    for (const [model, algo, target] of [['m_mlr', 'mlr', 'y'], ['m_lr', 'lr', 'b']]) {
      const built = await alice.request('POST', '/projects/p/build', { query: { modelid: model, algo }, json: { inputAttributeNames: ['x1', 'x2'], targetAttributeNames: [target] } });
      expect((await alice.waitForJob(built)).status).toBe(200);
    }
    exported = (await alice.request<{ status: string }>('GET', '/projects/p/export')).body.values!.status;
    doc = decode(exported);
    mlrState = JSON.parse((doc.models as ModelEntry[]).find((m) => m.info.modelId === 'm_mlr')!.state) as Doc;
    // A project with the same models, to import single models into.
    expect((await alice.request('POST', '/projects/import', { query: { pid: 'q' }, raw: exported })).status).toBe(200);
  }, 120_000);
  afterAll(() => alice?.close());

  const unreadable: [string, () => string][] = [
    ['{}', () => '{}'],
    ['a deeply nested array', () => `${'['.repeat(100_000)}${']'.repeat(100_000)}`],
    ['null', () => 'null'],
    ['one coefficient fewer than inputs', () => JSON.stringify({ ...mlrState, coef: (mlrState.coef as number[]).slice(1) })],
    ['coefficients that are arrays', () => JSON.stringify({ ...mlrState, coef: (mlrState.coef as number[]).map(() => [[1]]) })],
    ['a mean that is text', () => JSON.stringify({ ...mlrState, means: ['1', '2'] })],
    ['no inputNames', () => JSON.stringify({ ...mlrState, inputNames: undefined })],
    ['another algorithm', () => JSON.stringify({ ...mlrState, algo: 'lda' })],
  ];

  it.each(unreadable)('a project import whose model state is %s: 400 naming the model, nothing imported', async (_, state) => {
    const before = await pids();
    expect(await importProject(projectWith(doc, 'm_mlr', state()))).toEqual({ status: 400, message: expect.stringMatching(/^Invalid project document: .*model \[m_mlr\].*nothing was imported$/) });
    expect(await pids()).toEqual(before);
  });

  it.each(unreadable)('a model import whose state is %s: 400 naming the model; the model it would replace still predicts', async (_, state) => {
    const exportedModel = (await alice.request<{ status: string }>('GET', '/projects/p/model/export', { query: { modelid: 'm_mlr' } })).body.values!.status;
    const model = decode(exportedModel);
    const before = await predict('q', 'm_mlr');
    expect(before.status).toBe(200);
    const r = await alice.request('POST', '/projects/q/model/import', { raw: encode({ ...model, model: withState(model.model as ModelEntry, state()) }) });
    expect(answer(r)).toEqual({ status: 400, message: expect.stringMatching(/^Invalid model document: .*model \[m_mlr\].*nothing was imported$/) });
    const after = await predict('q', 'm_mlr');
    expect({ status: after.status, values: after.body.values }).toEqual({ status: 200, values: before.body.values });
  });

  it('a model whose input attributes the project lacks: 400 naming them, at model and at project import', async () => {
    expect((await alice.createProject('only_q')).status).toBe(201);
    expect((await alice.learn('only_q', frame(['q'], ['C'], [[1], [2], [3]]))).status).toBe(200);
    const exportedModel = (await alice.request<{ status: string }>('GET', '/projects/p/model/export', { query: { modelid: 'm_mlr' } })).body.values!.status;
    const r = await alice.request('POST', '/projects/only_q/model/import', { raw: exportedModel });
    expect(answer(r)).toEqual({ status: 400, message: 'Invalid model document: model [m_mlr] reads input attributes project [only_q] does not have: [x1], [x2]; nothing was imported' });
    expect((await alice.request('GET', '/projects/only_q/models/m_mlr')).status).toBe(400);
    // A project document whose summary is only_q's and whose models are p's.
    const other = decode((await alice.request<{ status: string }>('GET', '/projects/only_q/export')).body.values!.status);
    const before = await pids();
    expect(await importProject(encode({ ...other, models: doc.models }))).toEqual({
      status: 400, message: expect.stringContaining('model [m_mlr] reads input attributes project [imported] does not have: [x1], [x2]'),
    });
    expect(await pids()).toEqual(before);
  });

  it('an EVT state over SML_MAX_EVT_WINDOW, or a forest whose tree loops back to its root: 400 naming the model', async () => {
    // An evt model of p's, its warm-up over the service's bound (what a build would refuse).
    const evt = await alice.request('POST', '/projects/p/build', { query: { modelid: 'm_evt', algo: 'evt' }, json: { inputAttributeNames: ['x1'], extraParameters: { evt_warmup_size: '20' } } });
    expect((await alice.waitForJob(evt)).status).toBe(200);
    const model = decode((await alice.request<{ status: string }>('GET', '/projects/p/model/export', { query: { modelid: 'm_evt' } })).body.values!.status);
    const entry = model.model as ModelEntry;
    const state = JSON.parse(entry.state) as { wrapper: { params: { warmupSize: number } } };
    state.wrapper.params.warmupSize = 100_000;
    const r = await alice.request('POST', '/projects/q/model/import', { raw: encode({ ...model, model: withState(entry, JSON.stringify(state)) }) });
    expect(answer(r)).toEqual({ status: 400, message: expect.stringMatching(/^Invalid model document: the state of model \[m_evt\] cannot be read \(.*evt_warmup_size.*SML_MAX_EVT_WINDOW.*\); nothing was imported$/) });
    expect((await alice.request('DELETE', '/projects/p/models/m_evt')).status).toBe(200);

    expect((await alice.createProject('forest', { params: { rf_type: 'rf_regressor', rf_target_name: 'y', rf_features: 'x1:x2', rf_num_trees: '2' } })).status).toBe(201);
    expect((await alice.learn('forest', data)).status).toBe(200);
    const rf = await alice.request('POST', '/projects/forest/build', { query: { modelid: 'm_rf', algo: 'rf_regressor' }, json: { targetAttributeNames: ['y'] } });
    expect((await alice.waitForJob(rf)).status).toBe(200);
    const forest = decode((await alice.request<{ status: string }>('GET', '/projects/forest/model/export', { query: { modelid: 'm_rf' } })).body.values!.status);
    const rfEntry = forest.model as ModelEntry;
    const rfState = JSON.parse(rfEntry.state) as { trees: string[]; stride: number };
    const nodes = new Float64Array(new Uint8Array(Buffer.from(rfState.trees[0], 'base64')).buffer);
    nodes[2] = 0; // the root's left child: the root itself
    rfState.trees[0] = Buffer.from(nodes.buffer).toString('base64');
    const looped = await alice.request('POST', '/projects/forest/model/import', { query: { modelid: 'loop' }, raw: encode({ ...forest, model: withState(rfEntry, JSON.stringify(rfState)) }) });
    expect(answer(looped)).toEqual({ status: 400, message: 'Invalid model document: the state of model [loop] cannot be read (state.trees[0]: node 0 has child 0, not a node of its own); nothing was imported' });
    expect((await alice.request('POST', '/projects/forest/predict/m_rf', { json: scoring })).status).toBe(200);
    expect((await alice.request('DELETE', '/projects/forest')).status).toBe(200);
  });

  const counts: [string, number][] = [['NaN', NaN], ['Infinity', Infinity], ['-Infinity', -Infinity], ['-1', -1], ['2.5', 2.5]];

  it.each(counts)('a summary whose attribute count is %s: 400 naming the attribute, nothing imported', async (_, v) => {
    const before = await pids();
    const document = summaryWith(doc, (s, names) => {
      s.store.attrs[names.indexOf('x2') * STRIDE] = v;
    });
    expect(await importProject(document)).toEqual({ status: 400, message: expect.stringMatching(/^Invalid project document: its summary cannot be imported \(imported statistics are inconsistent: .*\[x2\]\); nothing was imported$/) });
    expect(await pids()).toEqual(before);
  });

  it.each(counts)('a summary whose row count is %s: 400, nothing imported', async (_, v) => {
    const document = summaryWith(doc, (s) => {
      s.rows = v;
    });
    expect(await importProject(document)).toEqual({ status: 400, message: expect.stringContaining(`the row count is ${v}, not a whole number ≥ 0`) });
  });

  it('a summary with min over max, or categorical levels that do not add up: 400 naming the attribute', async () => {
    expect(await importProject(summaryWith(doc, (s, names) => {
      s.store.attrs[names.indexOf('x1') * STRIDE + 9] = 1e9;
    }))).toEqual({ status: 400, message: expect.stringContaining('are not an interval of values [x1]') });
    expect(await importProject(summaryWith(doc, (s, names) => {
      s.store.attrs[names.indexOf('cls$a') * STRIDE + 1] += 1;
    }))).toEqual({ status: 400, message: expect.stringContaining('the levels of [cls] add up to 121 of the 120 rows') });
  });

  it('a stored state its reader refuses (written before imports were checked): predict answers 400 naming the model, not an internal error', async () => {
    expect(await importProject(exported)).toEqual({ status: 200, message: 'Project [imported] imported' });
    expect((await predict('imported', 'm_lr')).status).toBe(200);
    const nc = await connect({ servers: sys.nats.url, ...sys.nats.connectOptions('projects') });
    try {
      const kv = await nc.jetstream().views.kv('sml_models');
      const key = `${nameToken(alice.user)}.${nameToken('imported')}.${nameToken('m_lr')}`;
      const record = sml.v1.ModelRecord.decode((await kv.get(key))!.value);
      await kv.put(key, sml.v1.ModelRecord.encode({ ...record, stateJson: '{"algo":"lr","coef":[[[]]]}' }).finish());
    } finally {
      await nc.close();
    }
    // The KV watch drops the cached model; the next predict restores the stored state.
    let r = await predict('imported', 'm_lr');
    for (let i = 0; i < 50 && r.status === 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      r = await predict('imported', 'm_lr');
    }
    expect(answer(r)).toEqual({ status: 400, message: expect.stringMatching(/^Model \[m_lr\] of project \[imported\] has a state its algorithm cannot read \(state\.\w+ .*\): build it again/) });
    expect((await alice.request('DELETE', '/projects/imported')).status).toBe(200);
  });

  it('after every refusal: the source projects answer as before and the genuine document still imports', async () => {
    for (const pid of ['p', 'q']) for (const m of ['m_mlr', 'm_lr']) expect((await predict(pid, m)).status).toBe(200);
    expect(await importProject(exported)).toEqual({ status: 200, message: 'Project [imported] imported' });
    expect((await predict('imported', 'm_mlr')).body.values).toEqual((await predict('p', 'm_mlr')).body.values);
  });
});

import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { SmlClient, type SmlResponse } from '@sml/sdk';
import { Summary } from '@sml/stats';
import { startSystem, type RunningSystem } from '@sml/testkit';

/**
 * The adversarial suite's import documents (issue 29): project and model documents exported
 * from real models, mutated (model states at any depth: values of another type, nested arrays,
 * entries dropped or repeated, fields deleted; algorithms swapped; input names changed;
 * summary counts and sums NaN, ±Infinity, negative, fractional), their sha256 fields
 * recomputed so that every mutation reaches the checks behind the digests, and posted to
 * both import routes. Whatever is sent:
 * - no answer is a 5xx but the contract's (adversarial.e2e.test.ts CONTRACT_5XX);
 * - no process exits;
 * - whatever was imported predicts without a 5xx, and afterwards every model of the target
 *   project does.
 * Seeded (FC_SEED, FC_RUNS) like every property test here.
 */
const SEED = Number(process.env.FC_SEED ?? 20261129);
const RUNS = Number(process.env.FC_RUNS ?? 1000);
const CONTRACT_5XX = [/^Generic Exception \[/, /^Job was cancelled$/, /^Job queue of service \[\w+\] is full/];

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type ModelEntry = { info: { modelId: string; algo: string }; state: string; evt: string; evtKey: string; stateSha256: string };
type Doc = Record<string, unknown>;

const sha = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');
const decode = (text: string): Doc => JSON.parse(Buffer.from(text, 'base64').toString('utf8')) as Doc;
const encode = (doc: Doc): string => {
  const { sha256: _, ...rest } = doc;
  return Buffer.from(JSON.stringify({ ...rest, sha256: sha(JSON.stringify(rest)) })).toString('base64');
};

const NAMES = ['x', 'y', 'z', 'b', 'g'];
const rows = Array.from({ length: 80 }, (_, i) => {
  const x = Math.sin(i) * 3;
  const z = (i % 9) - 4;
  const y = 2 * x - z + ((i % 7) - 3) * 0.2;
  return [String(x), String(y), String(z), String(y > 0 ? 1 : 0), ['u', 'v', 'w'][i % 3]];
});
const data = { attributeNames: NAMES, attributeTypes: ['C', 'C', 'C', 'B', 'T'], data: rows, errorHandling: 0 };
const scoring = { attributeNames: ['x', 'y', 'z', 'b', 'g$u'], attributeTypes: ['C', 'C', 'C', 'B', 'C'], data: [['1', '2', '0', '1', '1'], ['', '-3', '2', '0', '0'], ['50', '', '', '', '']] };
/** [model, algo, inputs, targets, extraParameters]: a model of (almost) every kind a plain project builds. */
const MODELS: [string, string, string[], string[], Record<string, string>][] = [
  ['m_mlr', 'mlr', ['x', 'z'], ['y'], {}],
  ['m_ridge', 'ridge', ['x', 'z'], ['y'], {}],
  ['m_pcr', 'pcr', ['x', 'z'], ['y'], {}],
  ['m_lr', 'lr', ['x', 'z'], ['b'], {}],
  ['m_lda', 'lda', ['x', 'z'], ['b'], {}],
  ['m_bayes', 'bayes', ['x', 'z'], ['b'], {}],
  ['m_mlda', 'mlda', ['x', 'z'], ['g$u', 'g$v', 'g$w'], {}],
  ['m_covest', 'covest', ['x', 'y', 'z'], [], {}],
  ['m_hba', 'hba', ['x', 'y'], [], {}],
  ['m_ecod', 'ecod', ['x', 'y'], [], {}],
  ['m_oospca', 'oospca', ['x', 'y', 'z'], [], {}],
  ['m_repca', 'repca', ['x', 'y', 'z'], [], {}],
  ['m_evt', 'evt', ['x'], [], { evt_warmup_size: '10' }],
  ['m_powerreg', 'powerreg', ['x', 'z'], ['y'], {}],
];

/** Values a hostile exporter puts anywhere in a state. */
const hostile: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(null, {}, [], '', 'NaN', true, 0, -1, 1.5, 1e308, -1e308, 2 ** 53, 1e9, [[[]]], [null], [{}], { algo: 'mlr' }, '{}', [1, 2, 3]),
  fc.integer({ min: 1, max: 400 }).map((n): Json => JSON.parse(`${'['.repeat(n)}${']'.repeat(n)}`) as Json),
  fc.array(fc.double(), { maxLength: 5 }).map((a): Json => a.map((v) => (Number.isFinite(v) ? v : null))),
  fc.string({ maxLength: 10 }),
  // Numbers where numbers are: what gets past the readers, to the predicts.
  { arbitrary: fc.double().map((v): Json => (Number.isFinite(v) ? v : null)), weight: 3 },
  { arbitrary: fc.integer({ min: -3, max: 3 }), weight: 2 },
);

type Mutation = { op: 'replace' | 'drop' | 'repeat' | 'delete' | 'grow'; path: number[]; value: Json };
const mutation: fc.Arbitrary<Mutation> = fc.record({
  op: fc.constantFrom<Mutation['op']>('replace', 'replace', 'drop', 'repeat', 'delete', 'grow'),
  path: fc.array(fc.nat(), { minLength: 0, maxLength: 5 }),
  value: hostile,
});

/** `state` with one mutation at the node `path` leads to (each index taken modulo the keys or entries there). */
function mutate(state: Json, m: Mutation): Json {
  const copy = structuredClone(state);
  if (m.path.length === 0) return m.op === 'replace' ? m.value : copy;
  let parent: Json = copy;
  for (let d = 0; d < m.path.length; d++) {
    const keys: (string | number)[] = Array.isArray(parent) ? parent.map((_, i) => i) : parent !== null && typeof parent === 'object' ? Object.keys(parent) : [];
    if (keys.length === 0) break;
    const key = keys[m.path[d] % keys.length];
    const holder = parent as Record<string | number, Json>;
    const child = holder[key];
    const last = d === m.path.length - 1 || child === null || typeof child !== 'object';
    if (!last) {
      parent = child;
      continue;
    }
    if (m.op === 'replace') holder[key] = m.value;
    else if (m.op === 'delete') {
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete holder[key];
    } else if (Array.isArray(child)) {
      if (m.op === 'drop') child.pop();
      else if (m.op === 'repeat') child.push(structuredClone(child[0] ?? m.value));
      else child.push(m.value);
    } else holder[key] = m.value;
    break;
  }
  return copy;
}

type SummaryMutation = { field: 'attrs' | 'pairs' | 'rows'; at: number; value: number };
const summaryMutation: fc.Arbitrary<SummaryMutation> = fc.record({
  field: fc.constantFrom<SummaryMutation['field']>('attrs', 'attrs', 'pairs', 'rows'),
  at: fc.nat(),
  value: fc.constantFrom(NaN, Infinity, -Infinity, -1, 0.5, 2.5, 1e300, -1e300, 0, 1e9, 2 ** 53),
});

/**
 * The other kinds of project, for the models only they build: [kind, create options, frame,
 * [model, algo, inputs, targets]…, a frame to predict]. Each kind gets a source project and a
 * target project learning the same rows.
 */
type Kind = { kind: string; type?: string; params: Record<string, string>; frame: { attributeNames: string[]; attributeTypes: string[]; data: string[][] };
  models: [string, string, string[], string[]][]; predict: { attributeNames: string[]; attributeTypes: string[]; data: string[][] } };
const forestRows = rows.map(([x, y, z, b]) => [x, y, z, b]);
const KINDS: Kind[] = [
  { kind: 'rf', params: { rf_type: 'rf_classifier', rf_target_name: 'b', rf_features: 'x:z', rf_num_trees: '3' },
    frame: { attributeNames: ['x', 'y', 'z', 'b'], attributeTypes: ['C', 'C', 'C', 'B'], data: forestRows }, models: [['f_rf', 'rf_classifier', [], ['b']]], predict: scoring },
  { kind: 'seq', type: 'sequence', params: { sml_project_order: '2' },
    frame: { attributeNames: ['Activity', 'Place'], attributeTypes: ['T', 'T'], data: Array.from({ length: 60 }, (_, i) => (Math.floor(i / 5) % 2 ? ['rest', 'bed'] : ['work', 'desk'])) },
    models: [['s_hmm', 'hmm', ['Place'], ['Activity']], ['s_mc', 'mc', ['Activity'], []]], predict: { attributeNames: ['Place', 'Activity'], attributeTypes: ['T', 'T'], data: [['desk', 'work'], ['bed', ''], ['x', 'rest']] } },
  { kind: 'surv', params: { km_time_column: 't', km_event_column: 'e', km_group_column: 'g' },
    frame: { attributeNames: ['t', 'e', 'g'], attributeTypes: ['C', 'C', 'T'], data: Array.from({ length: 30 }, (_, i) => [String(i + 1), String(i % 3 === 0 ? 0 : 1), i % 2 ? 'a' : 'b']) },
    models: [['k_km', 'km', [], []]], predict: { attributeNames: ['t', 'g'], attributeTypes: ['C', 'T'], data: [['3', 'a'], ['-1', 'b'], ['', '']] } },
];

type Case =
  | { route: 'project'; kind: number; model: number; mutations: Mutation[]; summary: SummaryMutation | null; algo: string | null; rename: boolean }
  | { route: 'model'; kind: number; model: number; mutations: Mutation[]; algo: string | null; rename: boolean };
const ALGOS = [...MODELS.map((m) => m[1]), 'rf_classifier', 'rf_anomaly', 'hmm', 'mc', 'km', 'kmeans', 'mqda', 'lsvm', 'plsq'];
const caseOf: fc.Arbitrary<Case> = fc.oneof(
  fc.record({
    route: fc.constant('project' as const), kind: fc.nat(), model: fc.nat(), mutations: fc.array(mutation, { maxLength: 3 }),
    summary: fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, { arbitrary: summaryMutation, weight: 1 }), algo: fc.option(fc.constantFrom(...ALGOS), { freq: 6 }), rename: fc.boolean(),
  }),
  fc.record({
    route: fc.constant('model' as const), kind: fc.nat(), model: fc.nat(), mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }),
    algo: fc.option(fc.constantFrom(...ALGOS), { freq: 6 }), rename: fc.boolean(),
  }),
);

/** One kind of project: its source and target projects, its export, its models and their exports, the frame its models predict. */
interface Source {
  src: string;
  tgt: string;
  project: Doc;
  models: string[];
  modelDocs: Map<string, Doc>;
  predict: { attributeNames: string[]; attributeTypes: string[]; data: string[][] };
}

describe('adversarial import documents against a running system', () => {
  let sys: RunningSystem;
  let alice: SmlClient;
  const sources: Source[] = [];

  beforeAll(async () => {
    sys = await startSystem({ services: ['users', 'jobs', 'projects'], env: { SML_MAX_PROJECTS_PER_CUSTOMER: '12' } });
    const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
    const r = await root.addUser('alice');
    alice = new SmlClient({ url: sys.url, user: 'alice', secret: String((r.body.values as { secretKey: string }).secretKey) });
    const kinds: Kind[] = [
      { kind: 'plain', params: {}, frame: data, models: MODELS.map(([m, a, i, t]) => [m, a, i, t]), predict: scoring },
      ...KINDS,
    ];
    const params = new Map(MODELS.map(([m, , , , p]) => [m, p]));
    for (const k of kinds) {
      const [src, tgt] = [`${k.kind}_src`, `${k.kind}_tgt`];
      for (const pid of [src, tgt]) {
        expect((await alice.createProject(pid, { enableHistogram: true, ...(k.type ? { type: k.type } : {}), params: k.params })).status).toBe(201);
        expect((await alice.learn(pid, { ...k.frame, errorHandling: 0 })).status).toBe(200);
      }
      const models: string[] = [];
      for (const [model, algo, inputs, targets] of k.models) {
        const job = await alice.request('POST', `/projects/${src}/build`, {
          query: { modelid: model, algo }, json: { inputAttributeNames: inputs, targetAttributeNames: targets, extraParameters: params.get(model) ?? {} },
        });
        if ((await alice.waitForJob(job)).status === 200) models.push(model);
      }
      const project = decode((await alice.request<{ status: string }>('GET', `/projects/${src}/export`)).body.values!.status);
      const modelDocs = new Map<string, Doc>();
      for (const model of models) {
        modelDocs.set(model, decode((await alice.request<{ status: string }>('GET', `/projects/${src}/model/export`, { query: { modelid: model } })).body.values!.status));
        expect((await alice.request('POST', `/projects/${tgt}/model/import`, { query: { modelid: model }, raw: encode(modelDocs.get(model)!) })).status).toBe(200);
      }
      sources.push({ src, tgt, project, models: models.sort(), modelDocs, predict: k.predict });
    }
    // Every kind of model of the registry but mqda (a partition project) and powerreg.
    expect(sources.flatMap((x) => x.models).length).toBeGreaterThanOrEqual(16);
  }, 240_000);
  afterAll(() => sys?.stop());

  /** A model entry with its state mutated (and its algorithm or first input changed), stateSha256 recomputed. */
  const entryOf = (entry: ModelEntry, c: Case): ModelEntry => {
    let state = JSON.parse(entry.state) as Json;
    for (const m of c.mutations) state = mutate(state, m);
    if (c.rename && state !== null && typeof state === 'object' && !Array.isArray(state) && Array.isArray(state.inputNames) && state.inputNames.length > 0) state.inputNames[0] = 'absent';
    const text = JSON.stringify(state) ?? 'null';
    return { ...entry, info: { ...entry.info, ...(c.algo ? { algo: c.algo } : {}) }, state: text, stateSha256: sha(text) };
  };

  const summaryOf = (project: Doc, m: SummaryMutation): Doc => {
    const summary = Summary.deserialize(Buffer.from(project.summary as string, 'base64'));
    const inside = (summary as unknown as { attributes: { rows: number; store: { attrs: Float64Array; pairs: Float64Array } } }).attributes;
    const size = summary.attributeNames.length;
    if (m.field === 'rows' || size === 0) inside.rows = m.value;
    else if (m.field === 'attrs') inside.store.attrs[m.at % (size * 11)] = m.value;
    else inside.store.pairs[m.at % ((size * (size + 1)) / 2 * 13)] = m.value;
    const bytes = summary.serialize();
    return { summary: Buffer.from(bytes).toString('base64'), summarySha256: sha(bytes) };
  };

  it(`${RUNS} mutated import documents: no 5xx outside the contract, no process exit, every imported model predicts`, async () => {
    const failures: string[] = [];
    const statuses = new Map<string, number>();
    const check = (r: SmlResponse<unknown>, what: string) => {
      statuses.set(`${what} ${r.status}`, (statuses.get(`${what} ${r.status}`) ?? 0) + 1);
      if (r.status >= 500 && !CONTRACT_5XX.some((re) => re.test(r.body.statusString))) failures.push(`${what}: ${r.status} ${r.body.statusString}`);
    };
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(caseOf, async (c) => {
        const source = sources[c.kind % sources.length];
        const model = source.models[c.model % source.models.length];
        const predict = (pid: string, m: string) => alice.request('POST', `/projects/${pid}/predict/${m}`, { json: source.predict });
        if (c.route === 'model') {
          const doc = source.modelDocs.get(model)!;
          const r = await alice.request('POST', `/projects/${source.tgt}/model/import`, { query: { modelid: 'g' }, raw: encode({ ...doc, model: entryOf(doc.model as ModelEntry, c) }) });
          check(r, 'model import');
          if (r.status === 200) check(await predict(source.tgt, 'g'), `predict of an imported ${model}`);
          return;
        }
        const models = (source.project.models as ModelEntry[]).map((e) => (e.info.modelId === model ? entryOf(e, c) : e));
        const document = encode({ ...source.project, models, ...(c.summary ? summaryOf(source.project, c.summary) : {}) });
        const r = await alice.request('POST', '/projects/import', { query: { pid: 'imp' }, raw: document });
        check(r, 'project import');
        if (r.status !== 200) return;
        for (const m of source.models) check(await predict('imp', m), `predict of imported project's ${m}`);
        expect((await alice.request('DELETE', '/projects/imp')).status).toBe(200);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    const seconds = (Date.now() - started) / 1000;
    // Every model of every target project, whatever was imported into it, predicts.
    for (const source of sources) {
      const info = await alice.request<{ smlInfo: { modelsList: string[] } }>('GET', `/projects/${source.tgt}/info`);
      for (const m of info.body.values!.smlInfo.modelsList) check(await alice.request('POST', `/projects/${source.tgt}/predict/${m}`, { json: source.predict }), `final predict of ${m}`);
    }
    expect(failures.slice(0, 20)).toEqual([]);
    expect(sys.unexpectedExits()).toEqual([]);
    const models = sources.flatMap((x) => x.models);
    const accepted = [...statuses].filter(([k]) => / import 200$/.test(k)).reduce((a, [, n]) => a + n, 0);
    console.log(`adversarial imports: ${RUNS} documents in ${seconds.toFixed(1)} s, ${accepted} imported; ${models.length} models (${models.join(', ')}); statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
  }, 300_000);
});

import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { encryptDsInfo, SmlClient } from '@sml/sdk';
import { startSystem, type RunningSystem } from '@sml/testkit';

/**
 * The adversarial suite (issue 9): a generated corpus of hostile but authenticated requests
 * (fast-check arbitraries of frames, parameters, names, headers and raw bytes) thrown at a
 * running system. Whatever a customer sends:
 * - no answer is a 5xx, except the contract's own (API.md: `Generic Exception [...]` 500s,
 *   a cancelled or failed job's read, a full job queue 503);
 * - no process exits;
 * - every process is back under MEMORY_BOUND_MB of resident memory afterwards;
 * - another customer's project is untouched and still answers.
 * Seeded (FC_SEED, FC_RUNS) like every property test here, so a failure replays.
 */
const SEED = Number(process.env.FC_SEED ?? 20261124);
const RUNS = Number(process.env.FC_RUNS ?? 1000);
/** Resident memory every process must be back under once the corpus is done. */
const MEMORY_BOUND_MB = 400;

/** A 5xx the contract itself answers with. */
const CONTRACT_5XX = [/^Generic Exception \[/, /^Job was cancelled$/, /^Job queue of service \[\w+\] is full/];

/** `dsInfo`: sent encrypted with the caller's secret as the raw body (data-source routes). */
type Req = { method: string; path: string; query?: Record<string, string>; raw?: Buffer; headers?: Record<string, string>; dsInfo?: unknown };

const nasty = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', ' ', '..', '.', '/', '%2e%2e', 'a/../b', '\u0000', '\ud800', '\udfff\ud800', 'é', '𝔘', ' C', 'C ', 'c', 'NaN', '-0', '1e308', '-1e308', '1e-320',
    'Infinity', '0x10', '1_000', '9'.repeat(400), 'a'.repeat(5000), '{}', '[]', 'null', 'true', '__proto__', 'constructor', '$', '$$', 'x$y'),
);
const number = fc.oneof(
  fc.double().map(String),
  fc.integer().map(String),
  fc.constantFrom('1e9', '1000000000', '-1', '0', '1e308', '2e7', '1e100', 'NaN', 'Infinity', '-Infinity', ' 5', '5 ', '0.5', '9007199254740993', ''),
);
const PARAMS = ['sml_project_order', 'hba_bins', 'hist_bins', 'selector_iterations', 'selector_seed', 'max_iter', 'evt_window_size', 'evt_warmup_size',
  'evt_max_exceedances', 'cluster_num_centroids', 'cluster_warmup_period', 'lambda', 'alpha', 'evt_quantile', 'svd_tolerance', 'partitionSplit',
  'km_time_column', 'km_event_column', 'sml_sequence_layout', 'categorySeparator', 'selector_type', 'sml_model_assessment_type',
  'sml_project_power_column', 'sml_project_power_min', 'sml_project_power_max', 'sml_project_power_steps',
  'rf_type', 'rf_target_name', 'rf_features', 'rf_num_trees', 'rf_num_classes', 'rf_complexity', 'rf_max_split_time', 'rf_step', 'rf_dirichlet',
  'rf_always_split', 'rf_missing_value', 'rf_rnd_seed'];
// Values that make some rf_* parameter sets valid forests (rf_type, rf_features, rf_always_split), among hostile ones.
const forestValue = fc.constantFrom('rf_classifier', 'rf_regressor', 'rf_anomaly', 'x:y', 'x:z:v', '*', 'y', 'g', 'true', 'false');
const params = fc.dictionary(fc.oneof(fc.constantFrom(...PARAMS), nasty), fc.oneof(number, nasty, forestValue), { maxKeys: 6 });
const cell = fc.oneof(
  { arbitrary: number, weight: 5 },
  { arbitrary: nasty, weight: 2 },
  { arbitrary: fc.constantFrom(null, true, {}, [], [[[]]], { a: 1 }, 1e308, -1e308, 5e-324), weight: 1 },
);
const TYPES = fc.oneof(fc.constantFrom('C', 'B', 'T', 'S', 'X', 'c', ' C', 'C ', '', 'CC', 'Z', '\u0000'), nasty);
/** Frames: mostly well formed (so they reach the summary), often not. */
const frame = fc.integer({ min: 1, max: 6 }).chain((width) => fc.record({
  attributeNames: fc.array(fc.oneof({ arbitrary: fc.constantFrom('x', 'y', 'z', 'g', 'v'), weight: 3 }, { arbitrary: nasty, weight: 1 }), { minLength: width, maxLength: width }),
  attributeTypes: fc.array(fc.oneof({ arbitrary: fc.constantFrom('C', 'B', 'T', 'S'), weight: 4 }, { arbitrary: TYPES, weight: 1 }), { minLength: width, maxLength: width + 1 }),
  data: fc.array(fc.array(cell, { minLength: width - 1, maxLength: width + 1 }), { maxLength: 30 }),
  errorHandling: fc.oneof(fc.constantFrom(0, 1), fc.constantFrom(2, -1, '1', 1.5, null)),
}, { requiredKeys: ['attributeNames', 'attributeTypes', 'data'] }));
const deep = fc.integer({ min: 1_000, max: 100_000 }).map((n) => Buffer.from(`{"attributeNames":["x"],"attributeTypes":["C"],"data":[${'['.repeat(n)}${']'.repeat(n)}]}`));
const rawBody = fc.oneof(
  frame.map((f) => Buffer.from(JSON.stringify(f))),
  fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
  frame.map((f) => Buffer.from(JSON.stringify(f)).subarray(0, 40)),
  fc.constantFrom(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), Buffer.from('{"attributeNames":["\\ud800"],"attributeTypes":["C"],"data":[["1"]]}'),
    Buffer.from('{"attributeNames":["x"],"attributeTypes":["C"],"data":[["a\u0001b"]]}')),
  deep,
);
const pid = fc.oneof({ arbitrary: fc.constantFrom('p', 'seq', 'part', 'm'), weight: 4 }, { arbitrary: nasty, weight: 1 });
/** Every byte percent-encoded (encodeURIComponent throws on lone surrogates; these are sent as U+FFFD). */
const seg = (s: string) => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
const headers = fc.oneof(
  fc.constant({}),
  fc.record({ 'Idempotency-Key': fc.oneof(fc.constantFrom('k1', 'k2'), nasty.filter((s) => /^[\x20-\x7e]*$/.test(s))) }),
);
const ALGOS = ['mlr', 'ridge', 'lasso', 'elasticnet', 'lda', 'bayes', 'hba', 'ecod', 'covest', 'evt', 'mc', 'hmm', 'km', 'kmeans', 'rf_classifier', 'rf_regressor', 'rf_anomaly', 'powerreg', 'nope'];
const mlcontext = fc.record({
  inputAttributeNames: fc.array(fc.oneof(fc.constantFrom('x', 'y', 'z', 'v'), nasty), { maxLength: 4 }),
  targetAttributeNames: fc.array(fc.oneof(fc.constantFrom('y', 'g'), nasty), { maxLength: 2 }),
  extraParameters: params,
});

const dsName = fc.oneof({ arbitrary: fc.constantFrom('d1', 'd2'), weight: 3 }, { arbitrary: nasty, weight: 1 });
const dsInfo = fc.oneof(
  { arbitrary: fc.record({
    type: fc.oneof(fc.constantFrom('localfile', 'localfile', 's3', 'http', 'redshift', 'ftp', '__proto__'), nasty),
    name: dsName,
    info: fc.dictionary(fc.oneof(fc.constantFrom('path', 'csv_entry_separator', 'csv_quote_character', '__proto__', 's3secretKey'), nasty),
      fc.oneof(fc.constantFrom('x.csv', 'data.csv', '../x', '/etc/passwd', 'sub', '.', '', ';', '""', '\\t', 'http://127.0.0.1:1/x'), nasty, fc.integer(), fc.constant(null), fc.array(fc.string(), { maxLength: 2 }))),
    extra: fc.oneof(fc.array(fc.constantFrom('C', 'B', 'T', 'X', ' C', ''), { maxLength: 3 }), fc.constant(null), fc.string()),
  }, { requiredKeys: [] }), weight: 6 },
  { arbitrary: fc.constantFrom(null, 1, 'x', [], [{ type: 'localfile' }], true), weight: 1 },
);
const dsRoute = fc.constantFrom(['POST', '/dss/create'], ['POST', '/dss/sample/preview'], ['POST', '/projects/dsbrowse'], ['PUT', '/dss/d1']);

const request: fc.Arbitrary<Req> = fc.oneof(
  fc.tuple(dsRoute, dsInfo).map(([[method, path], ds]) => ({ method, path, dsInfo: ds })),
  fc.tuple(dsRoute, rawBody).map(([[method, path], raw]) => ({ method, path, raw })),
  fc.tuple(dsName, fc.constantFrom('', '/sample')).map(([ds, op]) => ({ method: 'GET', path: `/dss/${seg(ds)}${op}` })),
  fc.tuple(pid, dsName, fc.constantFrom('learn', 'forget'), rawBody).map(([p, ds, op, raw]) => ({ method: 'POST', path: `/projects/${seg(p)}/dss/${seg(ds)}/${op}`, raw })),
  fc.tuple(pid, dsName, fc.constantFrom('addds', 'detachds')).map(([p, ds, op]) => ({ method: 'GET', path: `/projects/${seg(p)}/${op}/${seg(ds)}` })),
  fc.tuple(pid, rawBody, headers, fc.constantFrom('learn', 'forget')).map(([p, raw, h, op]) => ({ method: 'POST', path: `/projects/${seg(p)}/${op}`, raw, headers: h })),
  fc.tuple(pid, fc.constantFrom('cpu', 'sequence', 'partition', 'nope', ''), params).map(([p, type, body]) => ({ method: 'POST', path: '/projects', query: { pid: p, type }, raw: Buffer.from(JSON.stringify(body)) })),
  fc.tuple(pid, fc.constantFrom(...ALGOS), mlcontext, frame).map(([p, algo, ctx, df]) => ({ method: 'POST', path: `/projects/${seg(p)}/selectModel`, query: { modelid: 'm1', algo }, raw: Buffer.from(JSON.stringify({ mlcontext: ctx, dataframe: df })) })),
  fc.tuple(pid, fc.constantFrom(...ALGOS), mlcontext).map(([p, algo, ctx]) => ({ method: 'POST', path: `/projects/${seg(p)}/build`, query: { modelid: 'm2', algo }, raw: Buffer.from(JSON.stringify(ctx)) })),
  fc.tuple(pid, frame).map(([p, df]) => ({ method: 'POST', path: `/projects/${seg(p)}/predict/m2`, raw: Buffer.from(JSON.stringify(df)) })),
  fc.tuple(pid, params).map(([p, body]) => ({ method: 'POST', path: `/projects/${seg(p)}/m2/evtwrapper`, raw: Buffer.from(JSON.stringify(body)) })),
  fc.tuple(pid, fc.constantFrom('mean', 'variance', 'ztestmu', 'chi2', 'infogain', 'nope'), fc.array(mlcontext, { maxLength: 3 })).map(([p, metric, values]) =>
    ({ method: 'POST', path: `/projects/${seg(p)}/explore`, query: { metric }, raw: Buffer.from(JSON.stringify({ values })) })),
  fc.tuple(pid, fc.array(mlcontext, { maxLength: 3 }), fc.oneof(fc.constant(undefined), number)).map(([p, values, tps]) =>
    ({ method: 'POST', path: `/projects/${seg(p)}/densityEstimate`, ...(tps ? { query: { tps } } : {}), raw: Buffer.from(JSON.stringify({ values })) })),
  fc.tuple(pid, fc.constantFrom('info', 'getDsLog', 'save', 'unload', 'freeze', 'unfreeze')).map(([p, op]) => ({ method: 'GET', path: `/projects/${seg(p)}/${op}` })),
  fc.tuple(nasty).map(([id]) => ({ method: 'GET', path: `/jobs/${seg(id)}` })),
  fc.tuple(pid, pid).map(([p, other]) => ({ method: 'GET', path: `/projects/${seg(p)}/merge`, query: { otherProjectName: other } })),
);

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

describe('adversarial corpus against a running system', () => {
  let sys: RunningSystem;
  let alice: SmlClient;
  let aliceSecret: string;
  let bob: SmlClient;

  beforeAll(async () => {
    sys = await startSystem({ services: ['users', 'jobs', 'projects', 'explore'], env: { SML_SELECTION_TIME_BUDGET_MS: '2000', SML_REQUEST_TIMEOUT_MS: '20000' } });
    const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
    const secrets: Record<string, string> = {};
    const add = async (user: string) => {
      const r = await root.addUser(user);
      secrets[user] = String((r.body.values as { secretKey: string }).secretKey);
      return new SmlClient({ url: sys.url, user, secret: secrets[user] });
    };
    alice = await add('alice');
    aliceSecret = secrets.alice;
    bob = await add('bob');
    // Projects the corpus aims at, so that many requests get past "unknown project".
    await alice.createProject('p', { enableHistogram: true });
    await alice.createProject('seq', { type: 'sequence', params: { sml_project_order: '2' } });
    await alice.createProject('part', { type: 'partition', params: { partitionSplit: 'g' } });
    await alice.createProject('m');
    await alice.learn('m', { attributeNames: ['x', 'y', 'z'], attributeTypes: ['C', 'C', 'B'], data: Array.from({ length: 50 }, (_, r) => [String(Math.sin(r)), String(r % 7), String(r % 2)]), errorHandling: 0 });
    await bob.createProject('mine');
    await bob.learn('mine', { attributeNames: ['x'], attributeTypes: ['C'], data: [['1'], ['2'], ['3']], errorHandling: 0 });
  }, 120_000);
  afterAll(async () => {
    if (process.env.SHOW_LOGS) for (const s of ['users', 'projects', 'explore']) console.log(s, sys.logs(s));
    await sys?.stop();
  });

  it(`${RUNS} hostile requests: no 5xx outside the contract, no process exit, memory bounded, other customers untouched`, async () => {
    const bobBefore = await bob.projectInfo('mine', { hash: true });
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    const contract5xx = new Set<string>();
    await fc.assert(
      fc.asyncProperty(request, async (req) => {
        const raw = req.dsInfo !== undefined ? encryptDsInfo(req.dsInfo, aliceSecret) : req.raw;
        const r = await alice.request(req.method, req.path, { query: req.query, raw, headers: { 'content-type': 'application/json', ...req.headers } });
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        // A failed job reads 500 with its failure's message, whatever it is (API.md §10).
        const failedJob = r.status === 500 && req.method === 'GET' && /^\/jobs\/\d+$/.test(req.path);
        if (r.status >= 500 && (failedJob || CONTRACT_5XX.some((re) => re.test(r.body.statusString)))) contract5xx.add(r.body.statusString.replace(/\d+/g, 'N').slice(0, 120));
        else if (r.status >= 500) {
          failures.push(`${r.status} ${r.body.statusString} ← ${req.method} ${req.path} ${JSON.stringify(req.query ?? {})} ${req.dsInfo !== undefined ? JSON.stringify(req.dsInfo).slice(0, 200) : req.raw?.subarray(0, 200).toString('latin1')}`);
        }
        if (r.status === 202 && r.headers['sym-job-id']) await alice.waitForJob(r, { timeoutMs: 30_000 }).catch(() => undefined);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    expect(failures).toEqual([]);
    expect(sys.unexpectedExits()).toEqual([]);
    expect((await fetch(`${sys.url}/readyz`)).status).toBe(200);
    // Bob's project: the same statistics, still answering.
    const bobAfter = await bob.projectInfo('mine', { hash: true });
    expect(bobAfter.status).toBe(200);
    expect(bobAfter.body.values!.smlInfo.hash).toEqual(bobBefore.body.values!.smlInfo.hash);
    const memory = Object.fromEntries(Object.entries(sys.pids()).map(([s, p]) => [s, Math.round(rssMb(p))]));
    for (const [service, mb] of Object.entries(memory)) expect({ service, underBound: mb < MEMORY_BOUND_MB, mb }).toEqual({ service, underBound: true, mb });
    // Shown in the test output: what the corpus exercised.
    console.log(`adversarial: ${RUNS} requests, statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}, RSS MB ${JSON.stringify(memory)}; the contract's 5xx seen: ${JSON.stringify([...contract5xx])}`);
  }, 600_000);
});

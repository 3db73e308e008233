// Model build time vs rows learned, predict throughput through REST, and scikit-learn's fit
// time on the same shape. Run after a build:
//   node bench/models.mjs        (BENCH_ROWS default 1000000; needs /usr/bin/python3 with sklearn for the comparison)
// 1. In process: a summary of 50 C inputs + a C and a B target learns 10⁴ then BENCH_ROWS rows;
//    `mlr` and `lda` are built 200 times each after each step (p50 of the build itself).
// 2. Through REST: predict 10 000-row frames with an mlr model (rows/s, signed requests).
// 3. scikit-learn LinearRegression / LinearDiscriminantAnalysis fit on BENCH_ROWS × 50.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { appendResults, machine } from './lib/results.mjs';

const require = createRequire(import.meta.url);
const { Summary, ALGORITHMS } = require('../packages/stats/dist/index.js');
const { startSystem } = require('../packages/testkit/dist/index.js');
const { SmlClient } = require('../packages/sdk/dist/index.js');

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const P = 50;
const BATCH = 10_000;
const resultsFile = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

let seed = 11;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const inputs = Array.from({ length: P }, (_, j) => `x${j}`);
const names = [...inputs, 'y', 'b'];
const weights = inputs.map(() => rand() * 2 - 1);
function frame(rows) {
  const data = Array.from({ length: rows }, () => {
    const x = inputs.map(() => rand() * 4 - 2);
    const y = x.reduce((s, v, j) => s + v * weights[j], 0) + (rand() - 0.5);
    return [...x.map((v) => v.toFixed(5)), y.toFixed(5), y > 0 ? '1' : '0'];
  });
  return { attributeNames: names, attributeTypes: [...inputs.map(() => 'C'), 'C', 'B'], data, errorHandling: 0 };
}

const m = machine();
const summary = new Summary();
const spec = (algo, target) => ({ algo, inputs: inputs.map((_, j) => j), targets: [names.indexOf(target)], params: {} });
const builds = [];
let learned = 0;
for (const target of [10_000, ROWS]) {
  while (learned < target) {
    summary.learn(frame(BATCH));
    learned += BATCH;
  }
  for (const [algo, t] of [['mlr', 'y'], ['lda', 'b']]) {
    const times = [];
    for (let i = 0; i < 200; i++) {
      const t0 = process.hrtime.bigint();
      ALGORITHMS[algo].build(summary, spec(algo, t));
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    builds.push({ rows: learned, algo, p50: median(times) });
    console.error(`${learned} rows: ${algo} build p50 ${median(times).toFixed(3)} ms`);
  }
}

// REST predict throughput.
const sys = await startSystem({ services: ['users', 'jobs', 'projects'], env: { SML_LOG_LEVEL: 'warn' } });
let predictRate;
try {
  const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
  const sdk = new SmlClient({ url: sys.url, user: 'bench', secret: (await root.addUser('bench')).body.values.secretKey });
  await sdk.createProject('p');
  await sdk.learn('p', frame(BATCH));
  const built = await sdk.request('POST', '/projects/p/build', { query: { modelid: 'm', algo: 'mlr' }, json: { inputAttributeNames: inputs, targetAttributeNames: ['y'], extraParameters: {} } });
  const done = await sdk.waitForJob(built);
  if (done.status !== 200) throw new Error(`build answered ${done.status} ${done.body.statusString}`);
  const body = JSON.stringify(frame(BATCH));
  const runs = 10;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) {
    const r = await sdk.request('POST', '/projects/p/predict/m', { raw: body, headers: { 'content-type': 'application/json' } });
    if (r.status !== 200 || r.body.values.KSVSMap.values.length !== BATCH) throw new Error(`predict answered ${r.status}`);
  }
  predictRate = (runs * BATCH) / (Number(process.hrtime.bigint() - t0) / 1e9);
} finally {
  await sys.stop();
}

let sk;
try {
  sk = JSON.parse(execFileSync('/usr/bin/python3', [fileURLToPath(new URL('./sklearn_fit.py', import.meta.url)), String(ROWS), String(P)], { encoding: 'utf8' }));
} catch (err) {
  console.error(`scikit-learn comparison skipped: ${err.message}`);
}

const last = (algo) => builds.find((b) => b.rows === ROWS && b.algo === algo).p50;
const section = [
  `## models — ${m.date}`,
  '',
  `Machine: ${m.cores} cores, ${m.cpu}, Node ${m.node}, load average ${m.load} before the run. ${P} C inputs; builds in process (p50 of 200); predict through REST (signed, 10 000-row frames).`,
  '',
  '| rows learned | algo | build p50 ms |',
  '|---:|---|---:|',
  ...builds.map((b) => `| ${b.rows} | ${b.algo} | ${b.p50.toFixed(3)} |`),
  '',
  `- predict through REST: **${Math.round(predictRate)} rows/s**`,
  ...(sk ? [
    `- scikit-learn fit on ${sk.rows} × ${sk.inputs} (best of 3): LinearRegression ${sk.mlr_ms.toFixed(0)} ms, LinearDiscriminantAnalysis ${sk.lda_ms.toFixed(0)} ms`,
    `- rebuild from the summary vs sklearn fit: mlr **${(sk.mlr_ms / last('mlr')).toFixed(0)}×**, lda **${(sk.lda_ms / last('lda')).toFixed(0)}×** faster (target ≥ 100×)`,
  ] : []),
].join('\n');
console.log(section);
appendResults(resultsFile, section);

// Explore latency vs rows learned, and on a wide project (issue 15). Run after a build:
//   node bench/explore.mjs     (BENCH_REQUESTS default 200 per measurement; BENCH_ROWS default 1000000)
// 1. A project with 50 C attributes learns 10⁴ rows, then up to BENCH_ROWS; after each, `uni` and
//    `bi` are measured end to end (signed REST → gateway → explore → projects summary → back),
//    one request at a time. The summary never holds rows, so latency must not grow with them.
// 2. A project of BENCH_WIDE_P (default 2000) C attributes learns BENCH_WIDE_ROWS (default 400)
//    rows; `uni` and `bi` end to end as above (explore reads the sub-summary of the attributes it
//    uses), then `mlr` builds on 50 of its attributes, each timed from the POST to the job's 200
//    (the job polled every BENCH_POLL_MS, default 2): the first BENCH_BUILD_WARMUP (default 30)
//    after the services started (code not yet optimized by the JIT, reported on their own line),
//    then BENCH_BUILDS (default 100) more, the steady state the target is judged on; in process, the
//    job's own work on the same summary (restrict, serialize, read back, build) vs the whole summary;
//    and the same build on a 2-attribute project: what the job path alone costs; CPU per build of every process (/proc). BENCH_ONLY=wide runs this part alone;
//    BENCH_DRY=1 prints without appending to RESULTS.md.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { appendResults, machine } from './lib/results.mjs';
import { cpuMs } from './lib/cpu.mjs';

const require = createRequire(import.meta.url);
const { startSystem } = require('../packages/testkit/dist/index.js');
const { SmlClient } = require('../packages/sdk/dist/index.js');
const { ALGORITHMS, Summary, restrictedBuild } = require('../packages/stats/dist/index.js');

const P = 50;
const BATCH = 10_000;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const WIDE_P = Number(process.env.BENCH_WIDE_P ?? 2000);
const WIDE_ROWS = Number(process.env.BENCH_WIDE_ROWS ?? 400);
const BUILDS = Number(process.env.BENCH_BUILDS ?? 100);
const BUILD_WARMUP = Number(process.env.BENCH_BUILD_WARMUP ?? 30);
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 2);
const ONLY_WIDE = process.env.BENCH_ONLY === 'wide';
const resultsFile = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

let seed = 7;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const names = Array.from({ length: P }, (_, j) => `x${j}`);
const batch = () => JSON.stringify({ attributeNames: names, attributeTypes: names.map(() => 'C'), data: Array.from({ length: BATCH }, () => names.map(() => (rand() * 10).toFixed(4))), errorHandling: 0 });

const m = machine();
const profDir = process.env.BENCH_CPU_PROF;
const sys = await startSystem({ services: ['users', 'jobs', 'projects', 'explore'], env: { SML_LOG_LEVEL: 'warn' }, ...(profDir ? { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', profDir] } : {}) });
const rows = [];
const wide = {};
try {
  const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
  const secret = (await root.addUser('bench')).body.values.secretKey;
  const sdk = new SmlClient({ url: sys.url, user: 'bench', secret });
  const measure = async (pid, metric, inputs) => {
    const times = [];
    for (let i = 0; i < REQUESTS; i++) {
      const t0 = process.hrtime.bigint();
      const r = await sdk.request('POST', `/projects/${pid}/explore`, { query: { metric, returnProjectInfo: 'false' }, json: { values: [{ inputAttributes: inputs.map(String), extraParameters: {} }] } });
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (r.status !== 200) throw new Error(`${metric} answered ${r.status} ${r.body.statusString}`);
    }
    return { p50: quantile(times, 0.5), p90: quantile(times, 0.9), p99: quantile(times, 0.99) };
  };
  if (!ONLY_WIDE) {
    await sdk.createProject('p', { enableHistogram: true });
    let learned = 0;
    const learnTo = async (target) => {
      while (learned < target) {
        const r = await sdk.request('POST', '/projects/p/learn', { raw: batch(), headers: { 'content-type': 'application/json' } });
        if (r.status !== 200) throw new Error(`learn answered ${r.status} ${r.body.statusString}`);
        learned += BATCH;
      }
    };
    for (const target of [10_000, ROWS]) {
      await learnTo(target);
      for (const [metric, inputs] of [['uni', [3]], ['bi', [3, 41]]]) {
        const r = await measure('p', metric, inputs);
        rows.push({ rows: learned, metric, ...r });
        console.error(`${learned} rows, ${metric}: p50 ${r.p50.toFixed(2)} ms`);
      }
    }
  }

  // 2. The wide project: every learn is WIDE_P² / 2 pair updates per row, so a few hundred rows.
  await sdk.createProject('wide', { enableHistogram: true });
  const wideNames = Array.from({ length: WIDE_P }, (_, j) => `w${j}`);
  const t0 = process.hrtime.bigint();
  const bodies = [];
  for (let done = 0; done < WIDE_ROWS; done += 100) {
    const n = Math.min(100, WIDE_ROWS - done);
    const body = JSON.stringify({ attributeNames: wideNames, attributeTypes: wideNames.map(() => 'C'), data: Array.from({ length: n }, () => wideNames.map(() => (rand() * 10).toFixed(3))), errorHandling: 0 });
    bodies.push(body);
    const r = await sdk.request('POST', '/projects/wide/learn', { raw: body, headers: { 'content-type': 'application/json' } });
    if (r.status !== 200) throw new Error(`wide learn answered ${r.status} ${r.body.statusString}`);
  }
  wide.learnSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  console.error(`wide: ${WIDE_P} attributes, ${WIDE_ROWS} rows learned in ${wide.learnSeconds.toFixed(1)} s`);
  // The first request of each kind reads the attribute table and the sub-summary; later ones revalidate by etag.
  for (const [metric, inputs] of [['uni', [1234 % WIDE_P]], ['bi', [1234 % WIDE_P, 1999 % WIDE_P]]]) {
    const t1 = process.hrtime.bigint();
    const first = await sdk.request('POST', '/projects/wide/explore', { query: { metric, returnProjectInfo: 'false' }, json: { values: [{ inputAttributes: inputs.map(String), extraParameters: {} }] } });
    if (first.status !== 200) throw new Error(`${metric} answered ${first.status} ${first.body.statusString}`);
    wide[`${metric}First`] = Number(process.hrtime.bigint() - t1) / 1e6;
    wide[metric] = await measure('wide', metric, inputs);
    console.error(`wide ${metric}: p50 ${wide[metric].p50.toFixed(2)} ms`);
  }
  const inputs = wideNames.slice(100, 149);
  const build = async (k, pid = 'wide', json = { inputAttributeNames: inputs, targetAttributeNames: [wideNames[1500]], extraParameters: {} }) => {
    const t1 = process.hrtime.bigint();
    const r = await sdk.request('POST', `/projects/${pid}/build`, { query: { modelid: `m${k}`, algo: 'mlr' }, json });
    if (r.status !== 202) throw new Error(`build answered ${r.status} ${r.body.statusString}`);
    const jobId = r.headers['sym-job-id'];
    for (;;) {
      const j = await sdk.getJob(jobId);
      if (j.status === 200) break;
      if (j.status !== 202) throw new Error(`build job answered ${j.status} ${j.body.statusString}`);
      // Polling back to back would take the CPU the build needs (2 cores for everything).
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    return Number(process.hrtime.bigint() - t1) / 1e6;
  };
  /** CPU ms per build of every process (/proc, 10 ms ticks: over BUILDS builds, ±10/BUILDS ms). */
  const perBuild = (c0) => Object.fromEntries(Object.entries(cpuMs()).map(([name, ms]) => [name, (ms - (c0[name] ?? 0)) / BUILDS]));
  // A service's first builds run code the JIT has not optimized yet (≈ 5–10 ms more each): timed
  // on their own, then the steady state of a service that has been building for a while.
  const cold = [];
  for (let k = 0; k < BUILD_WARMUP; k++) cold.push(await build(`cold${k}`));
  if (BUILD_WARMUP > 0) {
    wide.cold = { p50: quantile(cold, 0.5), p90: quantile(cold, 0.9), p99: quantile(cold, 0.99) };
    console.error(`wide mlr build, the first ${BUILD_WARMUP} after start: p50 ${wide.cold.p50.toFixed(2)} ms`);
  }
  const times = [];
  let c0 = cpuMs();
  for (let k = 0; k < BUILDS; k++) times.push(await build(k));
  wide.mlrCpu = perBuild(c0);
  wide.mlr = { p50: quantile(times, 0.5), p90: quantile(times, 0.9), p99: quantile(times, 0.99) };
  console.error(`wide mlr build on 50 attributes: p50 ${wide.mlr.p50.toFixed(2)} ms`);
  // The floor of the job path: the same build request on a 2-attribute project (1 input).
  await sdk.createProject('tiny');
  await sdk.learn('tiny', { attributeNames: ['x', 'y'], attributeTypes: ['C', 'C'], data: [['1', '2'], ['2', '3'], ['3', '5'], ['4', '4']], errorHandling: 0 });
  const tiny = { inputAttributeNames: ['x'], targetAttributeNames: ['y'], extraParameters: {} };
  await build('warm', 'tiny', tiny);
  const floor = [];
  c0 = cpuMs();
  for (let k = 0; k < BUILDS; k++) floor.push(await build(k, 'tiny', tiny));
  wide.floorCpu = perBuild(c0);
  wide.floor = { p50: quantile(floor, 0.5), p90: quantile(floor, 0.9), p99: quantile(floor, 0.99) };
  console.error(`tiny mlr build: p50 ${wide.floor.p50.toFixed(2)} ms`);

  // In process, the same summary: what a build's job does with it (restrict, serialize for the
  // worker, read back, build) next to what it did before sub-summaries (the whole summary
  // serialized and read back, then the build).
  const summary = new Summary({ histogram: 'streaming' });
  for (const body of bodies) summary.learn(JSON.parse(body));
  const spec = { algo: 'mlr', inputs: Array.from({ length: 49 }, (_, k) => 100 + k), targets: [1500], params: {} };
  const timed = (fn, runs) => {
    const out = [];
    for (let k = 0; k < runs; k++) {
      const t1 = process.hrtime.bigint();
      fn();
      out.push(Number(process.hrtime.bigint() - t1) / 1e6);
    }
    return quantile(out, 0.5);
  };
  wide.inProcessRestricted = timed(() => {
    const r = restrictedBuild(summary, spec);
    ALGORITHMS.mlr.build(Summary.deserialize(r.summary.serialize()), r.spec);
  }, 200);
  wide.inProcessWhole = timed(() => ALGORITHMS.mlr.build(Summary.deserialize(summary.serialize()), spec), 3);
  wide.wholeBytes = summary.serialize().length;
  console.error(`in process: restricted ${wide.inProcessRestricted.toFixed(2)} ms, whole ${wide.inProcessWhole.toFixed(0)} ms`);
} finally {
  await sys.stop();
}

const section = [
  `## explore — ${m.date}`,
  '',
  `Machine: ${m.cores} cores, ${m.cpu}, Node ${m.node}, load average ${m.load} before the run. ${REQUESTS} sequential signed requests per line; client, gateway, services and nats-server share the machine.`,
  '',
  ...(rows.length > 0 ? [
    `Project of ${P} C attributes (histograms on):`,
    '',
    '| rows learned | metric | p50 ms | p90 ms | p99 ms |',
    '|---:|---|---:|---:|---:|',
    ...rows.map((r) => `| ${r.rows} | ${r.metric} | ${r.p50.toFixed(2)} | ${r.p90.toFixed(2)} | ${r.p99.toFixed(2)} |`),
    '',
    `- bi p50 after ${ROWS} rows: **${rows.find((r) => r.rows === ROWS && r.metric === 'bi').p50.toFixed(2)} ms** (target ≤ 20 ms)`,
    '',
  ] : []),
  `Project of ${WIDE_P} C attributes (histograms on), ${WIDE_ROWS} rows learned in ${wide.learnSeconds.toFixed(1)} s; explore reads the sub-summary of the attributes used, an mlr build on 50 of them (49 inputs, 1 target) is timed from the POST to the job's 200, polled every ${POLL_MS} ms (${BUILD_WARMUP} builds right after the services started, then ${BUILDS} builds: the p50 judged):`,
  '',
  '| operation | p50 ms | p90 ms | p99 ms |',
  '|---|---:|---:|---:|',
  ...[['uni', 'uni'], ['bi', 'bi'], ...(BUILD_WARMUP > 0 ? [['cold', `mlr build, the first ${BUILD_WARMUP} after start (code not yet optimized)`]] : []), ['mlr', `mlr build (POST → job 200), the ${BUILDS} after those`], ['floor', 'the same build on a 2-attribute project (the job path alone)']].map(([k, label]) =>
    `| ${label} | ${wide[k].p50.toFixed(2)} | ${wide[k].p90.toFixed(2)} | ${wide[k].p99.toFixed(2)} |`),
  '',
  `- ${WIDE_P} attributes: uni p50 **${wide.uni.p50.toFixed(2)} ms**, bi p50 **${wide.bi.p50.toFixed(2)} ms**, mlr build p50 **${wide.mlr.p50.toFixed(2)} ms** (targets ≤ 20 ms); the first uni request (attribute table and sub-summary read, nothing cached) ${wide.uniFirst.toFixed(2)} ms, the first bi ${wide.biFirst.toFixed(2)} ms`,
  '',
  `CPU per build (ms, user + system from /proc over the ${BUILDS} builds; 10 ms ticks):`,
  '',
  `| build | ${Object.keys(wide.mlrCpu).join(' | ')} | total |`,
  `|---|${Object.keys(wide.mlrCpu).map(() => '---:').join('|')}|---:|`,
  ...[['mlrCpu', '50 of 2000 attributes'], ['floorCpu', '2-attribute project']].map(([k, label]) =>
    `| ${label} | ${Object.keys(wide.mlrCpu).map((n) => (wide[k][n] ?? 0).toFixed(1)).join(' | ')} | ${Object.values(wide[k]).reduce((a, b) => a + b, 0).toFixed(1)} |`),
  '',
  `- in process on the same summary, the work of a build's job without the job: restrictedBuild + serialize + read back + mlr build p50 **${wide.inProcessRestricted.toFixed(2)} ms** (of 200); before sub-summaries, the whole summary (${(wide.wholeBytes / 2 ** 20).toFixed(0)} MiB) serialized + read back + build: ${wide.inProcessWhole.toFixed(0)} ms (median of 3)`,
].join('\n');
console.log(section);
if (process.env.BENCH_DRY !== '1') appendResults(resultsFile, section);

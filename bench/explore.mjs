// Explore latency vs rows learned. Run after a build:
//   node bench/explore.mjs     (BENCH_REQUESTS default 200 per measurement; BENCH_ROWS default 1000000)
// A project with 50 C attributes learns 10⁴ rows, then up to BENCH_ROWS; after each, `uni` and
// `bi` are measured end to end (signed REST → gateway → explore → projects summary → back),
// one request at a time. The summary never holds rows, so latency must not grow with them.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { appendResults, machine } from './lib/results.mjs';

const require = createRequire(import.meta.url);
const { startSystem } = require('../packages/testkit/dist/index.js');
const { SmlClient } = require('../packages/sdk/dist/index.js');

const P = 50;
const BATCH = 10_000;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const resultsFile = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

let seed = 7;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const names = Array.from({ length: P }, (_, j) => `x${j}`);
const batch = () => JSON.stringify({ attributeNames: names, attributeTypes: names.map(() => 'C'), data: Array.from({ length: BATCH }, () => names.map(() => (rand() * 10).toFixed(4))), errorHandling: 0 });

const m = machine();
const sys = await startSystem({ services: ['users', 'jobs', 'projects', 'explore'], env: { SML_LOG_LEVEL: 'warn' } });
const rows = [];
try {
  const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
  const secret = (await root.addUser('bench')).body.values.secretKey;
  const sdk = new SmlClient({ url: sys.url, user: 'bench', secret });
  await sdk.createProject('p', { enableHistogram: true });
  let learned = 0;
  const learnTo = async (target) => {
    while (learned < target) {
      const r = await sdk.request('POST', '/projects/p/learn', { raw: batch(), headers: { 'content-type': 'application/json' } });
      if (r.status !== 200) throw new Error(`learn answered ${r.status} ${r.body.statusString}`);
      learned += BATCH;
    }
  };
  const measure = async (metric, inputs) => {
    const times = [];
    for (let i = 0; i < REQUESTS; i++) {
      const t0 = process.hrtime.bigint();
      const r = await sdk.request('POST', '/projects/p/explore', { query: { metric, returnProjectInfo: 'false' }, json: { values: [{ inputAttributes: inputs.map(String), extraParameters: {} }] } });
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (r.status !== 200) throw new Error(`${metric} answered ${r.status} ${r.body.statusString}`);
    }
    return { p50: quantile(times, 0.5), p90: quantile(times, 0.9), p99: quantile(times, 0.99) };
  };
  for (const target of [10_000, ROWS]) {
    await learnTo(target);
    for (const [metric, inputs] of [['uni', [3]], ['bi', [3, 41]]]) {
      const r = await measure(metric, inputs);
      rows.push({ rows: learned, metric, ...r });
      console.error(`${learned} rows, ${metric}: p50 ${r.p50.toFixed(2)} ms`);
    }
  }
} finally {
  await sys.stop();
}

const section = [
  `## explore — ${m.date}`,
  '',
  `Machine: ${m.cores} cores, ${m.cpu}, Node ${m.node}, load average ${m.load} before the run. Project of ${P} C attributes (histograms on), ${REQUESTS} sequential signed requests per line; client, gateway, services and nats-server share the machine.`,
  '',
  '| rows learned | metric | p50 ms | p90 ms | p99 ms |',
  '|---:|---|---:|---:|---:|',
  ...rows.map((r) => `| ${r.rows} | ${r.metric} | ${r.p50.toFixed(2)} | ${r.p90.toFixed(2)} | ${r.p99.toFixed(2)} |`),
  '',
  `- bi p50 after ${ROWS} rows: **${rows.find((r) => r.rows === ROWS && r.metric === 'bi').p50.toFixed(2)} ms** (target ≤ 20 ms)`,
].join('\n');
console.log(section);
appendResults(resultsFile, section);

// How long one customer's large predict holds another's requests (SML_MAX_PREDICT_CELLS): a
// whole system (and SML_MAX_JSON_BODY_BYTES); alice predicts a frame of N rows × 5 columns with an mlr model while bob
// reads his project's info every 20 ms; bob's worst and median latency during it. Run with
// the default bound (the larger frames are refused by the gateway) and with the bound lifted
// (what the projects service would go through).
//   npm run build && node bench/predict-stall.mjs   (BENCH_ROWS default "200000,1000000"; BENCH_DRY=1 prints only)
// Prints markdown and appends it, dated, to bench/RESULTS.md.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { appendResults, machine } from './lib/results.mjs';

const require = createRequire(import.meta.url);
const { startSystem } = require('../packages/testkit/dist/index.js');
const { SmlClient } = require('../packages/sdk/dist/index.js');

const ROWS = (process.env.BENCH_ROWS ?? '200000,1000000').split(',').map(Number);
const names = ['x1', 'x2', 'x3', 'x4', 'y'];
const rows = (n) => Array.from({ length: n }, (_, i) => names.map((_, j) => String(((i * 7 + j * 13) % 101) / 10)));
const frame = (n) => ({ attributeNames: names, attributeTypes: names.map(() => 'C'), data: rows(n) });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Per frame size: alice's predict status and time, bob's worst and median latency meanwhile. */
async function measure(lifted) {
  const bounds = lifted ? { SML_MAX_PREDICT_CELLS: String(1e9), SML_MAX_JSON_BODY_BYTES: String(256 * 1024 * 1024) } : {};
  const sys = await startSystem({ services: ['users', 'jobs', 'projects'], env: { SML_LOG_LEVEL: 'warn', ...bounds } });
  try {
    const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
    const client = async (user) => new SmlClient({ url: sys.url, user, secret: (await root.addUser(user)).body.values.secretKey });
    const [alice, bob] = [await client('alice'), await client('bob')];
    await alice.createProject('p');
    await bob.createProject('q');
    await alice.request('POST', '/projects/p/learn', { json: frame(1000) });
    await bob.request('POST', '/projects/q/learn', { json: frame(100) });
    await alice.waitForJob(await alice.request('POST', '/projects/p/build', { query: { modelid: 'm', algo: 'mlr' }, json: { inputAttributeNames: names.slice(0, 4), targetAttributeNames: ['y'] } }));
    const out = [];
    for (const n of ROWS) {
      const raw = Buffer.from(JSON.stringify(frame(n)));
      let stop = false;
      const latencies = [];
      const probe = (async () => {
        while (!stop) {
          const t = performance.now();
          await bob.request('GET', '/projects/q');
          latencies.push(performance.now() - t);
          await sleep(20);
        }
      })();
      await sleep(300);
      const t0 = performance.now();
      const res = await alice.request('POST', '/projects/p/predict/m', { raw, headers: { 'content-type': 'application/json' } });
      const ms = performance.now() - t0;
      await sleep(300);
      stop = true;
      await probe;
      latencies.sort((a, b) => a - b);
      out.push({ n, mb: raw.length / 1e6, status: res.status, ms, worst: latencies.at(-1), median: latencies[latencies.length >> 1] });
    }
    return out;
  } finally {
    await sys.stop();
  }
}

const m = machine();
const lines = [];
for (const [label, lifted] of [['as configured by default', false], ['lifted (10⁹ cells, 256 MiB)', true]]) {
  for (const r of await measure(lifted)) {
    lines.push(`| ${label} | ${r.n} | ${r.mb.toFixed(1)} | ${r.status} | ${r.ms.toFixed(0)} | ${r.worst.toFixed(0)} | ${r.median.toFixed(0)} |`);
  }
}
const section = [
  `## predict stall — ${m.date}`,
  '',
  `Machine: ${m.cores} cores, ${m.cpu}, Node ${m.node}, load average ${m.load} before the run. One mlr predict of N rows × 5 columns by one customer; another customer's GET of his project every 20 ms meanwhile.`,
  '',
  '| SML_MAX_PREDICT_CELLS, SML_MAX_JSON_BODY_BYTES | rows N | body (MB) | status | predict (ms) | other customer worst (ms) | median (ms) |',
  '|---|---:|---:|---:|---:|---:|---:|',
  ...lines,
].join('\n');
console.log(section);
if (process.env.BENCH_DRY !== '1') appendResults(fileURLToPath(new URL('./RESULTS.md', import.meta.url)), section);

// How long one customer's online forest holds another customer's learns (issue 29, item 4): a
// whole system; alice's project keeps a forest of 100 trees (rf_complexity 64) and learns
// BENCH_BATCHES (default 10) batches of 5 000 rows × 41 columns (40 C features, a B label), one
// in flight; meanwhile bob learns 1-row frames into his own project, one at a time, every 20 ms.
// Bob's learn latency p50/p99/max and failures, alice's batch times and statuses. The forest's
// updates run on the online-model thread (SML_ONLINE_MODEL_THREADS); before they did, each
// batch held the projects event loop ≈ 1.4 s. Target: bob's p99 ≤ 250 ms.
//   npm run build && node bench/online-stall.mjs   (BENCH_BATCHES, BENCH_DRY=1 prints only)
// Prints markdown and appends it, dated, to bench/RESULTS.md.
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import { appendResults, machine } from './lib/results.mjs';
import { withCustomers } from './lib/stall.mjs';

const BATCHES = Number(process.env.BENCH_BATCHES ?? 10);
const ROWS = 5000;
const D = 40;
const features = Array.from({ length: D }, (_, j) => `x${j}`);
const names = [...features, 'label'];
const types = [...features.map(() => 'C'), 'B'];
let seed = 29;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const bodies = Array.from({ length: BATCHES }, () => Buffer.from(JSON.stringify({
  attributeNames: names,
  attributeTypes: types,
  data: Array.from({ length: ROWS }, () => {
    const x = features.map(() => (rand() * 4 - 2).toFixed(4));
    return [...x, Number(x[0]) * Number(x[1]) + 0.5 * Number(x[2]) > 0 ? '1' : '0'];
  }),
})));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

const m = machine();
const r = await withCustomers({}, async (alice, bob) => {
  const created = await alice.request('POST', '/projects', { query: { pid: 'rf' }, json: { rf_type: 'rf_classifier', rf_target_name: 'label', rf_num_trees: '100', rf_complexity: '64' } });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${created.body.statusString}`);
  // Unmeasured: warms bob's path (gateway and projects service JIT).
  for (let i = 0; i < 50; i++) await bob.request('POST', '/projects/q/learn', { json: { attributeNames: ['a', 'b'], attributeTypes: ['C', 'C'], data: [[String(i), '1']] } });
  const loadBefore = loadavg()[0];
  let done = false;
  const batches = [];
  const t0 = performance.now();
  const forest = (async () => {
    for (const raw of bodies) {
      const t = performance.now();
      const res = await alice.request('POST', '/projects/rf/learn', { raw, headers: { 'content-type': 'application/json' } }).catch((err) => ({ status: err.message }));
      batches.push({ status: res.status, message: res.body?.statusString ?? '', ms: performance.now() - t });
    }
    done = true;
  })();
  const latencies = [];
  const failures = [];
  for (let i = 0; !done; i++) {
    const t = performance.now();
    const res = await bob.request('POST', '/projects/q/learn', { json: { attributeNames: ['a', 'b'], attributeTypes: ['C', 'C'], data: [[String(i), String(i % 7)]] } }).catch((err) => ({ status: err.message }));
    latencies.push(performance.now() - t);
    if (res.status !== 200) failures.push(`${res.status} ${res.body?.statusString ?? ''}`);
    await sleep(20);
  }
  await forest;
  const wall = performance.now() - t0;
  latencies.sort((a, b) => a - b);
  return { latencies, failures, batches, wall, loadBefore, loadAfter: loadavg()[0] };
});

const ok = r.batches.filter((b) => b.status === 200).length;
const failedBatches = r.batches.filter((b) => b.status !== 200).map((b) => `${b.status} ${b.message}`);
const batchMs = r.batches.map((b) => b.ms).sort((a, b) => a - b);
const section = [
  `## online stall — ${m.date}`,
  '',
  `Machine: ${m.cores} cores, ${m.cpu}, Node ${m.node}, load average ${m.load} before the run (${r.loadBefore.toFixed(2)} as the forest started, ${r.loadAfter.toFixed(2)} at its end). One customer's project keeps an online forest (rf_classifier, rf_num_trees 100, rf_complexity 64) and learns ${BATCHES} batches of ${ROWS} × ${D + 1} (one in flight); another customer learns 1-row frames into his own project meanwhile, one at a time, 20 ms apart. SML_ONLINE_MODEL_THREADS=${process.env.SML_ONLINE_MODEL_THREADS ?? '1 (default)'}.`,
  '',
  '| other customer learns | p50 (ms) | p99 (ms) | max (ms) | not 200 | forest batches 200 | forest batch p50 / max (ms) | forest wall (s) |',
  '|---:|---:|---:|---:|---:|---:|---:|---:|',
  `| ${r.latencies.length} | ${quantile(r.latencies, 0.5).toFixed(1)} | **${quantile(r.latencies, 0.99).toFixed(1)}** | ${r.latencies.at(-1).toFixed(1)} | ${r.failures.length} | ${ok} / ${BATCHES} | ${quantile(batchMs, 0.5).toFixed(0)} / ${batchMs.at(-1).toFixed(0)} | ${(r.wall / 1000).toFixed(1)} |`,
  ...(r.failures.length > 0 ? ['', `Other customer's failures: ${[...new Set(r.failures)].join('; ')}`] : []),
  ...(failedBatches.length > 0 ? ['', `Forest batches refused: ${[...new Set(failedBatches)].join('; ')}`] : []),
  '',
  'Target (issue 29, item 4): the other customer\'s p99 ≤ 250 ms.',
].join('\n');
console.log(section);
if (process.env.BENCH_DRY !== '1') appendResults(fileURLToPath(new URL('./RESULTS.md', import.meta.url)), section);

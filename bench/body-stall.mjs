// How long one customer's large learn body holds another's requests at the gateway
// (SML_GATEWAY_BODY_THREADS): a whole system; alice learns one frame of N rows × 20 C columns
// while bob reads his project's info (gateway and projects service) every 20 ms; bob's worst
// and median latency during it. The gateway hashes every body twice (Content-MD5, then the
// signature over it) and reads a learn frame into columns; with body threads (the default)
// that runs off its event loop, with SML_GATEWAY_BODY_THREADS=0 on it. The larger frame is
// over what one batch may be in the project log (413 from the projects service, after the
// gateway hashed and read it): what a customer can make the gateway do regardless.
//   npm run build && node bench/body-stall.mjs   (BENCH_ROWS default "80000,400000"; BENCH_RUNS default 3; BENCH_DRY=1 prints only)
// Prints markdown and appends it, dated, to bench/RESULTS.md.
import { fileURLToPath } from 'node:url';
import { appendResults, machine } from './lib/results.mjs';
import { probed, withCustomers } from './lib/stall.mjs';

const ROWS = (process.env.BENCH_ROWS ?? '80000,400000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const names = Array.from({ length: 20 }, (_, j) => `x${j}`);
const body = (n) => Buffer.from(JSON.stringify({
  attributeNames: names, attributeTypes: names.map(() => 'C'),
  data: Array.from({ length: n }, (_, i) => names.map((_, j) => (Math.sin(i * 0.37 + j) * 100).toFixed(6))),
}));
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** Per frame size, RUNS learns: alice's status and time, bob's worst and median latency meanwhile (medians over the runs). */
function measure(threads) {
  return withCustomers(threads ? {} : { SML_GATEWAY_BODY_THREADS: '0' }, async (alice, bob) => {
    await alice.createProject('p');
    const out = [];
    for (const n of ROWS) {
      const raw = body(n);
      const runs = [];
      for (let k = 0; k < RUNS; k++) runs.push(await probed(bob, () => alice.request('POST', '/projects/p/learn', { raw, headers: { 'content-type': 'application/json' } })));
      out.push({ n, mb: raw.length / 1e6, status: [...new Set(runs.map((r) => r.status))].join(', '), ms: median(runs.map((r) => r.ms)), worst: median(runs.map((r) => r.worst)), median: median(runs.map((r) => r.median)), failed: runs.reduce((s, r) => s + r.failed, 0) });
    }
    return out;
  });
}

const m = machine();
const lines = [];
for (const [label, threads] of [['body threads (default: 2)', true], ['event loop (SML_GATEWAY_BODY_THREADS=0)', false]]) {
  for (const r of await measure(threads)) {
    lines.push(`| ${label} | ${r.n} | ${r.mb.toFixed(1)} | ${r.status} | ${r.ms.toFixed(0)} | ${r.worst.toFixed(0)} | ${r.median.toFixed(0)} | ${r.failed} |`);
  }
}
const section = [
  `## body stall — ${m.date}`,
  '',
  `Machine: ${m.cores} cores, ${m.cpu}, Node ${m.node}, load average ${m.load} before the run. One learn of N rows × 20 C columns by one customer; another customer's GET of his project's info every 20 ms meanwhile (gateway and projects service); medians of ${RUNS} learns each.`,
  '',
  '| where the gateway hashes and reads the body | rows N | body (MB) | status | learn (ms) | other customer worst (ms) | median (ms) | other customer failed |',
  '|---|---:|---:|---:|---:|---:|---:|---:|',
  ...lines,
].join('\n');
console.log(section);
if (process.env.BENCH_DRY !== '1') appendResults(fileURLToPath(new URL('./RESULTS.md', import.meta.url)), section);

// How long one customer's large predict holds another's requests (SML_MAX_PREDICT_CELLS,
// SML_MAX_JSON_BODY_BYTES): a whole system; alice predicts a frame of N rows × 5 columns with an
// mlr model while bob reads his project's info (GET info: gateway and projects service) every
// 20 ms; bob's worst and median latency during it. Run with the default bounds (the larger
// frames are refused by the gateway) and with them lifted (what the services would go
// through). Then a costly model: a covest on BENCH_COVEST_P inputs (default 600) predicting
// 600 rows, on the predict thread (the default) and inline (SML_PREDICT_THREAD_STEPS lifted).
//   npm run build && node bench/predict-stall.mjs   (BENCH_ROWS default "200000,1000000"; BENCH_DRY=1 prints only)
// Prints markdown and appends it, dated, to bench/RESULTS.md.
import { fileURLToPath } from 'node:url';
import { appendResults, machine } from './lib/results.mjs';
import { probed, withCustomers } from './lib/stall.mjs';

const ROWS = (process.env.BENCH_ROWS ?? '200000,1000000').split(',').map(Number);
const names = ['x1', 'x2', 'x3', 'x4', 'y'];
const rows = (n) => Array.from({ length: n }, (_, i) => names.map((_, j) => String(((i * 7 + j * 13) % 101) / 10)));
const frame = (n) => ({ attributeNames: names, attributeTypes: names.map(() => 'C'), data: rows(n) });

const COVEST_P = Number(process.env.BENCH_COVEST_P ?? 600);
/** Rows of the covest predict: 600² × 600 = 2.2·10⁸ steps, under SML_MAX_PREDICT_STEPS. */
const ROWS_COVEST = 600;

/** A covest on COVEST_P inputs predicting ROWS_COVEST rows while bob reads: on the predict thread, or inline. */
function measureCovest(inline) {
  return withCustomers(inline ? { SML_PREDICT_THREAD_STEPS: String(1e15) } : {}, async (alice, bob) => {
    await alice.createProject('w');
    const inputs = Array.from({ length: COVEST_P }, (_, j) => `v${j}`);
    const wide = (n) => ({ attributeNames: inputs, attributeTypes: inputs.map(() => 'C'), data: Array.from({ length: n }, (_, i) => inputs.map((_, j) => String(Math.sin(i * 7.1 + j * 1.3).toFixed(4)))) });
    for (let k = 0; k < 3; k++) await alice.request('POST', '/projects/w/learn', { json: wide(Math.ceil(COVEST_P / 2)) });
    const built = await alice.waitForJob(await alice.request('POST', '/projects/w/build', { query: { modelid: 'c', algo: 'covest' }, json: { inputAttributeNames: inputs, targetAttributeNames: [], extraParameters: { estimate_type: 'shrunk' } } }));
    if (built.status !== 200) throw new Error(`covest build: ${built.status} ${built.body.statusString}`);
    const raw = Buffer.from(JSON.stringify(wide(ROWS_COVEST)));
    await alice.request('POST', '/projects/w/predict/c', { raw, headers: { 'content-type': 'application/json' } }); // restored and cached (and sent to the thread)
    return probed(bob, () => alice.request('POST', '/projects/w/predict/c', { raw, headers: { 'content-type': 'application/json' } }));
  });
}

/** Per frame size: alice's predict status and time, bob's worst and median latency meanwhile. */
function measure(lifted) {
  const bounds = lifted ? { SML_MAX_PREDICT_CELLS: String(1e9), SML_MAX_JSON_BODY_BYTES: String(256 * 1024 * 1024) } : {};
  return withCustomers(bounds, async (alice, bob) => {
    await alice.createProject('p');
    await alice.request('POST', '/projects/p/learn', { json: frame(1000) });
    await alice.waitForJob(await alice.request('POST', '/projects/p/build', { query: { modelid: 'm', algo: 'mlr' }, json: { inputAttributeNames: names.slice(0, 4), targetAttributeNames: ['y'] } }));
    // Unmeasured: warms both services' JIT on this path, as in a running service.
    for (let k = 0; k < 3; k++) await alice.request('POST', '/projects/p/predict/m', { json: frame(20_000) });
    const out = [];
    for (const n of ROWS) {
      const raw = Buffer.from(JSON.stringify(frame(n)));
      const r = await probed(bob, () => alice.request('POST', '/projects/p/predict/m', { raw, headers: { 'content-type': 'application/json' } }));
      out.push({ n, mb: raw.length / 1e6, ...r });
    }
    return out;
  });
}

const m = machine();
const lines = [];
for (const [label, lifted] of [['as configured by default', false], ['lifted (10⁹ cells, 256 MiB)', true]]) {
  for (const r of await measure(lifted)) {
    lines.push(`| ${label} | ${r.n} | ${r.mb.toFixed(1)} | ${r.status} | ${r.ms.toFixed(0)} | ${r.worst.toFixed(0)} | ${r.median.toFixed(0)} | ${r.failed} |`);
  }
}
const covestLines = [];
for (const [label, inline] of [['predict thread (default)', false], ['inline (SML_PREDICT_THREAD_STEPS lifted)', true]]) {
  const r = await measureCovest(inline);
  covestLines.push(`| ${label} | ${r.status} | ${r.ms.toFixed(0)} | ${r.worst.toFixed(0)} | ${r.median.toFixed(0)} | ${r.failed} |`);
}

const section = [
  `## predict stall — ${m.date}`,
  '',
  `Machine: ${m.cores} cores, ${m.cpu}, Node ${m.node}, load average ${m.load} before the run. One mlr predict of N rows × 5 columns by one customer; another customer's GET of his project's info every 20 ms meanwhile (gateway and projects service).`,
  '',
  '| SML_MAX_PREDICT_CELLS, SML_MAX_JSON_BODY_BYTES | rows N | body (MB) | status | predict (ms) | other customer worst (ms) | median (ms) | other customer failed |',
  '|---|---:|---:|---:|---:|---:|---:|---:|',
  ...lines,
  '',
  `A covest (shrunk) on ${COVEST_P} inputs predicting ${ROWS_COVEST} rows (${COVEST_P}² steps a row), its model already restored; the other customer's GETs meanwhile:`,
  '',
  '| where the predict runs | status | predict (ms) | other customer worst (ms) | median (ms) | other customer failed |',
  '|---|---:|---:|---:|---:|---:|',
  ...covestLines,
].join('\n');
console.log(section);
if (process.env.BENCH_DRY !== '1') appendResults(fileURLToPath(new URL('./RESULTS.md', import.meta.url)), section);

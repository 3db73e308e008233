// Online Mondrian forest update cost per row (issue 13): a summary keeping a forest of 10 trees
// over 20 C features learns BENCH_ROWS rows (default 200 000) in 10 000-row frames, next to
// the same summary without a forest on the same frames: the difference is the forest's cost.
// Times are this process's CPU time (user + system, process.cpuUsage), so other work sharing
// the machine inflates them less than wall time; the mean wall-time cost is shown too.
// Run after a build:
//   node bench/rf.mjs        (BENCH_ROWS, BENCH_TREES default 10, BENCH_DRY=1 prints without appending)
// Per rf_type: µs per row of the forest for the first and the last 10 000 rows (trees grow until
// their node cap or rf_complexity, then the cost flattens), nodes kept, serialized forest size,
// model build time and in-process predict rate of the built model.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { appendResults, machine } from './lib/results.mjs';

const require = createRequire(import.meta.url);
const { Summary, ALGORITHMS, forestOptionsOf } = require('../packages/stats/dist/index.js');

const ROWS = Number(process.env.BENCH_ROWS ?? 200_000);
const TREES = Number(process.env.BENCH_TREES ?? 10);
const D = 20;
const BATCH = 10_000;
const resultsFile = fileURLToPath(new URL('./RESULTS.md', import.meta.url));

let seed = 7;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const features = Array.from({ length: D }, (_, j) => `x${j}`);
const names = [...features, 'y', 'label'];
const types = [...features.map(() => 'C'), 'C', 'B'];
const frames = Array.from({ length: Math.ceil(ROWS / BATCH) }, () => ({
  attributeNames: names,
  attributeTypes: types,
  data: Array.from({ length: BATCH }, () => {
    const x = features.map(() => rand() * 4 - 2);
    const y = Math.sin(x[0]) * 2 + x[1] * x[2] + 0.3 * x[3] + (rand() - 0.5);
    return [...x.map((v) => v.toFixed(5)), y.toFixed(5), y > 0 ? '1' : '0'];
  }),
}));

/** CPU and wall milliseconds to learn each frame into `summary`. */
function learnTimes(summary) {
  const cpu = [];
  const wall = [];
  for (const f of frames) {
    const t0 = process.hrtime.bigint();
    const c0 = process.cpuUsage();
    summary.learn(f);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
    wall.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return { cpu, wall };
}
const total = (xs) => xs.reduce((a, b) => a + b, 0);

const m = machine();
learnTimes(new Summary()); // warm-up: the first learn of a frame also compiles the summary's code
const base = learnTimes(new Summary());
const rows = [];
for (const type of ['rf_classifier', 'rf_regressor', 'rf_anomaly']) {
  const params = { rf_type: type, rf_features: features.join(':'), rf_num_trees: String(TREES), ...(type === 'rf_classifier' ? { rf_target_name: 'label' } : type === 'rf_regressor' ? { rf_target_name: 'y' } : {}) };
  const summary = new Summary({ forest: forestOptionsOf(params) });
  const times = learnTimes(summary);
  const perRow = (k) => ((times.cpu[k] - base.cpu[k]) * 1000) / BATCH;
  const mean = (kind) => ((total(times[kind]) - total(base[kind])) * 1000) / (frames.length * BATCH);
  const t0 = process.hrtime.bigint();
  const model = ALGORITHMS[type].build(summary, { algo: type, inputs: [], targets: [], params: {} });
  const buildMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const probe = { names, rows: frames[0].data };
  const t1 = process.hrtime.bigint();
  model.predict(probe);
  const predictRate = BATCH / (Number(process.hrtime.bigint() - t1) / 1e9);
  const row = {
    type, first: perRow(0), last: perRow(frames.length - 1), mean: mean('cpu'), wall: mean('wall'),
    nodes: Number(model.info().nodes), cap: Number(model.info().max_nodes_per_tree), bytes: summary.serialize().length, buildMs, predictRate,
  };
  rows.push(row);
  console.log(JSON.stringify(row));
}

const table = [
  `## rf — ${m.date}`,
  '',
  `Machine: ${m.cores} cores, ${m.cpu}, node ${m.node}, load ${m.load} before the run. Command: \`${process.env.BENCH_ROWS ? `BENCH_ROWS=${ROWS} ` : ''}node bench/rf.mjs\`.`,
  `${frames.length * BATCH} rows × ${D} C features (+ y, label) learned in ${BATCH}-row frames; ${TREES} trees; forest cost = CPU time of the learn with the forest − without (summary alone: ${((total(base.cpu) * 1000) / (frames.length * BATCH)).toFixed(2)} µs/row).`,
  '',
  '| rf_type | forest CPU µs/row, first 10⁴ | last 10⁴ | mean | mean, wall time | nodes (cap/tree) | summary bytes | build ms | predict rows/s |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows.map((r) => `| ${r.type} | ${r.first.toFixed(1)} | ${r.last.toFixed(1)} | **${r.mean.toFixed(1)}** | ${r.wall.toFixed(1)} | ${r.nodes} (${r.cap}) | ${r.bytes} | ${r.buildMs.toFixed(0)} | ${Math.round(r.predictRate)} |`),
].join('\n');
console.log(table);
if (!process.env.BENCH_DRY) appendResults(resultsFile, table);

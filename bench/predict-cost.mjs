// What a predict step costs (SML_MAX_PREDICT_STEPS): the models whose predict is far more work
// per row than reading it (covariance models: a quadratic form per row) built on p random
// inputs, a frame of rows predicted three times, the best time over the model's own count of
// steps (Model.predictionSteps). It says how long the bound lets one predict hold the projects
// event loop, and how many rows of such a model one predict takes.
//   npm run build && node bench/predict-cost.mjs   (BENCH_P default "100,1000"; BENCH_DRY=1 prints only)
// Prints markdown and appends it, dated, to bench/RESULTS.md.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { appendResults, machine } from './lib/results.mjs';

const require = createRequire(import.meta.url);
const { ALGORITHMS, Summary, resolveAttributes } = require('../packages/stats/dist/index.js');

const PS = (process.env.BENCH_P ?? '100,1000').split(',').map(Number);
/** The service's default bound (README: SML_MAX_PREDICT_STEPS). */
const BOUND = 250_000_000;
let seed = 7;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);

/** Rows of p inputs in [-1, 1) and a group column g of two levels (mqda's classes). */
function rows(n, p) {
  return Array.from({ length: n }, () => [...Array.from({ length: p }, () => (rand() * 2 - 1).toFixed(4)), rand() < 0.5 ? 'u' : 'v']);
}

const m = machine();
const lines = [];
for (const p of PS) {
  const names = Array.from({ length: p }, (_, j) => `x${j}`);
  const attributeNames = [...names, 'g'];
  const attributeTypes = [...names.map(() => 'C'), 'T'];
  const summary = new Summary({ partitionSplit: 'g' });
  summary.learn({ attributeNames, attributeTypes, data: rows(Math.max(4 * p, 500), p) });
  const frame = { names: attributeNames, rows: rows(p >= 1000 ? 50 : 500, p) };
  for (const algo of ['covest', 'mqda', 'repca', 'oospca']) {
    const model = ALGORITHMS[algo].build(summary, { algo, inputs: resolveAttributes(summary, names), targets: [], params: {} });
    let best = Infinity;
    for (let k = 0; k < 3; k++) {
      const t0 = performance.now();
      model.predict(frame);
      best = Math.min(best, performance.now() - t0);
    }
    const steps = model.predictionSteps(frame.rows.length);
    const perRow = steps / frame.rows.length;
    lines.push(`| ${algo} | ${p} | ${(best / frame.rows.length * 1000).toFixed(1)} | ${(best * 1e6 / steps).toFixed(2)} | ${Math.floor(BOUND / perRow)} | ${(BOUND * best / steps / 1000).toFixed(2)} |`);
  }
}

const section = [
  `## predict cost — ${m.date}`,
  '',
  `Machine: ${m.cores} cores, ${m.cpu}, Node ${m.node}, load average ${m.load} before the run. Best of 3 predicts of one frame; steps as the model counts them (Model.predictionSteps).`,
  '',
  `| model | inputs p | µs per row | ns per step | rows per predict at ${BOUND.toExponential(1)} steps | s per predict at the bound |`,
  '|---|---:|---:|---:|---:|---:|',
  ...lines,
].join('\n');
console.log(section);
if (process.env.BENCH_DRY !== '1') appendResults(fileURLToPath(new URL('./RESULTS.md', import.meta.url)), section);

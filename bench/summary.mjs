// Summary update cost (issue 15): the frame already read, as the projects service gets it,
// learned into a summary with streaming histograms; per attribute count p, ns per row and per
// attribute pair (i ≤ j) per row, with each cross-product kernel this machine runs (native
// AVX2/FMA where built, WebAssembly SIMD, the JavaScript tiles), next to numpy's X.T @ X on the blocks the update folds
// (rows per block as moments.ts chooses them), single-threaded OpenBLAS, in the same run.
//   npm run build && node bench/summary.mjs   (needs Debian python3-numpy and libopenblas0: with
//   reference BLAS numpy is ~10× slower and the ratio means little; the machine line names the BLAS; BENCH_P default "20,200,2000"; BENCH_LEVELS default
//   "10,100,1000": a T column of L levels next to 20 C columns; BENCH_DRY=1 prints only)
// Prints markdown and appends it, dated, to bench/RESULTS.md.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { appendResults, machine } from './lib/results.mjs';

const require = createRequire(import.meta.url);
const { Summary, gramBlockRows, parseFrameJson, selectKernels } = require('../packages/stats/dist/index.js');
const { STATS_KERNEL_CONFIG, loadConfig, statsKernels } = require('../packages/core/dist/index.js');

const PS = (process.env.BENCH_P ?? '20,200,2000').split(',').map(Number);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
let seed = 1;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);

function frame(rows, p) {
  const names = Array.from({ length: p }, (_, j) => `x${j}`);
  return { attributeNames: names, attributeTypes: names.map(() => 'C'), data: Array.from({ length: rows }, () => names.map(() => (rand() * 200 - 100).toFixed(6))) };
}

const blockRows = gramBlockRows; // the rows per block the update folds

const TIMED = Number(process.env.BENCH_TIMED ?? 15);
/**
 * Median ns per row of learning `columns` (n rows) into a summary with `options`: one update for
 * the schema, three to warm up, TIMED (BENCH_TIMED, default 15) timed: this VM's speed drifts
 * between runs (±30 % seen at p = 200), and the median of many steadies the figure.
 */
function nsPerRow(columns, n, options) {
  const s = new Summary(options);
  const update = () => s.prepare('learn', { columns }).commit();
  update();
  for (let w = 0; w < 3; w++) update();
  const times = [];
  for (let r = 0; r < TIMED; r++) {
    const t0 = process.hrtime.bigint();
    update();
    times.push(Number(process.hrtime.bigint() - t0));
  }
  return median(times) / n;
}

// Every kernel this machine runs, the default (native where it was built) first; wasm and js always.
// The default as this process's configuration selects it (SML_STATS_KERNEL, SML_STATS_NATIVE).
const selected = statsKernels(loadConfig(process.env, STATS_KERNEL_CONFIG));
const KERNELS = [...new Set([selectKernels(selected).gram.name, 'wasm', 'js'])];
if (selectKernels({ kernel: 'wasm' }).gram.name !== 'wasm') throw new Error('the wasm kernel is not available here');
selectKernels(selected);
const m = machine();
const rows = [];
for (const p of PS) {
  const n = p >= 2000 ? 512 : p >= 200 ? 4096 : 20_000;
  const columns = parseFrameJson(Buffer.from(JSON.stringify(frame(n, p))));
  const row = { p, rows: n };
  for (const kernel of KERNELS) {
    // wasm and js: what a machine without the native kernels runs (its other kernels too).
    selectKernels({ kernel, native: kernel === 'native' });
    row[kernel] = nsPerRow(columns, n, { histogram: 'streaming' });
  }
  selectKernels(selected);
  rows.push(row);
}
// Categorical columns are sparse: 20 C columns and one T column of L levels (uniform codes).
const levelRows = [];
for (const L of (process.env.BENCH_LEVELS ?? '10,100,1000').split(',').map(Number)) {
  const n = 20_000;
  const f = frame(n, 20);
  f.attributeNames.push('cat');
  f.attributeTypes.push('T');
  f.data.forEach((r) => r.push(`level${Math.floor(rand() * L)}`));
  const columns = parseFrameJson(Buffer.from(JSON.stringify(f)));
  const ns = nsPerRow(columns, n, { histogram: 'streaming' });
  const withoutConditional = nsPerRow(columns, n, { histogram: 'streaming', conditionalHistograms: false });
  levelRows.push({ L, attributes: 20 + L, ns, withoutConditional });
}
const numpy = JSON.parse(execFileSync('/usr/bin/python3', [fileURLToPath(new URL('./numpy_gram.py', import.meta.url)), JSON.stringify(PS.map((p) => [p, blockRows(p)]))], { encoding: 'utf8', env: { ...process.env, OPENBLAS_NUM_THREADS: '1' } }));
const perPair = (p, ns) => ns / ((p * (p + 1)) / 2);

const section = [
  `## summary — ${m.date}`,
  '',
  `Machine: ${m.cores} cores, ${m.cpu}, Node ${m.node}, load average ${m.load} before the run. Summary update of a frame already read (moments, co-moments, streaming histograms), median of ${TIMED} updates; numpy ${numpy.numpy} (BLAS: ${numpy.blas}) X.T @ X on one block of the rows the update folds at a time (best of 7, OPENBLAS_NUM_THREADS=1).`,
  '',
  `The default kernel is ${KERNELS[0]} (bold); the others are what a machine without it runs (no native kernel at all: moments and histograms in JavaScript too).`,
  '',
  `| p | rows per update | rows per kernel block | ${KERNELS[0]} ns/row | ${KERNELS.map((k) => `${k} ns per pair-row`).join(' | ')} | numpy X.T@X ns per pair-row | ${KERNELS[0]} / numpy |`,
  `|---:|---:|---:|---:|${KERNELS.map(() => '---:|').join('')}---:|---:|`,
  ...rows.map((r) => {
    const np = numpy.shapes.find((s) => s.p === r.p).ns_per_pair_row;
    const best = KERNELS[0];
    const perKernel = KERNELS.map((k, i) => (i === 0 ? `**${perPair(r.p, r[k]).toFixed(3)}**` : perPair(r.p, r[k]).toFixed(3)));
    return `| ${r.p} | ${r.rows} | ${blockRows(r.p)} | ${Math.round(r[best])} | ${perKernel.join(' | ')} | ${np.toFixed(3)} | ${(perPair(r.p, r[best]) / np).toFixed(1)}× |`;
  }),
  '',
  'A T column of L levels next to 20 C columns (20 000 rows per update, uniform levels): the levels are learned sparsely (codes counted, numeric values summed per code), so the cost per row should not grow with L:',
  '',
  '| L | attributes | ns per row | ns per row without the conditional histograms (`conditionalHistograms: false`) |',
  '|---:|---:|---:|---:|',
  ...levelRows.map((r) => `| ${r.L} | ${r.attributes} | **${Math.round(r.ns)}** | ${Math.round(r.withoutConditional)} |`),
  '',
  'Per pair-row the update computes two products (Σxy on shifted values and Σx²y²) where X.T @ X computes one, and adds the O(p) per-row work (four compensated power sums, histograms, the magnitude check). Target (issue 15): ≤ 0.5 ns per pair-row at p = 200.',
].join('\n');
console.log(section);
if (process.env.BENCH_DRY !== '1') appendResults(fileURLToPath(new URL('./RESULTS.md', import.meta.url)), section);

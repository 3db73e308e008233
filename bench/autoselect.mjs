// autoSelect wall time vs rows learned (issue 13): a project of 50 C inputs + a C and a B
// target learns 10⁴ rows, then BENCH_ROWS (default 10⁶) in all; after each step autoSelect
// runs through REST for the regression and the binary task with the tiny grid (the default),
// scored on the same 2 000-row dataframe, timed from the POST to the job's 200. Models are
// built from the summary, so the time must not grow with the rows learned.
//   npm run build && node bench/autoselect.mjs   (BENCH_ROWS, BENCH_RUNS default 3; BENCH_DRY=1 prints only)
// Prints markdown and appends it, dated, to bench/RESULTS.md.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { appendResults, machine } from './lib/results.mjs';

const require = createRequire(import.meta.url);
const { startSystem } = require('../packages/testkit/dist/index.js');
const { SmlClient } = require('../packages/sdk/dist/index.js');

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const P = 50;
const BATCH = 10_000;
// fw_bw over 50 inputs × the grid is over the 120 s selection budget (1 047 candidates tried): simple ranks the inputs once.
const SELECTOR = process.env.BENCH_SELECTOR ?? 'selector_type_simple';
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

let seed = 11;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const inputs = Array.from({ length: P }, (_, j) => `x${j}`);
const names = [...inputs, 'y', 'b'];
const weights = inputs.map((_, j) => (j < 10 ? rand() * 2 - 1 : 0)); // ten inputs matter
function frame(rows) {
  const data = Array.from({ length: rows }, () => {
    const x = inputs.map(() => rand() * 4 - 2);
    const y = x.reduce((s, v, j) => s + v * weights[j], 0) + (rand() - 0.5);
    return [...x.map((v) => v.toFixed(5)), y.toFixed(5), y > 0 ? '1' : '0'];
  });
  return { attributeNames: names, attributeTypes: [...inputs.map(() => 'C'), 'C', 'B'], data };
}

const TASKS = [
  { task: 'regression', target: 'y' },
  { task: 'binary_classifier', target: 'b' },
];
const m = machine();
const scoring = frame(2000);
const results = [];
const sys = await startSystem({ services: ['users', 'jobs', 'projects'], env: { SML_LOG_LEVEL: 'warn' } });
try {
  const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
  const secret = (await root.addUser('bench')).body.values.secretKey;
  const sdk = new SmlClient({ url: sys.url, user: 'bench', secret });
  await sdk.createProject('auto');
  let learned = 0;
  for (const target of [10_000, ROWS]) {
    while (learned < target) {
      const r = await sdk.learn('auto', frame(BATCH));
      if (r.status !== 200) throw new Error(`learn answered ${r.status} ${r.body.statusString}`);
      learned += BATCH;
    }
    for (const { task, target: y } of TASKS) {
      const times = [];
      let board = 0;
      let winner = '';
      for (let run = 0; run < RUNS; run++) {
        const t0 = process.hrtime.bigint();
        const r = await sdk.autoSelect('auto', `${task}_${learned}_${run}`, task, { inputAttributeNames: inputs, targetAttributeNames: [y], extraParameters: { rnd_seed: '1', selector_type: SELECTOR } }, scoring);
        const done = await sdk.waitForJob(r, { timeoutMs: 600_000 });
        if (done.status !== 200) throw new Error(`autoSelect ${task}: ${done.status} ${done.body.statusString}`);
        times.push(Number(process.hrtime.bigint() - t0) / 1e9);
        const info = done.body.values.modelInfo;
        board = JSON.parse(info.extra.leaderboard).length;
        winner = info.algo;
      }
      results.push({ rows: learned, task, seconds: median(times), all: times, board, winner });
      console.error(`${learned} rows, ${task}: ${median(times).toFixed(2)} s (runs ${times.map((t) => t.toFixed(2)).join(', ')}), ${board} candidates, winner ${winner}`);
    }
  }
} finally {
  await sys.stop();
}

const section = [
  `## autoselect — ${m.date}`,
  '',
  `Machine: ${m.cores} cores, ${m.cpu}, Node ${m.node}, load average ${m.load} before the run. A project of ${P} C inputs, a C target y (ten inputs matter) and a B target b; autoSelect through REST (tiny grid, the default; ${SELECTOR}) scored on a 2 000-row dataframe, POST → job 200 (polled), median of ${RUNS}. Client, gateway, services and nats-server share the machine.`,
  '',
  '| rows learned | task | seconds (median) | runs | leaderboard entries | winner |',
  '|---:|---|---:|---|---:|---|',
  ...results.map((r) => `| ${r.rows} | ${r.task} | **${r.seconds.toFixed(2)}** | ${r.all.map((t) => t.toFixed(2)).join(', ')} | ${r.board} | ${r.winner} |`),
  '',
  ...TASKS.map(({ task }) => {
    const [a, b] = results.filter((r) => r.task === task);
    return `- ${task}: ${b.rows} rows / ${a.rows} rows = ${(b.seconds / a.seconds).toFixed(2)}× the time (target: not growing with rows)`;
  }),
].join('\n');
console.log(section);
if (process.env.BENCH_DRY !== '1') appendResults(fileURLToPath(new URL('./RESULTS.md', import.meta.url)), section);

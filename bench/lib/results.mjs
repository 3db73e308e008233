// Formats a benchmark's figures as markdown and appends them, dated, to bench/RESULTS.md.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';

const HEADER = `# Benchmark results

Each section below is one run, appended by the benchmark itself, with the machine it ran on.
Figures from different machines are not comparable.

| Benchmark | Command | What it measures |
|---|---|---|
| gateway | \`npm run build && node bench/gateway.mjs\` | Signed \`GET /symetry/rest/{user}/jobs\` through the gateway (HMAC auth, replay check, NATS request to the jobs service) versus a plain express hello-world answering the same envelope on the same machine. Same client for both: autocannon, every request freshly signed. Env: \`BENCH_SECONDS\` (default 10) per run, \`BENCH_CONNECTIONS\` (default \`1,10\`), \`BENCH_CPU_PROF=<dir>\` writes CPU profiles of the service processes. Target: p50 overhead ≤ 2 ms. |
| learn | \`npm run build && node --expose-gc bench/learn.mjs\` | End-to-end REST learn of 100 000 rows × 20 C columns in batches of 10 000 (signed, durable before the 200) next to a single process only JSON.parsing the same bodies; requests in flight \`BENCH_CONCURRENCY\` (default 1,2). Also summary update cost per row for p = 10, 50, 200 and heap/summary size after 10⁴–10⁶ rows. Target: ≥ 0.5 × the JSON.parse rate. |
| explore | \`npm run build && node bench/explore.mjs\` | \`uni\` and \`bi\` p50/p90/p99 end to end on a 50-attribute project after 10⁴ and after 10⁶ learned rows (\`BENCH_ROWS\`, \`BENCH_REQUESTS\`); then on a project of \`BENCH_WIDE_P\` (2000) attributes (explore reads sub-summaries), and \`BENCH_BUILDS\` (30) mlr builds on 50 of its attributes timed POST → job 200 next to the same build on a 2-attribute project (the job path alone) and, in process, the job's own work vs the whole summary. \`BENCH_ONLY=wide\`, \`BENCH_DRY=1\`, \`BENCH_CPU_PROF=<dir>\` writes CPU profiles of the service processes. Targets: flat in rows, bi ≤ 20 ms p50; issue 15: uni/bi at 2000 attributes and the mlr build ≤ 20 ms p50. |
| models | \`npm run build && node bench/models.mjs\` | Build time of \`mlr\` and \`lda\` (50 inputs) from the summary after 10⁴ and 10⁶ learned rows (p50 of 200, in process), predict throughput through REST for 10 000-row frames, and scikit-learn's fit time on 10⁶ × 50 (\`bench/sklearn_fit.py\`, Debian python3-sklearn). Targets: build flat and ≤ 10 ms p50; ≥ 100× faster than sklearn's fit. |
| datasources | \`npm run build && node --expose-gc bench/datasources.mjs\` | Learning a CSV of \`BENCH_ROWS\` (default 10⁶) rows × 20 numeric columns as a data-source job (\`POST /projects/{p}/dss/{ds}/learn\`, POST → job 200) from a \`localfile\` source and from an \`s3\` source (s3rver), \`BENCH_RUNS\` (default 3) fresh projects each, next to the rate at which one process only JSON.parses the same rows as 10 000-row DataFrame bodies, measured right before each learn; CPU seconds of every process per learn; peak RSS of every process (VmRSS sampled every 50 ms during the learns, VmHWM at the end), to compare 10⁵ with 10⁶ rows. \`BENCH_CPU_PROF=<dir>\` writes the services' CPU profiles, \`BENCH_DRY=1\` prints without appending. Target: ≥ 1.5 × the JSON.parse rate; RSS flat in rows. |
| streams | \`npm run build && node bench/streams.mjs\` | Records/s learned from Kafka (kafka-mock, every record in partition 0) and from NATS JetStream (a second nats-server) into one project, \`BENCH_RECORDS\` (default 200 000) JSON records of 20 numeric fields produced up front, stream created with fromBeginning, timed to the project's row count (read over the bus every \`BENCH_POLL_MS\`, default 10) reaching them; the stream's metrics read/learned/rejected; CPU seconds and peak RSS of every process of the run. Then end-to-end lag p50/p90/p99 at a steady 50 % of that rate for \`BENCH_LAG_SECONDS\` (default 20) per source (send time by record number → the first row-count reading above that number). \`BENCH_FORMATS=json,csv\` adds CSV records, \`BENCH_CPU_PROF=<dir>\`, \`BENCH_DRY=1\` prints without appending; \`SML_STREAM_BATCH_*\` in the environment reach the streams service. |
| autoselect | \`npm run build && node bench/autoselect.mjs\` | autoSelect wall time through REST (POST → job 200) on a project of 50 C inputs, regression and binary tasks, tiny grid, \`BENCH_SELECTOR\` (default selector_type_simple: fw_bw over 50 inputs is over the selection budget), after 10⁴ and after \`BENCH_ROWS\` (default 10⁶) learned rows, median of \`BENCH_RUNS\` (3). \`BENCH_DRY=1\` prints only. Target (issue 13): not growing with rows. |
| summary | \`npm run build && node bench/summary.mjs\` | Summary update of a frame already read (moments, co-moments, streaming histograms) at p = 20, 200, 2000 (\`BENCH_P\`): ns per row and per attribute pair per row with the WebAssembly SIMD kernel and the JavaScript fallback, next to numpy's X.T @ X (single-threaded OpenBLAS, \`bench/numpy_gram.py\`) on the same block shapes in the same run. \`BENCH_DRY=1\` prints only. Target (issue 15): ≤ 0.5 ns per pair-row at p = 200. |
| scale | \`npm run build && node bench/scale.mjs\` | Projects replicas (issue 16): 1, 2 and 3 projects processes (\`BENCH_REPLICAS\`), one serving under the projects lease and the others standing by; \`BENCH_BATCHES\` (600) signed REST learns of 1 000 rows × 20 C columns into 8 projects, 4 in flight, median of \`BENCH_RUNS\` (3): rows/s, CPU per batch of every process, lease writes/s (KV watch) and the standbys' lease reads/s; then the serving replica SIGKILLed: time to the next acknowledged batch (\`SML_PROJECT_LEASE_MS\`, default 10 000). \`BENCH_DRY=1\` prints only. |
| rf | \`npm run build && node bench/rf.mjs\` | Online Mondrian forest update cost per row (issue 13): \`BENCH_ROWS\` (default 200 000) rows × 20 C features learned in 10 000-row frames by a summary keeping a forest of \`BENCH_TREES\` (default 10) trees, minus the same learn without a forest, per rf_type (classifier, regressor, anomaly), for the first and the last 10⁴ rows; nodes kept against the per-tree cap, serialized summary size, model build time and in-process predict rate. \`BENCH_DRY=1\` prints without appending. |
| online-stall | \`npm run build && node bench/online-stall.mjs\` | Another customer's 1-row learn latency (p50, p99, max; one at a time, 20 ms apart) and failures while one customer's project with an online forest (rf_classifier, 100 trees, rf_complexity 64) learns \`BENCH_BATCHES\` (default 10) batches of 5 000 × 41, one in flight; the forest batches' statuses and times. \`SML_ONLINE_MODEL_THREADS\` in the environment reaches the projects service; \`BENCH_DRY=1\` prints only. Target (issue 29): p99 ≤ 250 ms. |
`;

export function machine() {
  const cpuinfo = existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '';
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? 'unknown CPU';
  // The 1-minute load average before the run shows whether other work shared the machine.
  return { cores: availableParallelism(), cpu: model.trim(), node: process.version, date: new Date().toISOString(), load: loadavg()[0].toFixed(2) };
}

const ms = (v) => (Number.isFinite(v) ? v.toFixed(2) : 'n/a');

/** One row per target and connection count, then the overhead of `subject` over `baseline`. */
export function markdownTable(runs) {
  const lines = [
    '| Target | Connections | req/s | p50 ms | p90 ms | p99 ms | non-2xx | errors |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...runs.map((r) => `| ${r.target} | ${r.connections} | ${Math.round(r.reqPerSec)} | ${ms(r.p50)} | ${ms(r.p90)} | ${ms(r.p99)} | ${r.non2xx} | ${r.errors} |`),
  ];
  return lines.join('\n');
}

export function appendResults(file, section) {
  if (!existsSync(file)) writeFileSync(file, HEADER);
  appendFileSync(file, `\n${section}\n`);
}

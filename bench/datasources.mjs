// Data-source learn throughput and memory (issue 11). Run after a build:
//   node --expose-gc bench/datasources.mjs   (BENCH_ROWS default 1000000; BENCH_RUNS default 3;
//                                             BENCH_DRY=1 prints without appending;
//                                             BENCH_CPU_PROF=<dir> writes the services' CPU profiles there)
// 1. Writes a CSV of BENCH_ROWS rows × 20 numeric columns (header x0..x19, the deterministic
//    cells of bench/learn.mjs) into the customer's files root of a system started with
//    startSystem (`<SML_FILES_ROOT>/<customer token>/bench.csv`), and uploads the same file to
//    an s3rver bucket (startS3).
// 2. Registers a localfile and an s3 data source and learns each, BENCH_RUNS times, into a
//    fresh project as a job (POST /projects/{p}/dss/{ds}/learn, then polling the job every
//    50 ms): rows/s end to end, from the POST to the job's 200. The server side's own
//    time (the dsLog entry's started → finished) is shown next to it.
// 3. Right before each learn, the rate at which this process only JSON.parses the same rows
//    as DataFrame request bodies (10 000-row batches, as bench/learn.mjs), so each learn is
//    judged against a parse rate measured on the machine as it was then. Target ≥ 1.5×.
// 4. Peak RSS of every process (client, gateway, projects, jobs, nats-server, s3rver), sampled
//    from /proc/<pid>/status VmRSS every 50 ms during each learn, and VmHWM at the end.
// Prints markdown and appends it, dated, to bench/RESULTS.md.
import { closeSync, createReadStream, mkdirSync, openSync, readFileSync, readdirSync, statSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { appendResults, machine } from './lib/results.mjs';

const require = createRequire(import.meta.url);
const { startSystem, startS3 } = require('../packages/testkit/dist/index.js');
const { SmlClient } = require('../packages/sdk/dist/index.js');
const { nameToken } = require('../packages/core/dist/index.js');
const { S3Client, PutObjectCommand } = require('@aws-sdk/client-s3');

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const BATCH = 10_000;
const COLS = 20;
const TARGET = 1.5;
const resultsFile = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const gc = () => globalThis.gc?.();
const names = Array.from({ length: COLS }, (_, j) => `x${j}`);

// Deterministic pseudo-random cells (bench/learn.mjs's): the CSV and the JSON bodies hold the same rows.
let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
/** The rows of batch after batch, each a string[][] of BATCH (or fewer) rows, always the same. */
function* batches() {
  seed = 42;
  for (let done = 0; done < ROWS; done += BATCH) {
    const n = Math.min(BATCH, ROWS - done);
    yield Array.from({ length: n }, () => names.map(() => (rand() * 200 - 100).toFixed(6)));
  }
}

// ---- /proc: which process is which, RSS and CPU --------------------------------------------
function processes() {
  const out = [];
  for (const pid of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const name = Number(pid) === process.pid ? 'client'
        : cmd.includes('nats-server') ? 'nats-server'
          : cmd.includes('s3rver') ? 's3rver'
            : (cmd.match(/services\/(\w+)\/dist\/main/) ?? [])[1];
      if (name) out.push({ pid, name });
    } catch {
      // ended meanwhile
    }
  }
  return out;
}
const statusKiB = (pid, field) => {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : 0;
};
/** CPU ms (user + system) of each named process so far. */
function cpuMs(procs) {
  const out = {};
  for (const { pid, name } of procs) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      out[name] = (out[name] ?? 0) + (Number(stat[11]) + Number(stat[12])) * 10;
    } catch {
      // ended
    }
  }
  return out;
}
/** Samples VmRSS of every process every 50 ms until stop(); returns the peak (MiB) of each. */
function rssSampler(procs) {
  const peak = {};
  const sample = () => {
    const now = {};
    for (const { pid, name } of procs) {
      try {
        now[name] = (now[name] ?? 0) + statusKiB(pid, 'VmRSS');
      } catch {
        // ended
      }
    }
    for (const [n, kib] of Object.entries(now)) peak[n] = Math.max(peak[n] ?? 0, kib / 1024);
  };
  sample();
  const timer = setInterval(sample, 50);
  return () => {
    clearInterval(timer);
    sample();
    return peak;
  };
}

// ---- parse-only baseline ------------------------------------------------------------------
/** Seconds this process needs to JSON.parse every batch's DataFrame body once (building the bodies is not timed). */
function parseSeconds() {
  let ns = 0n;
  for (const data of batches()) {
    const body = JSON.stringify({ attributeNames: names, attributeTypes: names.map(() => 'C'), data, errorHandling: 0 });
    gc(); // building the body leaves garbage that JSON.parse should not pay for (as in bench/learn.mjs, where the bodies are built once, up front)
    const t0 = process.hrtime.bigint();
    JSON.parse(body);
    ns += process.hrtime.bigint() - t0;
  }
  return Number(ns) / 1e9;
}

const m = machine();
const profDir = process.env.BENCH_CPU_PROF; // a directory: CPU profiles of the service processes
const sys = await startSystem({
  services: ['users', 'jobs', 'projects'], env: { SML_LOG_LEVEL: 'warn' },
  ...(profDir ? { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', profDir] } : {}),
});
const s3 = await startS3({ buckets: ['bench'] });
const results = { localfile: [], s3: [] }; // per run: { seconds, serverSeconds, parseRate, cpu }
const peaks = { localfile: {}, s3: {} };
const hwm = {};
let fileBytes = 0;
let writeSeconds = 0;
let uploadSeconds = 0;
try {
  const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
  const secret = (await root.addUser('bench')).body.values.secretKey;
  const sdk = new SmlClient({ url: sys.url, user: 'bench', secret });

  // 1. The CSV, in the customer's files root, and the same bytes in the bucket.
  const dir = join(sys.dataDir, 'files', nameToken('bench'));
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'bench.csv');
  let t0 = performance.now();
  const fd = openSync(file, 'w');
  writeSync(fd, `${names.join(',')}\n`);
  for (const data of batches()) writeSync(fd, `${data.map((r) => r.join(',')).join('\n')}\n`);
  closeSync(fd);
  writeSeconds = (performance.now() - t0) / 1000;
  fileBytes = statSync(file).size;
  const s3c = new S3Client({
    region: s3.region, endpoint: s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: s3.accessKey, secretAccessKey: s3.secretKey },
    requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED',
  });
  t0 = performance.now();
  await s3c.send(new PutObjectCommand({ Bucket: 'bench', Key: 'data/bench.csv', Body: createReadStream(file), ContentLength: fileBytes }));
  uploadSeconds = (performance.now() - t0) / 1000;
  s3c.destroy();

  const extra = names.map(() => 'C');
  const created = [
    await sdk.createDataSource({ type: 'localfile', name: 'local', info: { path: 'bench.csv' }, extra }),
    await sdk.createDataSource({
      type: 's3', name: 'remote', extra,
      info: { path: 'data/bench.csv', s3bucket: 'bench', s3accessKey: s3.accessKey, s3secretKey: s3.secretKey, s3endpoint: s3.endpoint, s3region: s3.region },
    }),
  ];
  for (const c of created) if (c.status !== 201 && c.status !== 200) throw new Error(`dss/create answered ${c.status} ${c.body.statusString}`);

  const learn = async (pid, ds) => {
    const res = await sdk.createProject(pid);
    if (res.status !== 201 && res.status !== 200) throw new Error(`create ${pid} answered ${res.status} ${res.body.statusString}`);
    const job = await sdk.learnDataSource(pid, ds, {});
    if (job.status !== 202) throw new Error(`learn ${ds} answered ${job.status} ${job.body.statusString}`);
    const done = await sdk.waitForJob(job, { timeoutMs: 60 * 60_000, intervalMs: 50 });
    if (done.status !== 200) throw new Error(`learn ${ds} job ended ${done.status} ${done.body.statusString}`);
    const learned = done.body.values?.learnReport?.rowsLearned;
    if (learned !== undefined && Number(learned) !== ROWS) throw new Error(`learn ${ds}: ${learned} rows learned, not ${ROWS}`);
    return done;
  };
  // One unmeasured learn of each source warms the services' JIT, as a running service is.
  await learn('warm_local', 'local');
  await learn('warm_s3', 'remote');

  // 2 + 3. Learns, each right after a parse-only measurement.
  const procs = processes();
  for (let r = 0; r < RUNS; r++) {
    for (const [kind, ds] of [['localfile', 'local'], ['s3', 'remote']]) {
      gc();
      const parseRate = ROWS / parseSeconds();
      gc();
      const pid = `${kind}_${r}`;
      const stop = rssSampler(procs);
      const c0 = cpuMs(procs);
      const t1 = performance.now();
      await learn(pid, ds);
      const seconds = (performance.now() - t1) / 1000;
      const c1 = cpuMs(procs);
      for (const [n, mib] of Object.entries(stop())) peaks[kind][n] = Math.max(peaks[kind][n] ?? 0, mib);
      const log = await sdk.request('GET', `/projects/${pid}/getDsLog`);
      const entry = log.body.values?.dsLog?.at(-1);
      const serverSeconds = entry?.finished && entry?.started ? (Number(entry.finished) - Number(entry.started)) / 1000 : NaN;
      const cpu = Object.fromEntries(Object.entries(c1).map(([n, ms]) => [n, (ms - (c0[n] ?? 0)) / 1000]));
      results[kind].push({ seconds, serverSeconds, parseRate, cpu });
      console.error(`${kind} run ${r}: ${seconds.toFixed(2)} s (${Math.round(ROWS / seconds)} rows/s), server ${serverSeconds.toFixed(2)} s, parse-only ${Math.round(parseRate)} rows/s, ratio ${(ROWS / seconds / parseRate).toFixed(2)}`);
    }
  }
  for (const { pid, name } of procs) {
    try {
      hwm[name] = (hwm[name] ?? 0) + statusKiB(pid, 'VmHWM') / 1024;
    } catch {
      // ended
    }
  }
} finally {
  await sys.stop();
  await s3.stop();
}

// ---- report --------------------------------------------------------------------------------
const procNames = ['client', 'gateway', 'projects', 'jobs', 'nats-server', 's3rver'];
const summary = (kind) => {
  const rs = results[kind];
  const rates = rs.map((x) => ROWS / x.seconds);
  const ratios = rs.map((x) => ROWS / x.seconds / x.parseRate);
  return { rate: median(rates), server: ROWS / median(rs.map((x) => x.serverSeconds)), parse: median(rs.map((x) => x.parseRate)), ratio: median(ratios), ratios };
};
const sums = { localfile: summary('localfile'), s3: summary('s3') };
const cpuOf = (kind) => Object.fromEntries(procNames.map((n) => [n, median(results[kind].map((x) => x.cpu[n] ?? 0))]));
const verdict = (x) => (x >= TARGET ? 'met' : 'not met');

const section = [
  `## datasources — ${m.date}`,
  '',
  `Machine: ${m.cores} cores, ${m.cpu}, Node ${m.node}, load average ${m.load} before the run (the machine was shared with other work: other builds and test runs were going on). ${ROWS} rows × ${COLS} numeric columns, ${(fileBytes / 2 ** 20).toFixed(1)} MiB of CSV (written in ${writeSeconds.toFixed(1)} s, uploaded to s3rver in ${uploadSeconds.toFixed(1)} s), median of ${RUNS} runs after one unmeasured learn of each source. Client, gateway, services, nats-server and s3rver share the machine.`,
  '',
  '| What | rows/s | ratio to JSON.parse (target ≥ 1.5) |',
  '|---|---:|---:|',
  `| JSON.parse only of the same rows as 10 000-row DataFrame bodies (this process), median over the measurements before each learn | ${Math.round(median([...results.localfile, ...results.s3].map((x) => x.parseRate)))} | 1 |`,
  ...['localfile', 's3'].map((k) => `| ${k} data-source learn, end to end (POST learn → job 200, polled every 50 ms) | ${Math.round(sums[k].rate)} | **${sums[k].ratio.toFixed(2)}** (runs: ${sums[k].ratios.map((x) => x.toFixed(2)).join(', ')}): ${verdict(sums[k].ratio)} |`),
  ...['localfile', 's3'].map((k) => `| ${k}, the job's own time (dsLog started → finished: read, parse, staging summary, merge, snapshot) | ${Math.round(sums[k].server)} | ${(sums[k].server / sums[k].parse).toFixed(2)} |`),
  '',
  'Ratios are run by run: the learn\'s rate over the parse-only rate measured just before it.',
  '',
  'CPU seconds per learn of the whole file (user + system, median of runs):',
  '',
  `| source | ${procNames.join(' | ')} |`,
  `|---|${procNames.map(() => '---:').join('|')}|`,
  ...['localfile', 's3'].map((k) => `| ${k} | ${procNames.map((n) => cpuOf(k)[n].toFixed(2)).join(' | ')} |`),
  '',
  `Peak RSS (MiB) of each process, VmRSS sampled every 50 ms during the learns of each source (the client process also builds the parse-only bodies between learns, not during them), and VmHWM at the end (the whole run, including the CSV writing, the upload, and the client's parse-only measurements):`,
  '',
  `| | ${procNames.join(' | ')} |`,
  `|---|${procNames.map(() => '---:').join('|')}|`,
  ...['localfile', 's3'].map((k) => `| during ${k} learns | ${procNames.map((n) => (peaks[k][n] ?? 0).toFixed(0)).join(' | ')} |`),
  `| VmHWM, whole run | ${procNames.map((n) => (hwm[n] ?? 0).toFixed(0)).join(' | ')} |`,
].join('\n');
console.log(section);
if (process.env.BENCH_DRY !== '1') appendResults(resultsFile, section); // BENCH_DRY=1: print only

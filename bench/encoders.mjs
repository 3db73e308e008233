// Encoder learn throughput at the size: 10 S keys with 10⁵ distinct values each
// (10⁶ distinct (key, value) pairs) and a B target, BENCH_ROWS rows (default 10⁶).
// 1. In process (@sml/stats Encoder, no service): learn rows/s in 10 000-row frames, state
//    size, serialize / deserialize time, heap per value of a deserialized encoder (what the
//    encoders service holds), stats and encode rates.
// 2. Through the system (gateway → encoders service → KV sml_encoders + object store
//    sml_encoder_stats, real nats-server): the same rows as 10 000-row REST learn batches
//    (each batch is durable before its 200: its own statistics are written as a delta, and
//    the whole statistics again once the deltas would hold half the values);
//    the same rows as a localfile CSV learned with learnds (one write at the end); stats and a
//    keyvals page at full size; the encoders service killed and restarted, then the first stats
//    (object read + deserialize). Peak RSS (VmHWM) of the encoders process.
// Run after a build: node --expose-gc bench/encoders.mjs
// Prints markdown and appends it, dated, to bench/RESULTS.md (BENCH_DRY=1: print only).
import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { appendResults, machine } from './lib/results.mjs';

const require = createRequire(import.meta.url);
const { Encoder } = require('../packages/stats/dist/index.js');
const { startSystem } = require('../packages/testkit/dist/index.js');
const { SmlClient } = require('../packages/sdk/dist/index.js');
const { encryptDsInfo, nameToken } = require('../packages/core/dist/index.js');

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const KEYS = 10;
const VALUES = 100_000;
const BATCH = 10_000;
const resultsFile = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const gc = () => globalThis.gc?.();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
let seed = 7;
// xorshift32: exact in 32-bit integers.
const rand = () => {
  seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5;
  return (seed >>> 0) / 4294967296;
};
const names = [...Array.from({ length: KEYS }, (_, k) => `k${k}`), 'clicked'];
const types = [...Array(KEYS).fill('S'), 'B'];
let frames = [];
for (let start = 0; start < ROWS; start += BATCH) {
  const data = Array.from({ length: Math.min(BATCH, ROWS - start) }, () => [
    ...Array.from({ length: KEYS }, () => `v${Math.floor(rand() * VALUES)}`), rand() < 0.3 ? '1' : '0',
  ]);
  frames.push({ attributeNames: names, attributeTypes: types, data });
}
const m = machine();

// ---- 1. in process --------------------------------------------------------------------------
const inProcess = {};
{
  let encoder = new Encoder({ target: 'clicked', targetType: 'B', minTrimSize: 1 });
  let t = performance.now();
  for (const f of frames) encoder.learn(f);
  inProcess.learnRate = ROWS / ((performance.now() - t) / 1000);
  inProcess.values = encoder.valueCount;
  t = performance.now();
  const bytes = encoder.serialize();
  inProcess.serializeMs = performance.now() - t;
  inProcess.bytes = bytes.length;
  t = performance.now();
  encoder.stats();
  inProcess.statsMs = performance.now() - t;
  t = performance.now();
  let sum = 0;
  for (let i = 0; i < 1_000_000; i++) sum += encoder.encode(`k${i % KEYS}`, `v${i % VALUES}`);
  inProcess.encodeRate = 1e6 / ((performance.now() - t) / 1000);
  inProcess.checksum = sum;
  encoder = undefined;
  gc();
  // Slots are Float64Arrays, whose bytes are ArrayBuffers outside the V8 heap: count both.
  const used = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  const heap0 = used();
  t = performance.now();
  encoder = Encoder.deserialize(bytes);
  inProcess.deserializeMs = performance.now() - t;
  gc();
  inProcess.bytesPerValue = (used() - heap0) / encoder.valueCount;
}

// ---- 2. through the system ------------------------------------------------------------------
const vmHwmMiB = (pid) => Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
const sys = await startSystem({ services: ['users', 'jobs', 'encoders'], env: { SML_LOG_LEVEL: 'warn', SML_REQUEST_TIMEOUT_MS: '120000' } });
const service = {};
try {
  const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
  const secret = (await root.addUser('bench')).body.values.secretKey;
  const sdk = new SmlClient({ url: sys.url, user: 'bench', secret });
  const ok = (r, what) => {
    if (r.status >= 300) throw new Error(`${what} answered ${r.status} ${r.body.statusString}`);
    return r;
  };
  for (const e of ['rest', 'ds']) ok(await sdk.request('POST', '/encoders/create', { query: `encodername=${e}&targetName=clicked` }), `create ${e}`);

  // REST learn, batch by batch.
  const batchMs = [];
  let t = performance.now();
  for (const f of frames) {
    const t0 = performance.now();
    ok(await sdk.request('POST', '/encoders/rest/learn', { json: f }), 'learn');
    batchMs.push(performance.now() - t0);
  }
  service.restRate = ROWS / ((performance.now() - t) / 1000);
  service.firstBatchesMs = median(batchMs.slice(0, 10));
  service.lastBatchesMs = median(batchMs.slice(-10));
  service.slowestLastMs = Math.max(...batchMs.slice(-20));

  // learnds from a localfile CSV of the same rows.
  const dir = join(sys.dataDir, 'files', nameToken('bench'));
  mkdirSync(dir, { recursive: true });
  const fd = openSync(join(dir, 'rows.csv'), 'w');
  writeSync(fd, `${names.join(',')}\n`);
  for (const f of frames) writeSync(fd, `${f.data.map((r) => r.join(',')).join('\n')}\n`);
  closeSync(fd);
  frames = undefined;
  gc();
  t = performance.now();
  const job = ok(await sdk.request('POST', '/encoders/ds/learnds', { raw: encryptDsInfo({ type: 'localfile', name: 'rows', info: { path: 'rows.csv' }, extra: types }, secret) }), 'learnds');
  for (;;) {
    const j = await sdk.request('GET', `/jobs/${job.headers['sym-job-id']}`);
    if (j.status === 200) break;
    if (j.status !== 202) throw new Error(`learnds job answered ${j.status} ${j.body.statusString}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  service.dsRate = ROWS / ((performance.now() - t) / 1000);

  const timed = async (fn) => {
    const t0 = performance.now();
    const r = await fn();
    return { ms: performance.now() - t0, r };
  };
  const stats = await timed(() => sdk.request('GET', '/encoders/rest/stats'));
  service.statsMs = stats.ms;
  service.statsRows = ok(stats.r, 'stats').body.values.dataframe.data;
  const dsStats = ok(await sdk.request('GET', '/encoders/ds/stats'), 'stats').body.values.dataframe.data;
  service.same = JSON.stringify(dsStats) === JSON.stringify(service.statsRows);
  const page = await timed(() => sdk.request('GET', '/encoders/rest/keyvals/k0'));
  service.pageMs = page.ms;
  service.pageRows = ok(page.r, 'keyvals').body.values.dataframe.data.length;
  service.valueCount = page.r.body.values.valueCount;
  service.hwm = vmHwmMiB(sys.pids().encoders);

  await sys.kill('encoders');
  await sys.start('encoders');
  const again = await timed(() => sdk.request('GET', '/encoders/rest/stats'));
  service.restartStatsMs = again.ms;
  service.sameAfterRestart = JSON.stringify(ok(again.r, 'stats').body.values.dataframe.data) === JSON.stringify(service.statsRows);
} finally {
  await sys.stop();
}

const section = [
  `## encoders — ${m.date}`,
  '',
  `Command: \`npm run build && node --expose-gc bench/encoders.mjs\`. Machine: ${m.cores} cores, ${m.cpu}, Node ${m.node}, load average ${m.load} before the run (the machine is shared with other engineers' builds and test runs: figures vary by 2× between runs). ${ROWS} rows × ${KEYS} S keys of ${VALUES} values each (uniform) + a B target: ${inProcess.values} distinct (key, value) pairs. Client, gateway, jobs, encoders and nats-server share the machine.`,
  '',
  '| What | figure |',
  '|---|---:|',
  `| in process: learn, 10 000-row frames | ${Math.round(inProcess.learnRate)} rows/s |`,
  `| in process: statistics serialized (format 2) | ${(inProcess.bytes / 2 ** 20).toFixed(1)} MiB, ${inProcess.serializeMs.toFixed(0)} ms; deserialized in ${inProcess.deserializeMs.toFixed(0)} ms |`,
  `| in process: memory of a deserialized encoder (V8 heap + ArrayBuffers, value strings included) | ${inProcess.bytesPerValue.toFixed(0)} bytes per value |`,
  `| in process: stats; encode | ${inProcess.statsMs.toFixed(0)} ms; ${Math.round(inProcess.encodeRate)} values/s |`,
  `| service: REST learn, 10 000-row batches, each durable before its 200 (deltas, whole statistics every few batches) | ${Math.round(service.restRate)} rows/s |`,
  `| service: one batch, median of the first 10 / of the last 10 (state ≈ 10⁶ values; a delta of ≈ 10⁵ values per batch) / slowest of the last 20 (a whole rewrite) | ${service.firstBatchesMs.toFixed(0)} ms / ${service.lastBatchesMs.toFixed(0)} ms / ${service.slowestLastMs.toFixed(0)} ms |`,
  `| service: learnds of the same rows from a localfile CSV (POST → job 200) | ${Math.round(service.dsRate)} rows/s |`,
  `| service: GET stats at full size; after a kill + restart of the encoders service (object read + deserialize) | ${service.statsMs.toFixed(0)} ms; ${service.restartStatsMs.toFixed(0)} ms |`,
  `| service: GET keyvals/k0 (first page: ${service.pageRows} of ${service.valueCount} values) | ${service.pageMs.toFixed(0)} ms |`,
  `| service: encoders process peak RSS (VmHWM) before the restart | ${service.hwm.toFixed(0)} MiB |`,
  '',
  `Stats of the REST-learned and the learnds-learned encoder equal: ${service.same}; equal after the restart: ${service.sameAfterRestart}.`,
].join('\n');
console.log(section);
if (process.env.BENCH_DRY !== '1') appendResults(resultsFile, section);

// Projects replicas (issue 16). Run after a build:
//   node bench/scale.mjs   (BENCH_REPLICAS default "1,2,3"; BENCH_RUNS default 3;
//                           BENCH_BATCHES default 600 per run; BENCH_DRY=1 prints only)
// For 1, 2 and 3 projects processes sharing BENCH_SHARDS (default 16) shards of the projects
// (README "Replicas"; 1 process: 1 shard, as `npm run up` runs it):
// 1. Learn throughput: BENCH_BATCHES signed REST learns of 1 000 rows × 20 C columns into 8
//    projects, 4 requests in flight (each on its own projects), durable before the 200;
//    median of BENCH_RUNS. CPU per batch of every process (/proc), standbys included.
// 2. Coordination: lease writes/s over the whole measurement (a KV watch on sml_project_leases
//    counts them: renewals, takes, releases) and the lease
//    reads (each replica reads every shard's lease once per round, by construction).
// 3. Failover (2 and 3 replicas): the replica serving project p1 SIGKILLed; time from the kill
//    to p1's next acknowledged batch, with SML_PROJECT_LEASE_MS as set (default 10 000) — the
//    lease must expire first.
// Prints markdown and appends it, dated, to bench/RESULTS.md.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { ours } from './lib/cpu.mjs';
import { appendResults, machine } from './lib/results.mjs';
import { withServiceMalloc } from './lib/malloc.mjs';

withServiceMalloc();
const require = createRequire(import.meta.url);
const { startSystem } = require('../packages/testkit/dist/index.js');
const { SmlClient } = require('../packages/sdk/dist/index.js');
const { connect } = require('nats');
const { sml } = require('@sml/proto');
const { shardOf } = require('@sml/bus');

const REPLICAS = (process.env.BENCH_REPLICAS ?? '1,2,3').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 600);
const LEASE_MS = Number(process.env.SML_PROJECT_LEASE_MS ?? 10_000);
const SHARDS = Number(process.env.BENCH_SHARDS ?? 16);
const ROWS = 1_000;
const COLS = 20;
const PROJECTS = 8;
const IN_FLIGHT = 4;
const resultsFile = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let seed = 7;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const names = Array.from({ length: COLS }, (_, j) => `x${j}`);
const body = () => Buffer.from(JSON.stringify({ attributeNames: names, attributeTypes: names.map(() => 'C'), data: Array.from({ length: ROWS }, () => names.map(() => (rand() * 200 - 100).toFixed(4))) }));
const payloads = Array.from({ length: 16 }, body);

/** CPU ms (user + system) of a process, from /proc (10 ms ticks). */
const cpuOf = (pid) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(stat[11]) + Number(stat[12])) * 10;
  } catch {
    return NaN;
  }
};
/** Our nats-server's pid (the testkit's child). */
const natsPid = () => Number(readdirSync('/proc').find((pid) => {
  try {
    return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('nats-server') && ours(pid);
  } catch {
    return false;
  }
}) ?? NaN);

const m = machine();
const rows = [];
for (const replicas of REPLICAS) {
  const projectsProcs = Array.from({ length: replicas }, (_, i) => (i === 0 ? 'projects' : `projects#${i + 1}`));
  const shards = replicas > 1 ? SHARDS : 1;
  const sys = await startSystem({ services: ['users', 'jobs', ...projectsProcs], env: { SML_LOG_LEVEL: 'warn', SML_PROJECT_LEASE_MS: String(LEASE_MS), SML_PROJECT_SHARDS: String(shards) } });
  const nc = await connect({ servers: sys.nats.url, ...sys.nats.connectOptions('projects') });
  const holdings = [];
  const watchedFrom = performance.now();
  const watch = await (await nc.jetstream().views.kv('sml_project_leases')).watch();
  void (async () => {
    for await (const e of watch) holdings.push(e.operation === 'PUT' ? { at: Date.now(), key: e.key, ...(({ owner, until }) => ({ owner, until: Number(until) }))(sml.v1.StreamLease.decode(e.value)) } : { at: Date.now(), key: e.key, owner: '', until: 0 });
  })();
  try {
    const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
    const secret = (await root.addUser('bench')).body.values.secretKey;
    const sdk = new SmlClient({ url: sys.url, user: 'bench', secret });
    const learn = (pid, raw) => sdk.request('POST', `/projects/${pid}/learn`, { raw, headers: { 'content-type': 'application/json' } });
    // The shares settle within a few rounds of the last replica's start; a shard handed over meanwhile answers 503.
    for (let p = 0; p < PROJECTS; p++) {
      for (let r = await sdk.createProject(`p${p}`); r.status !== 201; r = await sdk.createProject(`p${p}`)) {
        if (r.status !== 503) throw new Error(`create p${p}: ${r.status}`);
        await sleep(100);
      }
    }
    // Measured once every process serves its share (at least ⌊shards/processes⌋).
    const shares = () => {
      const last = {};
      for (const h of holdings) last[h.key] = h;
      const per = {};
      for (const h of Object.values(last)) if (h.until > Date.now()) per[h.owner] = (per[h.owner] ?? 0) + 1;
      return per;
    };
    for (const deadline = Date.now() + 10 * LEASE_MS; ; await sleep(200)) {
      const per = shares();
      if (Object.keys(per).length === replicas && Object.values(per).every((n) => n >= Math.floor(shards / replicas))) break;
      if (Date.now() > deadline) throw new Error(`shares not settled: ${JSON.stringify(per)}`);
    }
    for (const raw of payloads) await learn('p0', raw); // warm-up
    const rates = [];
    const cpu = {};
    for (let r = 0; r < RUNS; r++) {
      const pids = sys.pids();
      pids['nats-server'] = natsPid();
      const c0 = Object.fromEntries(Object.entries(pids).map(([n, pid]) => [n, cpuOf(pid)]));
      let next = 0;
      const t0 = performance.now();
      await Promise.all(Array.from({ length: IN_FLIGHT }, async (_, c) => {
        for (let k = next++; k < BATCHES; k = next++) {
          const res = await learn(`p${(c + IN_FLIGHT * (k % 2)) % PROJECTS}`, payloads[k % payloads.length]);
          if (res.status !== 200) throw new Error(`learn answered ${res.status} ${res.body.statusString}`);
        }
      }));
      const seconds = (performance.now() - t0) / 1000;
      rates.push((BATCHES * ROWS) / seconds);
      for (const [n, pid] of Object.entries(pids)) (cpu[n] ??= []).push((cpuOf(pid) - c0[n]) / BATCHES);
    }
    const row = {
      replicas, rate: median(rates), rates, leaseWritesPerS: holdings.length / ((performance.now() - watchedFrom) / 1000),
      shards, leaseReadsPerS: (replicas * shards * 3000) / LEASE_MS,
      servingShards: shares(),
      cpu: Object.fromEntries(Object.entries(cpu).map(([n, xs]) => [n, median(xs)])),
    };
    // 3. Failover: kill whoever serves, then learn until a batch is acknowledged again (a
    // request nobody serves answers 503 at once: no responders).
    if (replicas > 1) {
      const serving = holdings.filter((h) => h.key === `shard.${shardOf('bench', 'p1', shards)}` && h.owner).at(-1)?.owner;
      const killedAt = performance.now();
      await sys.kill(serving, 'SIGKILL');
      let backAt = NaN;
      for (let k = 0, deadline = Date.now() + 3 * LEASE_MS + 10_000; Date.now() < deadline; k++) {
        const res = await learn('p1', payloads[k % payloads.length]).catch(() => undefined);
        if (res?.status === 200) {
          backAt = performance.now();
          break;
        }
        await sleep(20);
      }
      row.failoverMs = backAt - killedAt;
      row.killed = serving;
    }
    rows.push(row);
    console.error(`${replicas} replica(s): ${Math.round(row.rate)} rows/s${row.failoverMs ? `, failover ${Math.round(row.failoverMs)} ms` : ''}`);
    sdk.close();
    root.close();
  } finally {
    watch.stop();
    await nc.close();
    await sys.stop();
  }
}

const procs = [...new Set(rows.flatMap((r) => Object.keys(r.cpu)))];
const label = (p) => (p === 'users' ? 'gateway' : p);
const base = rows.find((r) => r.replicas === 1)?.rate;
const section = [
  `## scale — ${m.date}`,
  '',
  `Machine: ${m.cores} cores, ${m.cpu}, Node ${m.node}, load average ${m.load} before the run. Projects replicas share the shards of the projects, each served under its lease (SML_PROJECT_LEASE_MS = ${LEASE_MS}; README "Replicas"). ${BATCHES} signed REST learns of ${ROWS} rows × ${COLS} C columns into ${PROJECTS} projects, ${IN_FLIGHT} in flight, durable before the 200; median of ${RUNS} runs. Client, gateway, jobs, every projects process and nats-server share the machine.`,
  '',
  '| projects processes | shards | shards served per process | rows/s | vs 1 | runs | lease writes/s (measured over the run) | lease reads/s | failover of p1: kill → next 200 |',
  '|---:|---:|---|---:|---:|---|---:|---:|---:|',
  ...rows.map((r) => `| ${r.replicas} | ${r.shards} | ${Object.entries(r.servingShards).map(([o, n]) => `${o}: ${n}`).join(', ')} | ${Math.round(r.rate)} | ${base ? (r.rate / base).toFixed(2) : 'n/a'} | ${r.rates.map((x) => Math.round(x)).join(', ')} | ${r.leaseWritesPerS.toFixed(2)} | ${r.leaseReadsPerS.toFixed(2)} | ${r.failoverMs === undefined ? '—' : `${Math.round(r.failoverMs)} ms (${r.killed})`} |`),
  '',
  `CPU ms per ${ROWS}-row batch (user + system, median of runs; /proc ticks are 10 ms):`,
  '',
  `| projects processes | ${procs.map(label).join(' | ')} |`,
  `|---:|${procs.map(() => '---:').join('|')}|`,
  ...rows.map((r) => `| ${r.replicas} | ${procs.map((p) => (r.cpu[p] === undefined ? '—' : r.cpu[p].toFixed(2))).join(' | ')} |`),
  '',
];
const markdown = section.join('\n');
console.log(markdown);
if (!process.env.BENCH_DRY) appendResults(resultsFile, markdown);

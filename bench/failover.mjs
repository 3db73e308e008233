// Availability under faults (issue 29, items 13 and 14). Run after a build:
//   node bench/failover.mjs   (BENCH_ONLY=replica|nats; BENCH_SECONDS default 5 of load before
//                              and after each kill; BENCH_DRY=1 prints only)
// Each scenario: 8 projects learning continuously through the gateway, one signed REST learn
// of 100 rows × 5 C columns in flight per project, each batch retried with its own
// Idempotency-Key until it answers 200 (a careful client). Then:
// 1. replica: two projects processes, one shard, SML_PROJECT_LEASE_MS as set (default 10 000);
//    the one holding the shard SIGKILLed.
// 2. nats: a 3-server NATS cluster (SML_JETSTREAM_REPLICAS=3), one projects process; the
//    leader of SML_PROJECT_LOG SIGKILLed (started again at the end).
// Measured: batches/s before the kill; "restored" = the time from the kill until the batches
// acknowledged per second are back to half of that (over a 500 ms window); the worst latency
// of one request (an attempt, not a batch's retries) sent before and after the kill; answers
// other than 200 by status and message; and every acknowledged batch kept exactly once (each
// project's row count and sum read over the bus afterwards).
// Prints markdown and appends it, dated, to bench/RESULTS.md.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { appendResults, machine } from './lib/results.mjs';
import { withServiceMalloc } from './lib/malloc.mjs';

withServiceMalloc();
const require = createRequire(import.meta.url);
const { startSystem, startNatsCluster } = require('../packages/testkit/dist/index.js');
const { SmlClient } = require('../packages/sdk/dist/index.js');
const { BusClient, subjects, unwrap } = require('../packages/bus/dist/index.js');
const { Summary } = require('../packages/stats/dist/index.js');
const { connect } = require('nats');
const { sml } = require('@sml/proto');

const ONLY = process.env.BENCH_ONLY;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const LEASE_MS = Number(process.env.SML_PROJECT_LEASE_MS ?? 10_000);
const PROJECTS = 8;
const ROWS = 100;
const COLS = 5;
const WINDOW_MS = 500;
const resultsFile = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const names = Array.from({ length: COLS }, (_, j) => `x${j}`);
/** Batch k: every cell k + 1, so a project's sum tells which batches it holds. */
const batch = (k) => Buffer.from(JSON.stringify({ attributeNames: names, attributeTypes: names.map(() => 'C'), data: Array.from({ length: ROWS }, () => names.map(() => String(k + 1))) }));

async function customer(sys) {
  const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
  const secret = (await root.addUser('bench')).body.values.secretKey;
  const sdk = new SmlClient({ url: sys.url, user: 'bench', secret });
  for (let p = 0; p < PROJECTS; p++) {
    for (const deadline = Date.now() + 60_000; ; await sleep(200)) {
      const r = await sdk.createProject(`p${p}`);
      if (r.status === 201) break;
      if (r.status !== 503 || Date.now() > deadline) throw new Error(`create p${p}: ${r.status} ${r.body.statusString}`);
    }
  }
  return sdk;
}

/** Learns until stopped; returns what happened: acknowledgements (time, project, batch) and every attempt's latency. */
function load(sdk) {
  const acks = [];
  const attempts = [];
  const answers = {};
  const acked = Array.from({ length: PROJECTS }, () => 0);
  let running = true;
  const loops = Array.from({ length: PROJECTS }, async (_, p) => {
    for (let k = 0; running; k++) {
      const key = randomUUID();
      const raw = batch(k);
      for (;;) {
        const t0 = Date.now();
        const r = await sdk.request('POST', `/projects/p${p}/learn`, { raw, headers: { 'content-type': 'application/json', 'Idempotency-Key': key } }).catch((err) => ({ status: 0, body: { statusString: err.message } }));
        attempts.push({ sent: t0, ms: Date.now() - t0 });
        if (r.status === 200) {
          acks.push(Date.now());
          acked[p]++;
          break;
        }
        const what = `${r.status} ${String(r.body.statusString).slice(0, 70)}`;
        answers[what] = (answers[what] ?? 0) + 1;
        if (r.status !== 503 && r.status !== 0) throw new Error(`p${p} batch ${k}: ${what}`);
        await sleep(50);
      }
    }
  });
  return {
    acks, attempts, answers, acked,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** Figures of one scenario around `kill` (which kills and returns a label). */
async function scenario(name, sys, nats, kill) {
  const sdk = await customer(sys);
  const l = load(sdk);
  await sleep(SECONDS * 1000);
  const before = l.acks.filter((t) => t > Date.now() - SECONDS * 1000).length / SECONDS;
  const killedAt = Date.now();
  const victim = await kill();
  // Restored: acknowledgements per WINDOW_MS back to half the rate before the kill.
  const need = (before * WINDOW_MS) / 1000 / 2;
  let restoredAt;
  for (const deadline = killedAt + 120_000; restoredAt === undefined && Date.now() < deadline; await sleep(50)) {
    const recent = l.acks.filter((t) => t > Date.now() - WINDOW_MS && t > killedAt).length;
    if (recent >= need) restoredAt = Date.now() - WINDOW_MS / 2;
  }
  await sleep(SECONDS * 1000);
  await l.stop();
  const worst = (xs) => xs.reduce((a, x) => Math.max(a, x.ms), 0);
  // Every acknowledged batch once: p holds batches 0 … n-1, ROWS·n rows, x0 summing to ROWS·n(n+1)/2.
  const nc = await connect({ servers: nats.url.split(','), ...nats.connectOptions('explore') });
  const client = new BusClient(nc, { timeoutMs: 30_000, resetMs: 1000 });
  let kept = 0;
  let wrong = 0;
  for (let p = 0; p < PROJECTS; p++) {
    const reply = unwrap(await client.request('projects', subjects.projects('summary', 0), sml.v1.SummaryRequest,
      { caller: { user: 'bench', root: false, requestId: 'bench' }, pid: `p${p}`, full: true }, sml.v1.SummaryReply));
    const s = Summary.deserialize(reply.summary);
    const n = l.acked[p];
    if (s.rowCount === ROWS * n && s.moments('x0').sum === (ROWS * n * (n + 1)) / 2) kept += n;
    else wrong++;
  }
  client.close();
  await nc.close();
  sdk.close();
  return {
    name, victim, before: before.toFixed(1),
    restored: restoredAt === undefined ? 'not within 120 s' : `${((restoredAt - killedAt) / 1000).toFixed(1)} s`,
    worstBefore: worst(l.attempts.filter((a) => a.sent < killedAt)), worstAfter: worst(l.attempts.filter((a) => a.sent >= killedAt)),
    acked: l.acked.reduce((a, b) => a + b, 0), kept, wrong, answers: l.answers,
  };
}

const m = machine();
const uptime = execFileSync('uptime', { encoding: 'utf8' }).trim();
const results = [];

if (!ONLY || ONLY === 'replica') {
  const sys = await startSystem({
    services: ['users', 'jobs', 'projects', 'projects#2'],
    env: { SML_LOG_LEVEL: 'warn', SML_PROJECT_LEASE_MS: String(LEASE_MS), SML_PROJECT_SHARDS: '1' },
  });
  try {
    const nc = await connect({ servers: sys.nats.url, ...sys.nats.connectOptions('projects') });
    const kv = await nc.jetstream().views.kv('sml_project_leases');
    results.push(await scenario('projects replica SIGKILLed (2 replicas, 1 shard)', sys, sys.nats, async () => {
      const e = await kv.get('shard.0');
      const holder = sml.v1.StreamLease.decode(e.value).owner;
      await sys.kill(holder, 'SIGKILL');
      return holder;
    }));
    await nc.close();
  } finally {
    await sys.stop();
  }
}

if (!ONLY || ONLY === 'nats') {
  const cluster = await startNatsCluster({ auth: true });
  const sys = await startSystem({
    services: ['users', 'jobs', 'projects'], nats: cluster,
    env: { SML_LOG_LEVEL: 'warn', SML_JETSTREAM_REPLICAS: '3', SML_PROJECT_LEASE_MS: String(LEASE_MS) },
  });
  let victim;
  try {
    results.push(await scenario('NATS leader SIGKILLed (3 servers, R3, 1 projects replica)', sys, cluster, async () => {
      const node = cluster.nodes.find((n) => n.running());
      const jsz = await (await fetch(`http://127.0.0.1:${node.monitorPort}/jsz?accounts=true&streams=true`)).json();
      const leader = jsz.account_details.flatMap((a) => a.stream_detail ?? []).find((s) => s.name === 'SML_PROJECT_LOG').cluster.leader;
      victim = cluster.nodes.find((n) => n.name === leader);
      await victim.kill();
      return `${leader} (SML_PROJECT_LOG leader)`;
    }));
    await victim?.start();
  } finally {
    await sys.stop();
    await cluster.stop();
  }
}

let head = 'unknown';
try {
  head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
} catch {
  // not a git checkout
}
const markdown = [
  `## failover — ${m.date}`,
  '',
  `${m.cores} cores, ${m.cpu}, node ${m.node}; HEAD ${head}; SML_PROJECT_LEASE_MS ${LEASE_MS}; \`node bench/failover.mjs\`${ONLY ? ` (BENCH_ONLY=${ONLY})` : ''}. Before the run: \`${uptime}\` (other engineers' work shares the machine).`,
  '',
  `${PROJECTS} projects, one keyed learn of ${ROWS} × ${COLS} in flight each, retried until 200; ${SECONDS} s of load before and after. Restored: acknowledgements per ${WINDOW_MS} ms back to half the rate before the kill. Worst: the slowest single request sent before / after the kill.`,
  '',
  '| Fault | Killed | batches/s before | restored after | worst request sent before / after (ms) | acknowledged | kept exactly once | answers other than 200 |',
  '|---|---|---:|---:|---:|---:|---:|---|',
  ...results.map((r) => `| ${r.name} | ${r.victim} | ${r.before} | ${r.restored} | ${r.worstBefore} / ${r.worstAfter} | ${r.acked} | ${r.kept}${r.wrong ? ` (${r.wrong} projects wrong)` : ''} | ${Object.entries(r.answers).map(([k, v]) => `${v}× ${k}`).join('; ') || 'none'} |`),
].join('\n');
console.log(markdown);
if (!process.env.BENCH_DRY) appendResults(resultsFile, markdown);

// Streams throughput and end-to-end lag (issue 12). Run after a build:
//   node bench/streams.mjs   (BENCH_SUSTAIN_SECONDS default 20: the measured window of the sustained rate;
//                             BENCH_BACKLOG default 10000: records produced and not yet learned, at most;
//                             BENCH_FORMATS default "json" ("json,csv" adds CSV records);
//                             BENCH_LAG_SECONDS default 20: length of each steady-rate lag run;
//                             BENCH_POLL_MS default 10: how often the row count is read;
//                             BENCH_LAG_RATE: records/s of the lag runs (default: 50 % of the sustained rate);
//                             BENCH_KAFKA_LINGER_MS default 50: how often the Kafka lag producer sends;
//                             BENCH_DRY=1 prints without appending;
//                             BENCH_CPU_PROF=<dir> writes the services' CPU profiles there;
//                             SML_STREAM_BATCH_* in the environment reach the streams service.)
// A system started with startSystem (gateway, jobs, projects, streams, the bus nats-server), the
// Kafka mock of packages/testkit (tools/kafka-mock: librdkafka's mock cluster in kcat) and a
// second `nats-server -js` as the customer's NATS (as services/streams/test/streams.e2e.test.ts).
// Records have 20 numeric fields x0..x19 (x0 = the record's number mod 10 007, the others
// bench/learn.mjs's deterministic cells). Every Kafka record goes to partition 0 of its topic, so that records are
// learned in the order they were sent (see 2.).
// 1. Sustained throughput: a stream created with fromBeginning into a fresh project while a
//    producer keeps at most BENCH_BACKLOG records produced and not yet learned (row count read
//    every BENCH_POLL_MS over the bus, the `summary` request the explore service makes). Closed
//    loop: the consumer always has records waiting, and the Kafka mock, which keeps only the
//    newest few MiB of a partition, never drops unread ones (a backlog produced up front did).
//    Rate = rows learned in BENCH_SUSTAIN_SECONDS from 2 s after the first rows. Then the
//    producer stops and the count must reach what was produced (metrics: rejected 0).
//    CPU seconds (user + system, /proc) of this run's processes and peak RSS over the window.
//    Streams are not deleted afterwards (a NATS stream's DELETE did not answer in a trial).
// 2. Lag: a fresh project and stream (not fromBeginning), then a producer sending at a fixed
//    rate, 50 % of the source's sustained rate of 1., for
//    BENCH_LAG_SECONDS, keeping each record's send time by its number. The row count is read
//    every BENCH_POLL_MS; records are learned in order (one partition / one JetStream subject),
//    so the first reading with count > i says record i is learned: its lag is that reading's
//    arrival time minus its send time. Resolution: the poll interval plus the reading's round trip.
// Prints markdown and appends it, dated, to bench/RESULTS.md.
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { ours } from './lib/cpu.mjs';
import { appendResults, machine } from './lib/results.mjs';

const require = createRequire(import.meta.url);
const { startSystem, startKafkaMock, startNatsServer } = require('../packages/testkit/dist/index.js');
const { SmlClient } = require('../packages/sdk/dist/index.js');
const { BusClient, subjects } = require('@sml/bus');
const { sml } = require('@sml/proto');
const { Kafka, logLevel } = require('kafkajs');
const { connect } = require('nats');

const SUSTAIN_SECONDS = Number(process.env.BENCH_SUSTAIN_SECONDS ?? 20);
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 10_000);
const KAFKA_LINGER_MS = Number(process.env.BENCH_KAFKA_LINGER_MS ?? 50);
const WARM = 10_000; // records of the warm-up streams, produced up front
const FORMATS = (process.env.BENCH_FORMATS ?? 'json').split(',').map((s) => s.trim()).filter(Boolean);
const LAG_SECONDS = Number(process.env.BENCH_LAG_SECONDS ?? 20);
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 10);
const COLS = 20;
const resultsFile = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const names = Array.from({ length: COLS }, (_, j) => `x${j}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted, p) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]);

// Deterministic pseudo-random cells (bench/learn.mjs's); x0 is the record's number.
let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const cells = (i) => [String(i), ...Array.from({ length: COLS - 1 }, () => (rand() * 200 - 100).toFixed(6))];
const record = (i, format) => {
  const c = cells(i);
  return format === 'csv' ? c.join(',') : `{${c.map((v, j) => `"${names[j]}":${v}`).join(',')}}`;
};
// Records are made once and sent again and again (record k is pool[k mod POOL]: x0 = k mod
// POOL), so that making them does not take the cores the services need: making each record
// anew cost the client more CPU than the streams service spent learning it.
const POOL = 10_007;
const pools = {};
const pooled = (k, format) => (pools[format] ??= Array.from({ length: POOL }, (_, i) => Buffer.from(record(i, format))))[((k % POOL) + POOL) % POOL];

// ---- /proc: which process is which, RSS and CPU --------------------------------------------
let natsDirs = {}; // store dir → label ('bus' | 'source')
function processes() {
  const out = [];
  for (const pid of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      let name;
      if (Number(pid) === process.pid) name = 'client';
      else if (cmd.includes('nats-server')) {
        const dir = Object.keys(natsDirs).find((d) => cmd.includes(d));
        if (dir) name = `nats-server (${natsDirs[dir]})`;
      } else if (/^kcat .*-d mock/.test(cmd)) name = 'kafka-mock';
      else name = (cmd.match(/services\/(\w+)\/dist\/main/) ?? [])[1];
      if (name && ours(pid)) out.push({ pid, name });
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
const cpuDelta = (c0, c1) => Object.fromEntries(Object.entries(c1).map(([n, ms]) => [n, (ms - (c0[n] ?? 0)) / 1000]));
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

const m = machine();
const profDir = process.env.BENCH_CPU_PROF;
const [kafka, source] = await Promise.all([startKafkaMock(), startNatsServer()]);
const sys = await startSystem({
  services: ['users', 'jobs', 'projects', 'streams'], env: { SML_LOG_LEVEL: 'warn', KAFKAJS_NO_PARTITIONER_WARNING: '1' },
  ...(profDir ? { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', profDir] } : {}),
});
natsDirs = { [sys.nats.storeDir]: 'bus', [source.storeDir]: 'source' };
const throughput = []; // { source, format, produceSeconds, seconds, steadySeconds, cpu, rss }
const lags = []; // { source, rate, sent, achieved, p50, p90, p99, max, pollRtt }
const hwm = {};
const warm = {}; // source → { learned, metrics } of the warm-up stream
let procNames = [];
try {
  const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
  const secret = (await root.addUser('bench')).body.values.secretKey;
  const sdk = new SmlClient({ url: sys.url, user: 'bench', secret });
  const producer = new Kafka({ brokers: kafka.bootstrap.split(','), clientId: 'bench', logLevel: logLevel.NOTHING }).producer();
  await producer.connect();
  const admin = new Kafka({ brokers: kafka.bootstrap.split(','), clientId: 'bench-admin', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  const snc = await connect({ servers: source.url });
  await (await snc.jetstreamManager()).streams.add({ name: 'BENCH', subjects: ['bench.>'] });
  const js = snc.jetstream();
  // The project's row count, read as the explore service reads a project's summary (no REST answer holds it).
  const bnc = await connect({ servers: sys.nats.url, ...sys.nats.connectOptions('explore') });
  const bus = new BusClient(bnc, { timeoutMs: 10_000, resetMs: 200 });
  const rowCount = async (pid) => {
    try {
      const r = await bus.request('projects', subjects.projects('summary'), sml.v1.SummaryRequest,
        { caller: { user: 'bench', root: false, requestId: 'bench' }, pid, attributeNames: [] }, sml.v1.SummaryReply);
      return Number(r.rowCount ?? 0);
    } catch {
      return 0; // no summary yet
    }
  };
  const createProject = async (pid) => {
    const res = await sdk.createProject(pid);
    if (res.status !== 201) throw new Error(`create ${pid} answered ${res.status} ${res.body.statusString}`);
  };
  const dsInfo = (src, name, where, format) => ({
    type: src, name, extra: names.map(() => 'C'),
    info: src === 'kafka'
      ? { 'bootstrap.servers': kafka.bootstrap, 'kafka.topic': where, format, attributeNames: names.join(',') }
      : { nats_hosts: source.url, 'nats.subject': where, format, attributeNames: names.join(',') },
  });
  const createStream = async (pid, ds, fromBeginning) => {
    const res = await sdk.createStream(pid, ds, { fromBeginning });
    if (res.status !== 201) throw new Error(`stream create ${pid} answered ${res.status} ${res.body.statusString}`);
  };
  const metrics = async (pid, s) => (await sdk.streamMetrics(pid, s)).body.values.KSVSMap.values[0];
  /** Sends records [from, to) of `format` to the topic's partition 0 or the subject; up to `inFlight` sends pending. */
  const produce = async (src, where, format, from, to, { chunk = 1000, inFlight = 1 } = {}) => {
    if (src === 'kafka') {
      const pending = new Set();
      for (let i = from; i < to; i += chunk) {
        const messages = [];
        for (let k = i; k < Math.min(to, i + chunk); k++) messages.push({ partition: 0, value: pooled(k, format) });
        const p = producer.send({ topic: where, messages }).finally(() => pending.delete(p));
        pending.add(p);
        if (pending.size >= inFlight) await Promise.race(pending);
      }
      await Promise.all(pending);
    } else {
      // Core publishes to the stream's subject, then a flush (the server has read them) and, per
      // chunk, one acknowledged publish of the chunk's last record — the stream stores in order,
      // so its ack says the chunk is stored. A JetStream publish per record (a request each) cost
      // the client more CPU than the streams service spent learning the record.
      for (let i = from; i < to; i += chunk) {
        const end = Math.min(to, i + chunk);
        for (let k = i; k < end - 1; k++) snc.publish(where, pooled(k, format));
        await js.publish(where, pooled(end - 1, format));
      }
    }
  };

  // Warm-up, unmeasured: a small stream of each source, so the services' JIT and the Kafka client are warm.
  for (const src of ['kafka', 'nats']) {
    const pid = `warm_${src}`;
    const where = src === 'kafka' ? 'warm' : 'bench.warm';
    await createProject(pid);
    await produce(src, where, 'json', 0, WARM);
    console.error(`warm-up ${src}: produced`);
    await createStream(pid, dsInfo(src, 'w', where, 'json'), true);
    // Until all are learned or the count stays put for 3 s (reported: a shortfall is a lost record).
    let n = 0;
    for (let last = -1, since = Date.now(); n < WARM; await sleep(100)) {
      n = await rowCount(pid);
      if (n !== last) [last, since] = [n, Date.now()];
      else if (n > 0 && Date.now() - since > 3_000) break;
    }
    warm[src] = { learned: n, metrics: await metrics(pid, 'w') };
    if (n < WARM) console.error(`warm-up ${src}: ${n} of ${WARM} learned: ${JSON.stringify(warm[src].metrics)}`);
    if ((await sdk.deleteStream(pid, 'w')).status !== 200) throw new Error('warm-up stream not deleted');
  }

  // 1. Sustained throughput: a producer keeps the backlog (produced − learned) at most BACKLOG
  // records while the stream learns; the rate is the rows learned over SUSTAIN_SECONDS once the
  // first rows came. Closed loop, so the consumer is never starved and the Kafka mock's
  // retention (the newest few MiB of a partition) is never reached. Then the producer stops and
  // every record must be learned: count == produced, metrics rejected 0.
  const procs = processes();
  procNames = [...new Set(procs.map((p) => p.name))].sort();
  for (const format of FORMATS) {
    for (const src of ['kafka', 'nats']) {
      const pid = `tp_${src}_${format}`;
      const where = src === 'kafka' ? `tp_${format}` : `bench.tp.${format}`;
      await createProject(pid);
      // The topic exists before the create, holding record 0 (fromBeginning: learned).
      await produce(src, where, format, 0, 1);
      let produced = 1;
      const t = performance.now();
      await createStream(pid, dsInfo(src, 's', where, format), true);
      let n = 0;
      let first;
      let window; // { at, rows, c0, stopRss }
      let result;
      for (const deadline = t + 120_000 + SUSTAIN_SECONDS * 1000; ;) {
        n = await rowCount(pid);
        const now = performance.now();
        if (now > deadline) throw new Error(`${src} ${format}: ${n} of ${produced} learned when the run timed out`);
        if (n > 0 && first === undefined) first = now;
        // Measured from 2 s after the first rows (the consumer's start is not part of the rate).
        if (first !== undefined && !window && now - first > 2_000) window = { at: now, rows: n, c0: cpuMs(procs), stopRss: rssSampler(procs) };
        if (window && now - window.at >= SUSTAIN_SECONDS * 1000) {
          result = { seconds: (now - window.at) / 1000, rows: n - window.rows, cpu: cpuDelta(window.c0, cpuMs(procs)), rss: window.stopRss() };
          break;
        }
        if (produced - n < BACKLOG) {
          const to = produced + Math.min(BACKLOG - (produced - n), 2_000);
          await produce(src, where, format, produced, to, { chunk: 1_000 });
          produced = to;
        } else await sleep(POLL_MS);
      }
      // Drained: every record produced is learned once.
      let lastN = -1;
      for (let since = performance.now(); n < produced; await sleep(POLL_MS)) {
        n = await rowCount(pid);
        if (n !== lastN) [lastN, since] = [n, performance.now()];
        else if (performance.now() - since > 10_000) break;
      }
      let mt = await metrics(pid, 's');
      for (let k = 0; k < 20 && mt.recordsLearned !== String(n); k++, await sleep(100)) mt = await metrics(pid, 's'); // written every 200 ms
      if (n !== produced) console.error(`${src} ${format}: ${n} of ${produced} learned; metrics ${JSON.stringify(mt)}`);
      const r = {
        source: src, format, produced, learned: n, read: Number(mt.recordsRead), rejected: Number(mt.recordsRejected), batches: Number(mt.batchesLearned),
        startSeconds: (first - t) / 1000, seconds: result.seconds, rows: result.rows, steadyRate: result.rows / result.seconds, cpu: result.cpu, rss: result.rss,
      };
      throughput.push(r);
      console.error(`${src} ${format}: first rows ${r.startSeconds.toFixed(2)} s after the create; ${r.rows} rows in ${r.seconds.toFixed(1)} s = ${Math.round(r.steadyRate)} records/s sustained; ${n} of ${produced} learned after draining, ${r.rejected} rejected`);
    }
  }

  // 2. Lag at 50 % of the sustained JSON rate.
  for (const src of ['kafka', 'nats']) {
    const tp = throughput.find((x) => x.source === src && x.format === 'json') ?? throughput.find((x) => x.source === src);
    // BENCH_LAG_RATE overrides.
    const rate = Number(process.env.BENCH_LAG_RATE ?? 0) || Math.max(1, Math.round(tp.steadyRate / 2));
    const pid = `lag_${src}`;
    const where = src === 'kafka' ? 'lag' : 'bench.lag';
    await createProject(pid);
    if (src === 'kafka') await produce(src, where, 'json', -1, 0); // the topic exists before the create (this record is before the stream: not learned)
    await createStream(pid, dsInfo(src, 's', where, 'json'), false);
    // The stream is running once a probe record is learned (Kafka: the consumer has joined its group).
    for (let k = 0, deadline = Date.now() + 60_000; (await rowCount(pid)) < 1; k++, await sleep(100)) {
      if (k % 20 === 0) await produce(src, where, 'json', -1, 0); // again every 2 s: one sent before the consumer joined is passed over
      if (Date.now() > deadline) throw new Error(`${src} lag stream never learned its probe record`);
    }
    const base = await rowCount(pid); // probe records learned
    const total = Math.round(rate * LAG_SECONDS);
    const sentAt = new Float64Array(total);
    const seen = new Float64Array(total).fill(NaN);
    const rtts = [];
    let polling = true;
    let learned = 0;
    const poller = (async () => {
      while (polling) {
        const t0 = performance.now();
        const n = (await rowCount(pid)) - base;
        const t1 = performance.now();
        rtts.push(t1 - t0);
        for (; learned < Math.min(n, total); learned++) seen[learned] = t1;
        if (learned >= total) break;
        await sleep(POLL_MS);
      }
    })();
    // Fixed-rate producer: every `linger` ms, send what the clock says should have been sent by
    // now, as one produce request (a record's send time is when it is sent). Kafka: 50 ms
    // (BENCH_KAFKA_LINGER_MS), because the mock broker answers a fetch with one produce batch
    // per partition ("FIXME: Multiple messageSets ?" in librdkafka's rdkafka_mock_handlers.c):
    // 5 ms batches of ~50 records held the consumer to ~100 records per fetch, so it fell more
    // than the mock's 5 MiB retention behind and records were lost; a real broker returns every
    // batch up to the fetch's byte limit.
    const linger = src === 'kafka' ? KAFKA_LINGER_MS : 5;
    const t0 = performance.now();
    let sent = 0;
    const sends = new Set();
    while (sent < total) {
      const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * rate));
      if (due > sent) {
        const now = performance.now();
        for (let i = sent; i < due; i++) sentAt[i] = now;
        const p = produce(src, where, 'json', sent, due, { chunk: due - sent, inFlight: 1 }).finally(() => sends.delete(p));
        sends.add(p);
        sent = due;
      }
      await sleep(linger);
    }
    await Promise.all(sends);
    const sendSeconds = (performance.now() - t0) / 1000;
    for (const deadline = Date.now() + 120_000; learned < total && Date.now() < deadline;) await sleep(50);
    polling = false;
    await poller;
    if (learned < total) {
      const low = src === 'kafka' ? JSON.stringify(await admin.fetchTopicOffsets(where)) : '';
      throw new Error(`${src} lag: ${learned} of ${total} learned; metrics ${JSON.stringify(await metrics(pid, 's'))} ${low}`);
    }
    const lag = Float64Array.from(seen, (s, i) => s - sentAt[i]).sort();
    const rt = Float64Array.from(rtts).sort();
    lags.push({
      source: src, rate, total, achieved: total / sendSeconds, p50: pct(lag, 50), p90: pct(lag, 90), p99: pct(lag, 99), max: lag[lag.length - 1],
      rttP50: pct(rt, 50), rttP99: pct(rt, 99), readings: rtts.length, seconds: sendSeconds,
    });
    const l = lags.at(-1);
    console.error(`${src} lag at ${rate} records/s (sent at ${Math.round(l.achieved)}/s): p50 ${l.p50.toFixed(0)} ms, p99 ${l.p99.toFixed(0)} ms, max ${l.max.toFixed(0)} ms; row-count reading p50 ${l.rttP50.toFixed(1)} ms`);
  }
  for (const { pid, name } of procs) {
    try {
      hwm[name] = (hwm[name] ?? 0) + statusKiB(pid, 'VmHWM') / 1024;
    } catch {
      // ended
    }
  }
  await producer.disconnect();
  await admin.disconnect();
  await snc.close();
  bus.close();
  await bnc.close();
} finally {
  await sys.stop();
  await Promise.all([kafka.stop(), source.stop()]);
}

// ---- report --------------------------------------------------------------------------------
const env = ['SML_STREAM_BATCH_RECORDS', 'SML_STREAM_BATCH_BYTES', 'SML_STREAM_BATCH_MS'].map((k) => `${k}=${process.env[k] ?? 'default'}`).join(', ');
const section = [
  `## streams — ${m.date}`,
  '',
  `Machine: ${m.cores} cores, ${m.cpu}, Node ${m.node}, load average ${m.load} before the run. Records of ${COLS} numeric fields (x0..x19), every Kafka record in partition 0 of its topic (kafka-mock, librdkafka's mock cluster in kcat), NATS records on one subject of a JetStream stream on a second nats-server (the customer's). Sustained rate: a producer keeps at most ${BACKLOG} records produced and not yet learned (closed loop: the consumer is never starved, the mock's retention never reached) while the stream learns into a fresh project; rate = rows learned in ${SUSTAIN_SECONDS} s from 2 s after the first rows; then the producer stops and the rest must be learned. ${env}. Client, kafka-mock, both nats-servers, gateway and services share the machine; one unmeasured stream of ${WARM} records per source first (produced up front: fewer than the mock keeps).`,
  '',
  `| source | format | first rows after the create (s) | window (s) | rows learned in the window | **records/s sustained** | produced in all | learned after draining | read / rejected (metrics) | batches |`,
  '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...throughput.map((r) => `| ${r.source} | ${r.format} | ${r.startSeconds.toFixed(2)} | ${r.seconds.toFixed(1)} | ${r.rows} | **${Math.round(r.steadyRate)}** | ${r.produced} | ${r.learned}${r.learned !== r.produced ? ' (**short**)' : ''} | ${r.read} / ${r.rejected} | ${r.batches} |`),
  '',
  `Warm-up streams (${WARM} records each, fromBeginning): ${Object.entries(warm).map(([src, w]) => `${src} ${w.learned} learned (read ${w.metrics.recordsRead}, positions ${w.metrics.positions})`).join('; ')}.`,
  '',
  'CPU seconds over each measured window (user + system from /proc, 10 ms ticks), and per 10 000 records learned in it:',
  '',
  `| source | format | ${procNames.join(' | ')} | total | total per 10 000 |`,
  `|---|---|${procNames.map(() => '---:').join('|')}|---:|---:|`,
  ...throughput.map((r) => {
    const total = procNames.reduce((s, n) => s + (r.cpu[n] ?? 0), 0);
    return `| ${r.source} | ${r.format} | ${procNames.map((n) => (r.cpu[n] ?? 0).toFixed(2)).join(' | ')} | ${total.toFixed(2)} | ${(total / r.rows * 10_000).toFixed(3)} |`;
  }),
  '',
  `Peak RSS (MiB, VmRSS every 50 ms during each window) and VmHWM at the end of the run:`,
  '',
  `| | ${procNames.join(' | ')} |`,
  `|---|${procNames.map(() => '---:').join('|')}|`,
  ...throughput.map((r) => `| ${r.source} ${r.format} | ${procNames.map((n) => (r.rss[n] ?? 0).toFixed(0)).join(' | ')} |`),
  `| VmHWM, whole run | ${procNames.map((n) => (hwm[n] ?? 0).toFixed(0)).join(' | ')} |`,
  '',
  `End-to-end lag at a steady 50 % of the source's sustained JSON rate, ${LAG_SECONDS} s of records each: send time (kept by record number) → the first row-count reading (every ${POLL_MS} ms, over the bus) with count > the record's number. Readings arrive at most ${POLL_MS} ms + a round trip after the row is learned, so each lag is over by at most that:`,
  '',
  '| source | target records/s | sent records/s | records | lag p50 ms | p90 ms | p99 ms | max ms | row-count reading round trip p50 / p99 ms |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...lags.map((l) => `| ${l.source} | ${l.rate} | ${Math.round(l.achieved)} | ${l.total} | **${l.p50.toFixed(0)}** | ${l.p90.toFixed(0)} | **${l.p99.toFixed(0)}** | ${l.max.toFixed(0)} | ${l.rttP50.toFixed(1)} / ${l.rttP99.toFixed(1)} |`),
].join('\n');
console.log(section);
if (process.env.BENCH_DRY !== '1') appendResults(resultsFile, section); // BENCH_DRY=1: print only

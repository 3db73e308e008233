// Learn throughput over one WebSocket (API.md §12) next to REST with 2 requests in flight,
// same data, same run. Run after a build:
//   node bench/ws.mjs   (BENCH_ROWS default 100000; BENCH_RUNS default 5; BENCH_CPU_PROF=<dir>; BENCH_BATCH default
//                        "10000,1000": rows per message/request; BENCH_WS_IN_FLIGHT default 8 =
//                        the server's SML_WS_MAX_IN_FLIGHT; BENCH_DRY=1 prints without appending)
// Each run learns every batch into a fresh project three times, rotating which goes first: over
// REST, every request signed (MD5 + HMAC of the body, as the SDK does); over one WebSocket as
// SymetryML documents it (websocket-api.md: the header "is mandatory on the first WebSocket
// message only": the first message is signed, the later ones are `0,<body>` and speak for the
// connection's customer); and over one WebSocket with every message signed.
// A WebSocket message is answered only once its batch is in the project's log, like REST.
// The ratio is judged run by run (this VM's speed drifts), then the median is reported.
import { randomInt } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { cpuMs } from './lib/cpu.mjs';
import { appendResults, machine } from './lib/results.mjs';
import { withServiceMalloc } from './lib/malloc.mjs';

withServiceMalloc();
const require = createRequire(import.meta.url);
const { startSystem } = require('../packages/testkit/dist/index.js');
const { SmlClient } = require('../packages/sdk/dist/index.js');
const { contentMd5, formatSymDate, wsSignatures } = require('../packages/core/dist/index.js');
const WebSocket = require('../node_modules/ws');

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const BATCHES = (process.env.BENCH_BATCH ?? '10000,1000').split(',').map(Number);
const WS_IN_FLIGHT = Number(process.env.BENCH_WS_IN_FLIGHT ?? 8);
const REST_IN_FLIGHT = 2;
/** ws: signed header on the first message only (documented); wsSigned: on every message. */
const TRANSPORTS = ['ws', 'wsSigned', 'rest'];
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 1000);
const COLS = 20;
const resultsFile = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
function frame(rows, cols) {
  const names = Array.from({ length: cols }, (_, j) => `x${j}`);
  return { attributeNames: names, attributeTypes: names.map(() => 'C'), data: Array.from({ length: rows }, () => names.map(() => (rand() * 200 - 100).toFixed(6))), errorHandling: 0 };
}

/**
 * `<header length>,<header JSON><body>`, signed now (the documented form: path, no newline
 * after the last key). The HMAC reads the body's bytes, as the SDK signs a REST body:
 * signing the string to sign as one string (wsStringToSign, which decodes the body to text
 * and HMAC re-encodes it) cost this client 8 ms per 2000-row message, a third of the
 * server's time for it, and made the WebSocket side look slower than it is.
 */
function wsMessage(user, secret, body, pid) {
  const now = new Date();
  const date = formatSymDate(now, now.getUTCMilliseconds() * 1_000_000 + randomInt(1_000_000));
  const md5 = contentMd5(body);
  // The first signature wsSignatures returns is the documented form's.
  const [sig] = wsSignatures({ contentMd5: md5, secret, symDate: date, customerId: user, body, extraKeys: [pid] }, ['/symetry/ws/learn']);
  const header = JSON.stringify({ headers: [date, md5, sig, user], extraKeys: [pid] });
  return Buffer.concat([Buffer.from(`${Buffer.byteLength(header)},${header}`), body]);
}

const NO_HEADER = Buffer.from('0,');

/**
 * Sends every body over one WebSocket, at most `inFlight` unanswered; resolves when all are
 * answered 200. `signEvery`: every message carries its signed header; otherwise only the first.
 */
function learnOverWs(url, user, secret, pid, payloads, inFlight, signEvery) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    let sent = 0;
    let answered = 0;
    const pump = () => {
      // A text message, as SymetryML's clients send it (sym-rest-rc: Message::Text): the server checks its UTF-8.
      for (; sent < payloads.length && sent - answered < inFlight; sent++) {
        const message = signEvery || sent === 0 ? wsMessage(user, secret, payloads[sent], pid) : Buffer.concat([NO_HEADER, payloads[sent]]);
        ws.send(message, { binary: false });
      }
    };
    ws.on('open', pump);
    ws.on('message', (data) => {
      const text = data.toString();
      if (!text.startsWith('{"statusCode":200')) return reject(new Error(`WebSocket learn answered ${text.slice(0, 200)}`));
      if (++answered === payloads.length) {
        ws.close();
        resolve();
      } else pump();
    });
    ws.on('error', reject);
  });
}

async function learnOverRest(sdk, pid, payloads, inFlight) {
  const queue = [...payloads];
  await Promise.all(Array.from({ length: inFlight }, async () => {
    for (let raw = queue.shift(); raw !== undefined; raw = queue.shift()) {
      const res = await sdk.request('POST', `/projects/${pid}/learn`, { raw, headers: { 'content-type': 'application/json' } });
      if (res.status !== 200) throw new Error(`learn answered ${res.status} ${res.body.statusString}`);
    }
  }));
}

const m = machine();
const profDir = process.env.BENCH_CPU_PROF; // a directory: CPU profiles of the service processes
// The documented protocol carries the first batch on the signed first message (10 000 rows ≈ 2.6 MB):
// within the default SML_WS_UNAUTHENTICATED_MAX_BYTES (16 MiB).
const sys = await startSystem({ services: ['users', 'jobs', 'projects'], env: { SML_LOG_LEVEL: 'warn', SML_WS_MAX_IN_FLIGHT: String(WS_IN_FLIGHT) }, ...(profDir ? { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', profDir] } : {}) });
const results = [];
try {
  const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
  const secret = (await root.addUser('bench')).body.values.secretKey;
  const sdk = new SmlClient({ url: sys.url, user: 'bench', secret });
  const wsUrl = `${sys.url.replace(/^http/, 'ws')}/symetry/ws/learn`;
  for (const batch of BATCHES) {
    const payloads = Array.from({ length: Math.ceil(ROWS / batch) }, () => Buffer.from(JSON.stringify(frame(batch, COLS)), 'utf8'));
    // One unmeasured pass of each warms the services' JIT.
    await sdk.createProject(`warm${batch}`);
    await learnOverRest(sdk, `warm${batch}`, payloads, REST_IN_FLIGHT);
    await learnOverWs(wsUrl, 'bench', secret, `warm${batch}`, payloads, WS_IN_FLIGHT, true);
    await learnOverWs(wsUrl, 'bench', secret, `warm${batch}`, payloads, WS_IN_FLIGHT, false);
    const rates = Object.fromEntries(TRANSPORTS.map((t) => [t, []]));
    const ratios = { ws: [], wsSigned: [] };
    const cpu = Object.fromEntries(TRANSPORTS.map((t) => [t, {}]));
    for (let r = 0; r < RUNS; r++) {
      // Rows/s, and CPU ms per message of each process over the learn (into cpu[transport]).
      const time = async (transport) => {
        const pid = `${transport}${batch}_${r}`;
        await sdk.createProject(pid);
        const c0 = cpuMs();
        const t0 = process.hrtime.bigint();
        if (transport === 'rest') await learnOverRest(sdk, pid, payloads, REST_IN_FLIGHT);
        else await learnOverWs(wsUrl, 'bench', secret, pid, payloads, WS_IN_FLIGHT, transport === 'wsSigned');
        const rate = ROWS / (Number(process.hrtime.bigint() - t0) / 1e9);
        for (const [name, ms] of Object.entries(cpuMs())) ((cpu[transport][name] ??= [])).push((ms - (c0[name] ?? 0)) / payloads.length);
        return rate;
      };
      // Each run starts with another transport (this VM's speed drifts within a run too).
      const order = TRANSPORTS.map((_, k) => TRANSPORTS[(k + r) % TRANSPORTS.length]);
      const run = {};
      for (const t of order) {
        // Work a transport leaves behind (the gateway's garbage collection of its buffers) is not the next one's.
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        run[t] = await time(t);
      }
      for (const t of TRANSPORTS) rates[t].push(run[t]);
      ratios.ws.push(run.ws / run.rest);
      ratios.wsSigned.push(run.wsSigned / run.rest);
    }
    const medians = (t) => Object.fromEntries(Object.entries(cpu[t]).filter(([n]) => n !== 'jobs' && n !== 'users').map(([n, xs]) => [n, median(xs)]));
    results.push({ batch, rates: Object.fromEntries(TRANSPORTS.map((t) => [t, median(rates[t])])), ratios, cpu: Object.fromEntries(TRANSPORTS.map((t) => [t, medians(t)])) });
  }
} finally {
  await sys.stop();
}

const LABEL = { ws: 'WebSocket, header on the first message (documented)', wsSigned: 'WebSocket, every message signed', rest: 'REST, 2 in flight' };
const section = [
  `## ws — ${m.date}`,
  '',
  `Machine: ${m.cores} cores, ${m.cpu}, Node ${m.node}, load average ${m.load} before the run (the machine is shared: other sessions' builds and tests run meanwhile). ${ROWS} rows × ${COLS} C columns per run, learned into fresh projects over REST (${REST_IN_FLIGHT} requests in flight, each signed) and over one WebSocket (≤ ${WS_IN_FLIGHT} messages in flight) twice: as SymetryML documents it (the signed header on the first message only; later messages \`0,<body>\` speak for the connection's customer) and with every message signed; each run starts with another of the three; median of ${RUNS} runs. Client, gateway, projects and nats-server share the machine.`,
  '',
  '| rows per message | WebSocket (documented) rows/s | WebSocket (every message signed) rows/s | REST (2 in flight) rows/s | documented / REST (median of per-run ratios; target ≥ 1.3) | every message signed / REST |',
  '|---:|---:|---:|---:|---|---|',
  ...results.map((x) => `| ${x.batch} | ${Math.round(x.rates.ws)} | ${Math.round(x.rates.wsSigned)} | ${Math.round(x.rates.rest)} | **${median(x.ratios.ws).toFixed(2)}** (${x.ratios.ws.map((v) => v.toFixed(2)).join(', ')}) | ${median(x.ratios.wsSigned).toFixed(2)} (${x.ratios.wsSigned.map((v) => v.toFixed(2)).join(', ')}) |`),
  '',
  'CPU per message (ms, user + system from /proc, median of runs; 10 ms ticks):',
  '',
  ...results.flatMap((x) => {
    const names = [...new Set(TRANSPORTS.flatMap((t) => Object.keys(x.cpu[t])))].sort();
    const row = (t) => `| ${x.batch} | ${LABEL[t]} | ${names.map((n) => (x.cpu[t][n] ?? 0).toFixed(1)).join(' | ')} | ${names.reduce((a, n) => a + (x.cpu[t][n] ?? 0), 0).toFixed(1)} |`;
    return [`| rows per message | transport | ${names.join(' | ')} | total |`, `|---:|---|${names.map(() => '---:').join('|')}|---:|`, ...TRANSPORTS.map(row), ''];
  }),
].join('\n');
console.log(section);
if (!process.env.BENCH_DRY) appendResults(resultsFile, section);

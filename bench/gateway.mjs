// Gateway overhead benchmark: signed GET /{user}/jobs through the real gateway + jobs
// service versus a plain express hello-world, same client, same machine. Run after a build:
//   node bench/gateway.mjs        (BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_CPU_PROF: see RESULTS.md)
// Prints a markdown table and appends it, dated, to bench/RESULTS.md.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { measure } from './lib/load.mjs';
import { appendResults, machine, markdownTable } from './lib/results.mjs';
import { signedGet } from './lib/signed-request.mjs';

const require = createRequire(import.meta.url);
const { startSystem } = require('../packages/testkit/dist/index.js');
const { SmlClient } = require('../packages/sdk/dist/index.js');

const TARGET_P50_OVERHEAD_MS = 2;
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connectionCounts = (process.env.BENCH_CONNECTIONS ?? '1,10').split(',').map(Number);
const profileDir = process.env.BENCH_CPU_PROF;
const resultsFile = fileURLToPath(new URL('./RESULTS.md', import.meta.url));

const m = machine();
const sys = await startSystem({
  services: ['users', 'jobs'],
  env: { SML_LOG_LEVEL: 'warn', ...(profileDir && { NODE_OPTIONS: `--require ${fileURLToPath(new URL('./lib/cpu-profile.cjs', import.meta.url))}` }) },
});
const hello = fork(fileURLToPath(new URL('./lib/hello-server.mjs', import.meta.url)), { stdio: 'inherit' });
try {
  const user = 'bench';
  const created = await new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret }).addUser(user);
  if (created.status !== 201) throw new Error(`creating the bench customer answered ${created.status} ${created.body.statusString}`);
  const secret = created.body.values.secretKey;
  const path = `${sys.basePath}/${user}/jobs`;
  const [{ port }] = await once(hello, 'message');

  const targets = [
    { target: 'express hello-world', url: `http://127.0.0.1:${port}` },
    { target: 'gateway (auth + bus)', url: sys.url },
  ];
  // Both targets get the same signed requests, so the client does the same work for each.
  const setupRequest = signedGet({ path, user, secret });
  const runs = [];
  for (const connections of connectionCounts) {
    for (const { target, url } of targets) {
      const r = await measure({ url, connections, seconds, setupRequest });
      runs.push({ target, ...r });
      console.error(`${target}, ${connections} connection(s): ${Math.round(r.reqPerSec)} req/s, p50 ${r.p50.toFixed(2)} ms`);
    }
  }

  // The target is a per-request overhead, judged at the fewest connections: with more, the
  // p50 also holds queueing behind whatever saturates the shared cores.
  const judged = Math.min(...connectionCounts);
  const verdict = connectionCounts.map((connections) => {
    const [base, gw] = targets.map(({ target }) => runs.find((r) => r.target === target && r.connections === connections));
    const overhead = gw.p50 - base.p50;
    const note = connections === judged
      ? `target ≤ ${TARGET_P50_OVERHEAD_MS} ms: **${overhead <= TARGET_P50_OVERHEAD_MS ? 'met' : 'missed'}**`
      : 'under load, includes queueing';
    return `- p50 overhead at ${connections} connection(s): **${overhead.toFixed(2)} ms** (${note})`;
  }).join('\n');
  const section = [
    `## gateway — ${m.date}`,
    '',
    `Machine: ${m.cores} cores, ${m.cpu}, Node ${m.node}, load average ${m.load} before the run. ${seconds} s per run after 1 s warm-up;`
      + ' client, gateway, jobs service and nats-server share the machine.',
    '',
    markdownTable(runs),
    '',
    verdict,
  ].join('\n');
  console.log(section);
  appendResults(resultsFile, section);
} finally {
  hello.disconnect();
  await sys.stop();
}

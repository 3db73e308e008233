// What the stall benchmarks share: a system with two customers, and bob's reads timed while
// alice's work runs (bench/predict-stall.mjs, bench/body-stall.mjs).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { startSystem } = require('../../packages/testkit/dist/index.js');
const { SmlClient } = require('../../packages/sdk/dist/index.js');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Bob reads his project's info every 20 ms while `work` runs: its status (or the error that
 * ended it) and time; bob's worst and median latency, and his reads that failed.
 */
export async function probed(bob, work) {
  let stop = false;
  const latencies = [];
  let failed = 0;
  const probe = (async () => {
    while (!stop) {
      const t = performance.now();
      const info = await bob.request('GET', '/projects/q/info').catch(() => undefined);
      if (info?.status !== 200) failed++;
      latencies.push(performance.now() - t);
      await sleep(20);
    }
  })();
  await sleep(300);
  const t0 = performance.now();
  const res = await work().then((r) => String(r.status), (err) => err.message.replace(/http:\/\/[^ ]+ /, ''));
  const ms = performance.now() - t0;
  await sleep(300);
  stop = true;
  await probe;
  latencies.sort((a, b) => a - b);
  return { status: res, ms, worst: latencies.at(-1), median: latencies[latencies.length >> 1], failed };
}

/** A system with `env`, customers alice and bob (his project q learned), for `run`; stopped after it. */
export async function withCustomers(env, run) {
  const sys = await startSystem({ services: ['users', 'jobs', 'projects'], env: { SML_LOG_LEVEL: 'warn', ...env } });
  try {
    const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
    const client = async (user) => new SmlClient({ url: sys.url, user, secret: (await root.addUser(user)).body.values.secretKey });
    const [alice, bob] = [await client('alice'), await client('bob')];
    await bob.createProject('q');
    await bob.request('POST', '/projects/q/learn', { json: { attributeNames: ['a', 'b'], attributeTypes: ['C', 'C'], data: Array.from({ length: 100 }, (_, i) => [String(i), String(i % 7)]) } });
    return await run(alice, bob);
  } finally {
    await sys.stop();
  }
}

import { ALGORITHMS, Summary, forestOptionsOf } from '@sml/stats';
import type { SmlClient } from '@sml/sdk';
import { startSystem, type RunningSystem } from '@sml/testkit';
import { customer, frame } from './helpers';

// @sml-run-alone: bounds other customers' learn latency (2 s) while a forest learns (scripts/jest-alone.js).
// Issue 29, item 4: one customer's online forest must not stall the others. A project with
// rf_num_trees=100, rf_complexity=64 learning 5 000 × 41 batches took ≈ 1.4 s of CPU per batch
// on the projects event loop (≈ 2–8 s on a loaded machine): another customer's 1-row learns
// waited that long, one answered 503, and the forest owner's own batch got 503 'could not be
// made durable (TIMEOUT)'. The forest now learns on an online-model thread: the other
// customer's learns keep answering 200 promptly (the strict figure, p99 ≤ 250 ms, is measured
// by bench/online.mjs; 2 s here, for a loaded 2-core machine), the owner's batches are logged,
// and the forest is the one learning the same batches in one thread gives — after a crash
// (log replay, updates on the thread again) as well.

describe('one customer\'s online forest does not stall the others', () => {
  let sys: RunningSystem;
  let grove: SmlClient;
  let tiny: SmlClient;

  const D = 40;
  const BATCHES = 4;
  const ROWS = 5000;
  const features = Array.from({ length: D }, (_, j) => `x${j}`);
  const names = [...features, 'label'];
  const types = [...features.map(() => 'C'), 'B'];
  const params = { rf_type: 'rf_classifier', rf_target_name: 'label', rf_num_trees: '100', rf_complexity: '64' };
  let seed = 29;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const batches = Array.from({ length: BATCHES }, () => Array.from({ length: ROWS }, () => {
    const x = features.map(() => Number((rand() * 4 - 2).toFixed(4)));
    return [...x, x[0] * x[1] + 0.5 * x[2] > 0 ? 1 : 0];
  }));
  const probeRows = batches[0].slice(0, 20).map((r) => r.slice(0, D));
  const probe = frame(features, features.map(() => 'C'), probeRows);

  /** What the same batches learned in one thread (Summary.learn: the forest in its commit) predict. */
  function reference(): Array<Record<string, string>> {
    const s = new Summary({ forest: forestOptionsOf(params)! });
    for (const rows of batches) s.learn({ attributeNames: names, attributeTypes: types, data: rows.map((r) => r.map(String)) });
    const model = ALGORITHMS.rf_classifier.build(s, { algo: 'rf_classifier', inputs: [], targets: [], params: {} });
    return model.predict({ names: features, rows: probeRows.map((r) => r.map(String)) });
  }

  const servicePredictions = async (modelid: string) => {
    const built = await grove.request('POST', '/projects/rf/build', { query: { modelid, algo: 'rf_classifier' }, json: { extraParameters: {} } });
    expect(built.status).toBe(202);
    const done = await grove.waitForJob(built);
    expect(done.body.statusString).toBe('Job is finished');
    const r = await grove.request('POST', `/projects/rf/predict/${modelid}`, { json: probe });
    expect(r.status).toBe(200);
    return (r.body.values as { KSVSMap: { values: Array<Record<string, string>> } }).KSVSMap.values;
  };

  beforeAll(async () => {
    sys = await startSystem({ services: ['users', 'jobs', 'projects'] });
    grove = await customer(sys, 'grove');
    tiny = await customer(sys, 'tiny');
    expect((await grove.createProject('rf', { params })).status).toBe(201);
    expect((await tiny.createProject('p')).status).toBe(201);
  });
  afterAll(() => sys?.stop());

  it('another customer\'s 1-row learns answer 200 within 2 s while a 100-tree forest learns 5 000 × 41 batches; the forest\'s batches are all durable', async () => {
    let forestDone = false;
    const owner: Array<{ status: number; message: string; ms: number }> = [];
    const forest = (async () => {
      try {
        for (const rows of batches) {
          const t0 = performance.now();
          const r = await grove.learn('rf', frame(names, types, rows));
          owner.push({ status: r.status, message: String(r.body.statusString ?? ''), ms: performance.now() - t0 });
        }
      } finally {
        forestDone = true;
      }
    })();
    const other: Array<{ status: number; ms: number }> = [];
    for (let i = 0; !forestDone; i++) {
      const t0 = performance.now();
      const r = await tiny.learn('p', frame(['a', 'b'], ['C', 'C'], [[i, i % 7]]));
      other.push({ status: r.status, ms: performance.now() - t0 });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await forest;
    const slowest = Math.max(...other.map((o) => o.ms));
    console.log(`other customer: ${other.length} learns, slowest ${slowest.toFixed(0)} ms; forest batches: ${owner.map((o) => o.ms.toFixed(0)).join(', ')} ms`);
    expect(owner.map((o) => [o.status, o.message])).toEqual(batches.map(() => [200, expect.not.stringContaining('durable')]));
    expect(other.filter((o) => o.status !== 200)).toEqual([]);
    expect(other.length).toBeGreaterThan(5);
    expect(slowest).toBeLessThan(2000);
  }, 240_000);

  it('the forest is the one the same batches learned in one thread give: after learning, and after a crash (log replay)', async () => {
    const expected = reference();
    expect(await servicePredictions('m1')).toEqual(expected);
    // No snapshot was written (fewer batches than SML_SNAPSHOT_EVERY_BATCHES): the restarted
    // service replays the four batches from the log, their forest updates on its thread again.
    await sys.kill('projects');
    await sys.start('projects');
    expect(await servicePredictions('m2')).toEqual(expected);
  }, 240_000);
});

import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { Summary, clusterOptionsOf, forestOptionsOf, type OnlineFrame } from '@sml/stats';
import { OnlinePool } from '../src/predict/online-pool';
import { OnlineUpdates } from '../src/predict/online-updates';

// The online-model threads (online-pool.ts, on the built online-worker.js): a summary whose
// forest and micro-clusters learn there batch by batch ends as Summary.learn leaves it; a dead
// thread fails what it held (the state is lost) and the next task gets a new thread.
describe('OnlinePool', () => {
  const options = {
    forest: forestOptionsOf({ rf_type: 'rf_classifier', rf_target_name: 'label', rf_num_trees: '20', rf_complexity: '30' })!,
    clusters: clusterOptionsOf({ cluster_features: 'x0:x1', cluster_num_centroids: '8', cluster_warmup: '20' })!,
  };
  const names = ['x0', 'x1', 'x2', 'label'];
  const batch = (k: number) => ({
    attributeNames: names, attributeTypes: ['C', 'C', 'C', 'B'],
    data: Array.from({ length: 400 }, (_, i) => [Math.sin(k * 400 + i), Math.cos(i * 1.7 + k), Math.sin(i * 0.3), Math.sin(k * 400 + i) > 0 ? 1 : 0].map(String)),
  });
  const pool = new OnlinePool(join(__dirname, '../dist/predict/online-worker.js'), 2);
  afterAll(() => pool.stop());

  it('batches learned on the threads give the summary Summary.learn gives, byte for byte', async () => {
    const s = new Summary(options);
    const updates = new OnlineUpdates(s, pool.learn, (err) => { throw err; });
    const reference = new Summary(options);
    for (let k = 0; k < 5; k++) {
      const change = s.prepare('learn', { frame: batch(k) }, {}, true);
      change.commit();
      updates.add(change.online!);
      reference.learn(batch(k));
    }
    await updates.settled();
    expect(Buffer.from(s.serialize()).equals(Buffer.from(reference.serialize()))).toBe(true);
  });

  it('a thread that dies fails its task; the next task runs on a new thread', async () => {
    const s = new Summary(options);
    const frame: OnlineFrame = s.prepare('learn', { frame: batch(0) }, {}, true).online!;
    const threads = (pool as unknown as { threads: Array<{ calls: { worker?: Worker; waiting: number } }> }).threads;
    const pending = pool.learn(s.onlineOptions, s.takeOnline(), [frame]);
    const held = threads.find((t) => t.calls.worker && t.calls.waiting > 0)!;
    await held.calls.worker!.terminate();
    await expect(pending).rejects.toThrow(/exited/);
    const fresh = new Summary(options);
    const back = await pool.learn(fresh.onlineOptions, fresh.takeOnline(), [frame]);
    fresh.putOnline(back);
    expect(fresh.forest!.rowCount).toBe(400);
  });
});

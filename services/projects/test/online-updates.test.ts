/**
 * OnlineUpdates' scheduling, without threads: the runner here is learnOnline itself, held until
 * the test lets it go, so the order, the backlog and the failure path are seen one step at a
 * time. The threads themselves (OnlinePool) run in online-isolation.e2e.test.ts.
 */
import { Summary, forestOptionsOf, learnOnline, type OnlineFrame, type OnlineOptions, type OnlineState } from '@sml/stats';
import { OnlineUpdates } from '../src/predict/online-updates';

const options = { forest: forestOptionsOf({ rf_type: 'rf_regressor', rf_target_name: 'y', rf_features: 'x', rf_num_trees: '3' })! };
const batch = (k: number) => ({ attributeNames: ['x', 'y'], attributeTypes: ['C', 'C'], data: Array.from({ length: 5 }, (_, i) => [String(k * 10 + i), String(i % 3)]) });

/** A runner whose calls wait for `release()`; each call's frames are recorded in order. */
function heldRunner() {
  const calls: Array<{ frames: OnlineFrame[]; go: () => void; fail: (err: Error) => void }> = [];
  const run = (o: OnlineOptions, state: OnlineState, frames: OnlineFrame[]) => new Promise<OnlineState>((resolve, reject) => {
    calls.push({ frames, go: () => resolve(learnOnline(o, structuredClone(state), frames)), fail: reject });
  });
  return { calls, run };
}
const tick = () => new Promise((resolve) => setImmediate(resolve));

function commit(s: Summary, updates: OnlineUpdates, k: number): void {
  const change = s.prepare('learn', { frame: batch(k) }, {}, true);
  change.commit();
  updates.add(change.online!);
}

test('one update at a time, in commit order; reads wait for settled(); the result is Summary.learn\'s', async () => {
  const s = new Summary(options);
  const { calls, run } = heldRunner();
  const updates = new OnlineUpdates(s, run, () => { throw new Error('not lost'); });
  for (const k of [1, 2, 3]) commit(s, updates, k);
  expect(updates.pending).toBe(3);
  await tick();
  expect(calls).toHaveLength(1);
  // The forest is out meanwhile: nothing reads it.
  expect(() => s.serialize()).toThrow(/another thread/);
  let settled = false;
  void updates.settled().then(() => (settled = true));
  for (let k = 0; k < 3; k++) {
    await tick();
    expect(calls).toHaveLength(k + 1);
    expect(settled).toBe(false);
    calls[k].go();
  }
  await updates.settled();
  expect(settled).toBe(true);
  expect(updates.pending).toBe(0);
  const reference = new Summary(options);
  for (const k of [1, 2, 3]) reference.learn(batch(k));
  expect(Buffer.from(s.serialize()).equals(Buffer.from(reference.serialize()))).toBe(true);
});

test('below(n) resolves once fewer than n updates are pending (the learn backlog)', async () => {
  const s = new Summary(options);
  const { calls, run } = heldRunner();
  const updates = new OnlineUpdates(s, run, () => undefined);
  commit(s, updates, 1);
  commit(s, updates, 2);
  let room = false;
  void updates.below(2).then(() => (room = true));
  await tick();
  expect(room).toBe(false);
  calls[0].go();
  await tick();
  await tick();
  expect(room).toBe(true);
  expect(updates.pending).toBe(1);
  await tick();
  calls[1].go();
  await updates.settled();
});

test('a failed update loses the state: onLost is told once, queued updates are dropped, settled() rejects', async () => {
  const s = new Summary(options);
  const { calls, run } = heldRunner();
  const lost: Error[] = [];
  const updates = new OnlineUpdates(s, run, (err) => lost.push(err));
  commit(s, updates, 1);
  commit(s, updates, 2);
  const waiting = updates.settled();
  await tick();
  calls[0].fail(new Error('the online-model thread exited (code 1)'));
  await expect(waiting).rejects.toThrow(/exited/);
  expect(lost.map((e) => e.message)).toEqual(['the online-model thread exited (code 1)']);
  expect(calls).toHaveLength(1);
  expect(updates.pending).toBe(0);
  await expect(updates.below(5)).rejects.toThrow(/exited/);
});

import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { ALGORITHMS, ModelInputError, Summary, type Model } from '@sml/stats';
import { PredictPool } from '../src/predict/predict-pool';

// The predict thread (predict-pool.ts, on the built predict-worker.js): the same predictions and
// errors as inline, each model's state sent once per revision, a dead thread replaced.
describe('PredictPool', () => {
  const names = ['a', 'b', 'c'];
  const summary = new Summary();
  summary.learn({ attributeNames: names, attributeTypes: ['C', 'C', 'C'], data: Array.from({ length: 60 }, (_, i) => [String(i % 7), String((i * 3) % 11), String(Math.sin(i))]) });
  const covest = (params: Record<string, string> = {}): Model => ALGORITHMS.covest.build(summary, { algo: 'covest', inputs: [0, 1, 2], targets: [], params });
  const frame = { names, rows: Array.from({ length: 25 }, (_, i) => [String(i), String(-i), String(i / 3)]) };
  const pool = new PredictPool(join(__dirname, '../dist/predict/predict-worker.js'));
  afterAll(() => pool.stop());

  it('predicts what the model predicts inline; the state goes once per revision', async () => {
    const posted = jest.spyOn(Worker.prototype, 'postMessage');
    try {
      const model = covest();
      expect(await pool.predict('u.p.m', 1, model, frame)).toEqual(model.predict(frame));
      expect(await pool.predict('u.p.m', 1, model, frame)).toEqual(model.predict(frame));
      const other = covest({ estimate_type: 'empirical' });
      expect(await pool.predict('u.p.m', 2, other, frame)).toEqual(other.predict(frame));
      expect(other.predict(frame)).not.toEqual(model.predict(frame));
      const states = posted.mock.calls.map(([task]) => (task as { state?: unknown }).state !== undefined);
      expect(states).toEqual([true, false, true]);
    } finally {
      posted.mockRestore();
    }
  });

  it("the thread's errors come back as inline's: a ModelInputError as one (400 MODEL_INPUT), others with their message", async () => {
    // A state the thread cannot restore stands in for a failing predict (the same path back).
    const fake = (algo: string): Model => ({ ...covest(), algo, state: () => ({}) });
    const restore = (algo: string) => {
      try {
        ALGORITHMS[algo].restore({});
      } catch (err) {
        return err as Error;
      }
      throw new Error('restored');
    };
    // A steps-layout mc whose column the frame lacks: restored there, its predict refuses the frame (a ModelInputError).
    const mcState = { algo: 'mc', inputNames: ['w'], targetNames: [], info: {}, extra: {}, layout: 'steps', order: 1, initialKind: 'starts', initial: [['s', 1]], chains: [[[['s'], [['s', 1]]]]] };
    const mc: Model = { ...covest(), algo: 'mc', state: () => mcState };
    const refused = new ModelInputError('mc: the frame has no column [w] (a steps-layout sequence is one column)');
    await expect(pool.predict('u.p.e', 1, mc, frame)).rejects.toEqual(refused);
    await expect(pool.predict('u.p.e', 2, mc, frame)).rejects.toBeInstanceOf(ModelInputError);
    await expect(pool.predict('u.p.c', 1, fake('covest'), frame)).rejects.toThrow(restore('covest').message);
  });

  it('remembers the sent revisions of the 64 models used last, not of every model ever predicted; a forgotten one is sent again', async () => {
    const model = covest();
    const posted = jest.spyOn(Worker.prototype, 'postMessage');
    try {
      for (let i = 0; i < 100; i++) await pool.predict(`u.p.many${i}`, 1, model, frame);
      expect(pool.remembered).toBe(64);
      posted.mockClear();
      await pool.predict('u.p.many99', 1, model, frame); // remembered: no state
      await pool.predict('u.p.many0', 1, model, frame); // forgotten: its state again
      expect(posted.mock.calls.map(([task]) => (task as { state?: unknown }).state !== undefined)).toEqual([false, true]);
    } finally {
      posted.mockRestore();
    }
  });

  it('with two threads, a predict goes to the idle one: two at once run on both; each model is sent once per thread', async () => {
    const two = new PredictPool(join(__dirname, '../dist/predict/predict-worker.js'), 2);
    const posted = jest.spyOn(Worker.prototype, 'postMessage');
    try {
      const model = covest();
      const both = await Promise.all([two.predict('u.p.x', 1, model, frame), two.predict('u.p.x', 1, model, frame)]);
      expect(both).toEqual([model.predict(frame), model.predict(frame)]);
      const workers = new Set(posted.mock.instances);
      expect(workers.size).toBe(2); // one task each
      expect(posted.mock.calls.every(([task]) => (task as { state?: unknown }).state !== undefined)).toBe(true);
      posted.mockClear();
      // One at a time: the first thread (idle, holding the model) takes it, without the state.
      expect(await two.predict('u.p.x', 1, model, frame)).toEqual(model.predict(frame));
      expect(posted.mock.calls.map(([task]) => (task as { state?: unknown }).state !== undefined)).toEqual([false]);
      expect(two.remembered).toBe(2);
    } finally {
      posted.mockRestore();
      await two.stop();
    }
  });

  it('a model the thread dropped (it keeps the latest 8) is answered missing, then sent again with its state', async () => {
    const model = covest();
    for (let i = 0; i < 9; i++) await pool.predict(`u.p.kept${i}`, 1, model, frame);
    const posted = jest.spyOn(Worker.prototype, 'postMessage');
    try {
      expect(await pool.predict('u.p.kept0', 1, model, frame)).toEqual(model.predict(frame));
      expect(posted.mock.calls.map(([task]) => (task as { state?: unknown }).state !== undefined)).toEqual([false, true]);
    } finally {
      posted.mockRestore();
    }
  });

  it('a thread that died is replaced, and sent the model again', async () => {
    const model = covest();
    await pool.predict('u.p.k', 7, model, frame);
    await (pool as unknown as { threads: Array<{ calls: { worker: Worker } }> }).threads[0].calls.worker.terminate();
    expect(await pool.predict('u.p.k', 7, model, frame)).toEqual(model.predict(frame));
  });
});

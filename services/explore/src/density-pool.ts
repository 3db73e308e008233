import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ExploreInputError, type DensityResult, type Summary } from '@sml/stats';
import { computeDensity, type DensityTask } from './density-task';

/**
 * The `tps` thread pool of densityEstimate (API.md §6): the entries of one request are spread
 * over up to `tps` worker threads (never more than the machine's cores), each computing its
 * share from the same summary. One entry, or tps = 1, is computed inline.
 */
export class DensityPool {
  private readonly idle: Worker[] = [];
  private readonly all: Worker[] = [];

  constructor(private readonly size = availableParallelism()) {}

  async run(summary: Summary, bytes: Uint8Array, tasks: DensityTask[], tps: number): Promise<DensityResult[]> {
    const parallel = Math.min(tps, this.size, tasks.length);
    if (parallel <= 1) return tasks.map((t) => computeDensity(summary, t));
    const shares: number[][] = Array.from({ length: parallel }, () => []);
    tasks.forEach((_, i) => shares[i % parallel].push(i));
    const out = new Array<DensityResult>(tasks.length);
    await Promise.all(shares.map(async (share) => {
      const worker = this.take();
      try {
        const results = await call(worker, bytes, share.map((i) => tasks[i]));
        share.forEach((i, k) => (out[i] = results[k]));
      } finally {
        this.idle.push(worker);
      }
    }));
    return out;
  }

  async stop(): Promise<void> {
    await Promise.all(this.all.map((w) => w.terminate()));
  }

  private take(): Worker {
    const worker = this.idle.pop();
    if (worker) return worker;
    const created = new Worker(join(__dirname, 'density-worker.js'));
    created.unref();
    this.all.push(created);
    return created;
  }
}

function call(worker: Worker, bytes: Uint8Array, tasks: DensityTask[]): Promise<DensityResult[]> {
  return new Promise((resolve, reject) => {
    const onMessage = (msg: { results?: DensityResult[]; error?: { name: string; message: string } }) => {
      worker.off('error', onError);
      if (msg.results) resolve(msg.results);
      else reject(msg.error?.name === 'ExploreInputError' ? new ExploreInputError(msg.error.message) : new Error(msg.error?.message));
    };
    const onError = (err: Error) => {
      worker.off('message', onMessage);
      reject(err);
    };
    worker.once('message', onMessage);
    worker.once('error', onError);
    worker.postMessage({ bytes, tasks });
  });
}

import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { onlineTransferList, type OnlineFrame, type OnlineOptions, type OnlineState } from '@sml/stats';

/** What an online-model thread is asked (online-worker.ts): learn `frames` into `state`. */
export interface OnlineTask {
  id: number;
  options: OnlineOptions;
  state: OnlineState;
  frames: OnlineFrame[];
}

export type OnlineReply = { id: number; state?: OnlineState; error?: string };

/** Learns frames into online models' state somewhere else and hands the state back (OnlinePool.learn). */
export type OnlineRunner = (options: OnlineOptions, state: OnlineState, frames: OnlineFrame[]) => Promise<OnlineState>;

/**
 * Threads on which the online models (rf_* forest, cluster_* micro-clusters) of projects learn
 * their batches (SML_ONLINE_MODEL_THREADS, default 1): a 5 000-row batch into a forest of 100
 * trees over 40 features takes ≈ 1.4 s, which on the event loop held every other customer's
 * requests that long. Each task carries the models' state there and back (the forest's arrays
 * transferred, not copied: OnlineUpdates takes it out of the summary meanwhile), so a thread
 * holds no project and a task goes to the thread with the fewest waiting. A thread that dies
 * fails what it held (those states are lost: their projects reload what is durable) and is
 * started again on the next task.
 */
export class OnlinePool {
  private readonly threads: OnlineThread[];

  constructor(script = join(__dirname, 'online-worker.js'), threads = 1) {
    this.threads = Array.from({ length: Math.max(1, threads) }, () => new OnlineThread(script));
  }

  readonly learn: OnlineRunner = (options, state, frames) =>
    this.threads.reduce((best, t) => (t.waiting < best.waiting ? t : best)).call(options, state, frames);

  async stop(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.stop()));
  }
}

class OnlineThread {
  private worker?: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (s: OnlineState) => void; reject: (err: Error) => void }>();

  constructor(private readonly script: string) {}

  get waiting(): number {
    return this.pending.size;
  }

  call(options: OnlineOptions, state: OnlineState, frames: OnlineFrame[]): Promise<OnlineState> {
    const worker = this.thread();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      const task: OnlineTask = { id, options, state, frames };
      worker.postMessage(task, onlineTransferList(state));
    });
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    for (const waiting of this.pending.values()) waiting.reject(new Error('the projects service is stopping'));
    this.pending.clear();
    await worker?.terminate();
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.script);
    worker.unref();
    worker.on('message', (reply: OnlineReply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (reply.state) waiting?.resolve(reply.state);
      else waiting?.reject(new Error(reply.error ?? 'the online-model thread answered nothing'));
    });
    const fail = (err: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      for (const waiting of this.pending.values()) waiting.reject(err);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the online-model thread exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }
}

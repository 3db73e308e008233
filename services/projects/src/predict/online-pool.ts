import { join } from 'node:path';
import { onlineTransferList, type OnlineFrame, type OnlineOptions, type OnlineState } from '@sml/stats';
import { WorkerCalls } from './worker-calls';

/** What an online-model thread is asked (online-worker.ts): learn `frames` into `state`. */
export interface OnlineTask {
  id: number;
  options: OnlineOptions;
  state: OnlineState;
  frames: OnlineFrame[];
}

/** An online-model thread's answer: the state the frames were learned into, or the error's message. */
export type OnlineReply = { id: number } & ({ state: OnlineState } | { error: string });

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
  private readonly calls: WorkerCalls<Omit<OnlineTask, 'id'>, OnlineReply>;

  constructor(script: string) {
    this.calls = new WorkerCalls(script, 'the online-model thread');
  }

  get waiting(): number {
    return this.calls.waiting;
  }

  async call(options: OnlineOptions, state: OnlineState, frames: OnlineFrame[]): Promise<OnlineState> {
    const reply = await this.calls.call({ options, state, frames }, onlineTransferList(state));
    if ('state' in reply) return reply.state;
    throw new Error(reply.error);
  }

  stop(): Promise<void> {
    return this.calls.stop();
  }
}

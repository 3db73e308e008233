import type { OnlineFrame, Summary } from '@sml/stats';
import type { OnlineRunner } from './online-pool';

/**
 * Batches a project has logged (or replayed) whose online models have not learned them yet,
 * at most: a learn beyond waits for the oldest before it is logged (Learning), so a customer
 * who sends batches faster than their forest learns them holds this many batches' columns in
 * memory, and waits — not other customers.
 */
export const ONLINE_BACKLOG = 2;

/**
 * The online models' updates of one project's summary (forest, micro-clusters: Summary.prepare
 * with deferOnline), run elsewhere (an OnlineRunner: the process's OnlinePool) one at a time in
 * the order the batches were committed, so the models learn exactly what Summary.learn would
 * have made of the same batches in the same order. While one runs, the models' state is out of
 * the summary (takeOnline): whatever reads the summary waits for `settled()` first (the
 * registry does, for every operation but learn and forget themselves).
 *
 * If an update fails (its thread died, the process is stopping), the state it carried is gone:
 * `onLost` is told (the registry drops the project, whose next use reloads it from its snapshot
 * and log) and `settled()` rejects from then on.
 */
export class OnlineUpdates {
  private readonly queue: OnlineFrame[] = [];
  private running = false;
  private lostWith?: Error;
  /** Called (and replaced) whenever an update ends: what settled() and below() wait on. */
  private wake: () => void = () => undefined;
  private woken: Promise<void> = Promise.resolve();

  constructor(private readonly summary: Summary, private readonly run: OnlineRunner, private readonly onLost: (err: Error) => void) {
    this.rearm();
  }

  /** Updates not yet done: queued, and the one running. */
  get pending(): number {
    return this.queue.length + (this.running ? 1 : 0);
  }

  get lost(): Error | undefined {
    return this.lostWith;
  }

  /** Queues the online models' learning of a committed batch. */
  add(frame: OnlineFrame): void {
    if (this.lostWith) return;
    this.queue.push(frame);
    if (!this.running) void this.drain();
  }

  /** Resolves once every update queued so far is done (the models are back in the summary); rejects when they were lost. */
  async settled(): Promise<void> {
    await this.below(1);
  }

  /** Resolves once fewer than `n` updates are pending; rejects when the models were lost. */
  async below(n: number): Promise<void> {
    for (;;) {
      if (this.lostWith) throw this.lostWith;
      if (this.pending < n) return;
      await this.woken;
    }
  }

  private rearm(): void {
    this.woken = new Promise((resolve) => {
      this.wake = resolve;
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (this.queue.length > 0) {
      const frame = this.queue.shift()!;
      const state = this.summary.takeOnline();
      try {
        this.summary.putOnline(await this.run(this.summary.onlineOptions, state, [frame]));
      } catch (err) {
        this.lostWith = err instanceof Error ? err : new Error(String(err));
        this.queue.length = 0;
        this.onLost(this.lostWith);
      }
      // Waiters look again (one of them may have been waiting for this one to end).
      const wake = this.wake;
      this.rearm();
      wake();
    }
    this.running = false;
    const wake = this.wake;
    this.rearm();
    wake();
  }
}

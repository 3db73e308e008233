import { smlError, type Config } from '@sml/core';

/**
 * A service's job executor from its config: SML_EXECUTOR_CONCURRENCY slots, SML_EXECUTOR_QUEUE
 * waiting, at most SML_EXECUTOR_PER_CUSTOMER running per customer and half the queue waiting.
 */
/** What executorOf reads of the configuration (with SML_JOB_HEARTBEAT_MS, the JobRunner's): a process that runs jobs loads this slice. */
export const JOB_RUNNER_CONFIG = ['SML_EXECUTOR_CONCURRENCY', 'SML_EXECUTOR_QUEUE', 'SML_EXECUTOR_PER_CUSTOMER', 'SML_JOB_HEARTBEAT_MS'] as const satisfies readonly (keyof Config)[];

export function executorOf(service: string, config: Pick<Config, 'SML_EXECUTOR_CONCURRENCY' | 'SML_EXECUTOR_QUEUE' | 'SML_EXECUTOR_PER_CUSTOMER'>): BoundedExecutor {
  return new BoundedExecutor(service, config.SML_EXECUTOR_CONCURRENCY, config.SML_EXECUTOR_QUEUE, {
    perOwner: config.SML_EXECUTOR_PER_CUSTOMER,
    perOwnerQueue: Math.max(1, Math.ceil(config.SML_EXECUTOR_QUEUE / 2)),
  });
}

export interface ExecutorTask {
  id: string;
  /** Whose task it is (the customer): the executor shares its slots fairly between owners. */
  owner?: string;
  run(signal: AbortSignal): Promise<void>;
  /** Called when the task is queued and each time its queue position changes (1 = next). */
  onQueued?(position: number, queueSize: number): void;
}

export interface ExecutorOptions {
  /** Tasks of one owner running at once (default: all slots). */
  perOwner?: number;
  /** Tasks of one owner waiting at once (default: the whole queue). */
  perOwnerQueue?: number;
}

/**
 * Runs at most `concurrency` tasks at once and keeps at most `queueLength` waiting. A full
 * queue refuses the task (503 EXECUTOR_FULL) rather than dropping it later.
 *
 * Shared fairly between owners (customers): one owner runs at most `perOwner` tasks and
 * queues at most `perOwnerQueue`, and a free slot goes to the waiting owner who started a
 * task least recently, so one customer's long jobs cannot starve another's.
 */
export class BoundedExecutor {
  private readonly queue: ExecutorTask[] = [];
  private readonly running = new Map<string, { ctl: AbortController; owner: string }>();
  /** Owner → start counter of its latest task (round robin). */
  private readonly lastStart = new Map<string, number>();
  private starts = 0;
  private readonly perOwner: number;
  private readonly perOwnerQueue: number;

  constructor(readonly name: string, readonly concurrency: number, readonly queueLength: number, opts: ExecutorOptions = {}) {
    this.perOwner = opts.perOwner ?? concurrency;
    this.perOwnerQueue = opts.perOwnerQueue ?? queueLength;
  }

  get queueSize(): number {
    return this.queue.length;
  }

  get activeCount(): number {
    return this.running.size;
  }

  /** Whether `submit` would accept a task of `owner` now. */
  canAccept(owner = ''): boolean {
    const queued = this.queue.filter((t) => (t.owner ?? '') === owner).length;
    if (queued >= this.perOwnerQueue && !(this.queue.length === 0 && this.startable(owner))) return false;
    return (this.running.size < this.concurrency && this.startable(owner)) || this.queue.length < this.queueLength;
  }

  submit(task: ExecutorTask): void {
    if (!this.canAccept(task.owner)) throw smlError('EXECUTOR_FULL', { service: this.name, queueSize: this.queue.length });
    this.queue.push(task);
    this.pump();
    const position = this.queue.indexOf(task);
    if (position >= 0) task.onQueued?.(position + 1, this.queue.length);
  }

  /** Removes a queued task or aborts a running one; false when the id is unknown here. */
  cancel(id: string): boolean {
    const i = this.queue.findIndex((t) => t.id === id);
    if (i >= 0) {
      const [task] = this.queue.splice(i, 1);
      const ctl = new AbortController();
      ctl.abort();
      void task.run(ctl.signal).catch(() => undefined);
      this.announcePositions(i);
      return true;
    }
    const entry = this.running.get(id);
    entry?.ctl.abort();
    return entry !== undefined;
  }

  private runningOf(owner: string): number {
    let n = 0;
    for (const r of this.running.values()) if (r.owner === owner) n++;
    return n;
  }

  private startable(owner: string): boolean {
    return this.runningOf(owner) < this.perOwner;
  }

  /** The queued task to start next: of the owner under its share who started least recently (FIFO within an owner). */
  private next(): number {
    let best = -1;
    let bestTurn = Infinity;
    const considered = new Set<string>();
    for (let i = 0; i < this.queue.length; i++) {
      const owner = this.queue[i].owner ?? '';
      if (considered.has(owner)) continue;
      considered.add(owner);
      if (!this.startable(owner)) continue;
      const turn = this.lastStart.get(owner) ?? -1;
      if (turn < bestTurn) {
        best = i;
        bestTurn = turn;
      }
    }
    return best;
  }

  private pump(): void {
    let started = false;
    while (this.running.size < this.concurrency && this.queue.length > 0) {
      const i = this.next();
      if (i < 0) break;
      const [task] = this.queue.splice(i, 1);
      const owner = task.owner ?? '';
      const ctl = new AbortController();
      this.running.set(task.id, { ctl, owner });
      this.lastStart.set(owner, this.starts++);
      started = true;
      void task.run(ctl.signal).catch(() => undefined).finally(() => {
        this.running.delete(task.id);
        if (this.runningOf(owner) === 0 && !this.queue.some((t) => (t.owner ?? '') === owner)) this.lastStart.delete(owner);
        this.pump();
      });
    }
    if (started) this.announcePositions(0);
  }

  private announcePositions(from: number): void {
    for (let i = from; i < this.queue.length; i++) this.queue[i].onQueued?.(i + 1, this.queue.length);
  }
}

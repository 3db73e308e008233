import { smlError } from '@sml/core';

export interface ExecutorTask {
  id: string;
  run(signal: AbortSignal): Promise<void>;
  /** Called when the task is queued and each time its queue position changes (1 = next). */
  onQueued?(position: number, queueSize: number): void;
}

/**
 * Runs at most `concurrency` tasks at once and keeps at most `queueLength` waiting. A full
 * queue refuses the task (503 EXECUTOR_FULL) rather than dropping it later.
 */
export class BoundedExecutor {
  private readonly queue: ExecutorTask[] = [];
  private readonly running = new Map<string, AbortController>();

  constructor(readonly name: string, readonly concurrency: number, readonly queueLength: number) {}

  get queueSize(): number {
    return this.queue.length;
  }

  get activeCount(): number {
    return this.running.size;
  }

  /** Whether `submit` would accept a task now. */
  canAccept(): boolean {
    return this.running.size < this.concurrency || this.queue.length < this.queueLength;
  }

  submit(task: ExecutorTask): void {
    if (!this.canAccept()) throw smlError('EXECUTOR_FULL', { service: this.name, queueSize: this.queue.length });
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
    const ctl = this.running.get(id);
    ctl?.abort();
    return ctl !== undefined;
  }

  private pump(): void {
    let started = false;
    while (this.running.size < this.concurrency && this.queue.length > 0) {
      const task = this.queue.shift()!;
      const ctl = new AbortController();
      this.running.set(task.id, ctl);
      started = true;
      void task.run(ctl.signal).catch(() => undefined).finally(() => {
        this.running.delete(task.id);
        this.pump();
      });
    }
    if (started) this.announcePositions(0);
  }

  private announcePositions(from: number): void {
    for (let i = from; i < this.queue.length; i++) this.queue[i].onQueued?.(i + 1, this.queue.length);
  }
}

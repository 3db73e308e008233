import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { SmlError } from '@sml/core';
import { SourceError } from '@sml/sources';
import type { ReadBatch, ReadFailure, ReadTask, WorkerMessage } from './read-worker';

function rebuilt(failure: ReadFailure): Error {
  if ('smlError' in failure) return new SmlError(failure.smlError.code, failure.smlError.status, failure.smlError.message, failure.smlError.retryable);
  if ('source' in failure) return new SourceError(failure.source.reason, failure.source.message);
  return new Error(failure.error);
}

/** Idle reading threads kept for the next job (starting one loads the source clients: ~0.5 s of CPU). */
const KEEP_IDLE = 2;

/**
 * Threads that read and parse CSV data sources (read-worker.ts), one per running job (the
 * job executor bounds how many), kept for the next job when the read ended cleanly. A cancel
 * or a caller that stops early terminates the thread: nothing of its read survives it.
 */
export class DsReaders {
  private readonly idle: Worker[] = [];

  constructor(private readonly script = join(__dirname, 'read-worker.js')) {}

  /**
   * The batches of the source, parsed on a reading thread: the thread reads ahead at most a
   * batch or two and waits for this generator to be asked for the next one. A failure there
   * is thrown here as the same error.
   */
  async *read(task: ReadTask, signal: AbortSignal): AsyncGenerator<ReadBatch> {
    const worker = this.idle.pop() ?? new Worker(this.script);
    worker.unref(); // an idle reader never keeps the service alive
    const queue: WorkerMessage[] = [];
    let notify: (() => void) | null = null;
    let stopped: Error | null = null;
    let ended = false;
    const wake = () => {
      notify?.();
      notify = null;
    };
    const onMessage = (m: WorkerMessage) => {
      queue.push(m);
      wake();
    };
    const onError = (err: Error) => {
      stopped ??= err;
      wake();
    };
    const onExit = (code: number) => {
      stopped ??= new Error(`the reading thread stopped (exit code ${code})`);
      wake();
    };
    const onAbort = () => void worker.terminate();
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      worker.postMessage({ start: task });
      for (;;) {
        while (queue.length === 0) {
          // (Set by the thread's listeners: TypeScript cannot see those assignments.)
          const failure = stopped as Error | null;
          if (failure) throw failure;
          await new Promise<void>((resolve) => (notify = resolve));
        }
        const m = queue.shift()!;
        if ('done' in m) {
          ended = true;
          return;
        }
        if ('failure' in m) {
          ended = true;
          throw rebuilt(m.failure);
        }
        yield m.batch;
        worker.postMessage({ ack: true });
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      if (ended && (stopped as Error | null) === null && !signal.aborted && this.idle.length < KEEP_IDLE) this.idle.push(worker);
      else await worker.terminate();
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.idle.splice(0).map((w) => w.terminate()));
  }
}

import { parentPort, Worker } from 'node:worker_threads';
import { SmlError, smlError, type ErrorCode } from '@sml/core';

/** What a job worker thread answers: the result, or the error as data. */
type Reply<T> = { result: T } | { smlError: { code: ErrorCode; status: number; message: string; retryable: boolean } } | { error: string };

/**
 * Worker threads for the CPU-heavy part of jobs (a PCA, a model build at thousands of
 * attributes: tens of seconds): on the service's own thread that time would hold every other
 * customer's requests. One worker per running job (the job executor bounds how many), reused
 * afterwards; cancelling the job (its signal) terminates its worker at once, so cancel really
 * stops the work. An SmlError thrown in the worker fails the job exactly as it would inline.
 */
export class JobWorkers<Task, Result> {
  private readonly idle: Worker[] = [];
  private readonly all = new Set<Worker>();

  /** `script`: the compiled worker module, which calls `serveJobTasks`. */
  constructor(private readonly script: string) {}

  async run(task: Task, signal: AbortSignal): Promise<Result> {
    if (signal.aborted) throw smlError('JOB_CANCELLED');
    const worker = this.idle.pop() ?? this.spawn();
    let healthy = true;
    try {
      return await new Promise<Result>((resolve, reject) => {
        const onAbort = () => {
          healthy = false;
          void worker.terminate();
          reject(smlError('JOB_CANCELLED'));
        };
        const onError = (err: Error) => {
          healthy = false;
          signal.removeEventListener('abort', onAbort);
          worker.off('message', onMessage);
          reject(err);
        };
        const onMessage = (reply: Reply<Result>) => {
          signal.removeEventListener('abort', onAbort);
          worker.off('error', onError);
          if ('result' in reply) resolve(reply.result);
          else if ('smlError' in reply) reject(new SmlError(reply.smlError.code, reply.smlError.status, reply.smlError.message, reply.smlError.retryable));
          else reject(new Error(reply.error));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        worker.once('message', onMessage);
        worker.once('error', onError);
        worker.postMessage(task);
      });
    } finally {
      if (healthy) this.idle.push(worker);
      else this.all.delete(worker);
    }
  }

  async stop(): Promise<void> {
    await Promise.all([...this.all].map((w) => w.terminate()));
  }

  private spawn(): Worker {
    const worker = new Worker(this.script);
    worker.unref();
    this.all.add(worker);
    return worker;
  }
}

/**
 * The worker side of JobWorkers: answers each task with `handle`'s result; what it throws is
 * turned into an SmlError by `toSmlError` (domain errors → their 4xx) and sent back as data.
 */
export function serveJobTasks<Task, Result>(handle: (task: Task) => Promise<Result> | Result, toSmlError: (err: unknown) => unknown = (e) => e): void {
  parentPort!.on('message', (task: Task) => {
    void (async () => {
      try {
        parentPort!.postMessage({ result: await handle(task) });
      } catch (thrown) {
        const err = toSmlError(thrown);
        parentPort!.postMessage(err instanceof SmlError
          ? { smlError: { code: err.code, status: err.status, message: err.message, retryable: err.retryable } }
          : { error: err instanceof Error ? err.message : String(err) });
      }
    })();
  });
}

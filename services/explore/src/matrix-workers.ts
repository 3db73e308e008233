import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { SmlError, smlError, type ErrorCode } from '@sml/core';
import type { sml } from '@sml/proto';
import type { MatrixTask } from './matrix-worker';

type Reply = { result?: sml.v1.IJobResult; smlError?: { code: ErrorCode; status: number; message: string; retryable: boolean }; error?: string };

/**
 * Worker threads for matrix explorations (PCA, SVD, SVD-FS, VIF): a decomposition at 2000
 * attributes takes tens of seconds, and on the service's own thread it would hold every other
 * customer's explore requests that long. One worker per running job (the job executor bounds
 * how many), reused; cancelling the job terminates its worker at once.
 */
export class MatrixWorkers {
  private readonly idle: Worker[] = [];
  private readonly all = new Set<Worker>();

  async run(task: MatrixTask, signal: AbortSignal): Promise<sml.v1.IJobResult> {
    if (signal.aborted) throw smlError('JOB_CANCELLED');
    const worker = this.idle.pop() ?? this.spawn();
    let healthy = true;
    try {
      return await new Promise<sml.v1.IJobResult>((resolve, reject) => {
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
        const onMessage = (reply: Reply) => {
          signal.removeEventListener('abort', onAbort);
          worker.off('error', onError);
          if (reply.result) resolve(reply.result);
          else if (reply.smlError) reject(new SmlError(reply.smlError.code, reply.smlError.status, reply.smlError.message, reply.smlError.retryable));
          else reject(new Error(reply.error ?? 'matrix worker failed'));
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
    const worker = new Worker(join(__dirname, 'matrix-worker.js'));
    worker.unref();
    this.all.add(worker);
    return worker;
  }
}

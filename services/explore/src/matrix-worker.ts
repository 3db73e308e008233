import { parentPort } from 'node:worker_threads';
import { SmlError } from '@sml/core';
import type { sml } from '@sml/proto';
import { Summary } from '@sml/stats';
import { toSmlError } from './errors';
import { matrixJobResult } from './matrix';

// A matrix worker (MatrixWorkers): one exploration at a time, off the service's event loop.
// Errors go back as data so the job fails exactly as it would inline.
export interface MatrixTask {
  bytes: Uint8Array;
  kind: string;
  separator: string;
  contexts: sml.v1.IMLContext[];
  pid: string;
}

parentPort!.on('message', (task: MatrixTask) => {
  try {
    const result = matrixJobResult(task.kind, Summary.deserialize(task.bytes), task.separator, task.contexts, task.pid);
    parentPort!.postMessage({ result });
  } catch (thrown) {
    const err = toSmlError(thrown);
    parentPort!.postMessage(err instanceof SmlError
      ? { smlError: { code: err.code, status: err.status, message: err.message, retryable: err.retryable } }
      : { error: (err as Error).message });
  }
});

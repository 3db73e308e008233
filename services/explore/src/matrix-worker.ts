import { serveJobTasks } from '@sml/jobs-client';
import type { sml } from '@sml/proto';
import { Summary } from '@sml/stats';
import { toSmlError } from '@sml/core';
import { matrixJobResult } from './matrix';

/** One matrix exploration, as sent to a matrix worker thread (JobWorkers). */
export interface MatrixTask {
  bytes: Uint8Array;
  kind: string;
  separator: string;
  contexts: sml.v1.IMLContext[];
  pid: string;
}

serveJobTasks((task: MatrixTask): sml.v1.IJobResult =>
  matrixJobResult(task.kind, Summary.deserialize(task.bytes), task.separator, task.contexts, task.pid), (err) => toSmlError(err));

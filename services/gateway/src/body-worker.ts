import { parentPort } from 'node:worker_threads';
import { STATS_KERNEL_CONFIG, loadConfig, statsKernels, verifySignature } from '@sml/core';
import { summarizeBatch } from '@sml/stats/batch';
import { readFrameColumns, selectKernels, type FrameColumnsData } from '@sml/stats/frames';
import { bodyDigests, type BodyReply, type BodyTask, type FrameOnly } from './body-threads';

// A thread entry point: the statistics kernels its configuration selects (as the main thread's).
selectKernels(statsKernels(loadConfig(process.env, STATS_KERNEL_CONFIG)));

// A BodyThreads thread: hashes or reads (and, given a recipe, summarises) each body it is
// sent, and hands the body back (transferred, as are the columns or summary it made: nothing is copied).
parentPort!.on('message', (task: BodyTask) => {
  const body = 'digest' in task ? task.digest.body : task.frame;
  const moved: ArrayBuffer[] = [body.buffer as ArrayBuffer];
  let reply: BodyReply;
  try {
    if ('digest' in task) {
      const digests = bodyDigests(task.digest);
      const frame = task.digest.frame;
      const signed = frame !== undefined && digests.signatures.some((expected) => verifySignature(expected, frame.authorization));
      reply = { id: task.id, body, digests, ...(signed ? { frame: readFrame(body, frame.recipe, moved) } : {}) };
    } else {
      reply = { id: task.id, body, ...readFrame(task.frame, task.recipe, moved) };
    }
  } catch (err) {
    reply = { id: task.id, body, error: err instanceof Error ? err.message : String(err) };
  }
  parentPort!.postMessage(reply, moved);
});

/** The frame's columns, or with a recipe its summary when worth sending; what they own joins `moved`. */
function readFrame(frame: Uint8Array, recipe: string | undefined, moved: ArrayBuffer[]): FrameOnly {
  const columns = readFrameColumns(frame);
  const batchSummary = columns !== null && recipe !== undefined ? summarizeBatch(recipe, columns) : null;
  if (batchSummary !== null) {
    moved.push(batchSummary.buffer as ArrayBuffer);
    return { columns: null, batchSummary };
  }
  if (columns) moved.push(...columnBuffers(columns));
  return { columns };
}

/** The memory of the columns' bytes, each once (a transfer list may not name one twice). */
function columnBuffers(columns: FrameColumnsData): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  for (const c of columns.numeric) out.add(c.values.buffer as ArrayBuffer);
  for (const c of columns.categorical) out.add(c.codes.buffer as ArrayBuffer);
  return [...out];
}

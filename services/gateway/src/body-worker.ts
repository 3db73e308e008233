import { parentPort } from 'node:worker_threads';
import { summarizeBatch } from '@sml/stats/batch';
import { readFrameColumns, type FrameColumnsData } from '@sml/stats/frames';
import { bodyDigests, type BodyReply, type BodyTask } from './body-threads';

// A BodyThreads thread: hashes or reads (and, given a recipe, summarises) each body it is
// sent, and hands the body back (transferred, as are the columns or summary it made: nothing is copied).
parentPort!.on('message', (task: BodyTask) => {
  const body = 'digest' in task ? task.digest.body : task.frame;
  const moved: ArrayBuffer[] = [body.buffer as ArrayBuffer];
  let reply: BodyReply;
  try {
    if ('digest' in task) {
      reply = { id: task.id, body, digests: bodyDigests(task.digest) };
    } else {
      const columns = readFrameColumns(task.frame);
      const batchSummary = columns !== null && task.recipe !== undefined ? summarizeBatch(task.recipe, columns) : null;
      if (batchSummary !== null) {
        moved.push(batchSummary.buffer as ArrayBuffer);
        reply = { id: task.id, body, columns: null, batchSummary };
      } else {
        if (columns) moved.push(...columnBuffers(columns));
        reply = { id: task.id, body, columns };
      }
    }
  } catch (err) {
    reply = { id: task.id, body, error: err instanceof Error ? err.message : String(err) };
  }
  parentPort!.postMessage(reply, moved);
});

/** The memory of the columns' bytes, each once (a transfer list may not name one twice). */
function columnBuffers(columns: FrameColumnsData): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  for (const c of columns.numeric) out.add(c.values.buffer as ArrayBuffer);
  for (const c of columns.categorical) out.add(c.codes.buffer as ArrayBuffer);
  return [...out];
}

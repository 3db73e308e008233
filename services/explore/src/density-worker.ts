import { parentPort } from 'node:worker_threads';
import { Summary } from '@sml/stats';
import { computeDensity, type DensityTask } from './density-task';

// A density worker of the pool: deserializes the summary it is sent and computes its share
// of the entries. Errors go back as data so the service answers the same as inline.
parentPort!.on('message', ({ bytes, tasks }: { bytes: Uint8Array; tasks: DensityTask[] }) => {
  try {
    const summary = Summary.deserialize(bytes);
    parentPort!.postMessage({ results: tasks.map((t) => computeDensity(summary, t)) });
  } catch (err) {
    parentPort!.postMessage({ error: { name: (err as Error).name, message: (err as Error).message } });
  }
});

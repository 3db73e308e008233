import { parentPort } from 'node:worker_threads';
import { ALGORITHMS, type Model, type PredictFrame } from '@sml/stats';
import type { PredictReply, PredictTask } from './predict-pool';

// A predict thread of the pool (predict-pool.ts): restores a model from the state it is sent
// (once per stored revision: it keeps the latest few), predicts the frame and answers the
// predictions, or the error as data so that the service answers exactly as inline.

/** Models kept restored here, least recently used dropped first. */
const KEPT = 8;
const models = new Map<string, { revision: number; model: Model }>();

function modelFor(task: PredictTask): Model | undefined {
  const held = models.get(task.key);
  models.delete(task.key);
  let model = held?.revision === task.revision ? held.model : undefined;
  if (!model && task.state !== undefined) model = ALGORITHMS[task.algo].restore(task.state);
  if (!model) return undefined;
  models.set(task.key, { revision: task.revision, model });
  if (models.size > KEPT) models.delete(models.keys().next().value!);
  return model;
}

/** Typed, so the pool reads exactly one of its kinds. */
const post = (reply: PredictReply) => parentPort!.postMessage(reply);

parentPort!.on('message', (task: PredictTask & { frame: PredictFrame }) => {
  try {
    const model = modelFor(task);
    if (!model) post({ id: task.id, missing: true });
    else post({ id: task.id, predictions: model.predict(task.frame) });
  } catch (err) {
    post({ id: task.id, error: { name: (err as Error).name, message: (err as Error).message } });
  }
});

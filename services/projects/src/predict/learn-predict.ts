import { SmlError, smlError } from '@sml/core';
import type { sml } from '@sml/proto';
import type { Prediction } from '@sml/stats';
import type { Learning } from '../learning/learning';
import { frameOf, type Models } from '../models/models';
import type { PredictFn } from './predict';

/**
 * learnpredict (API.md §12, SymetryML's prediction-api.md): the frame is learned exactly as
 * POST learn learns it (validated, in the project's durable log before the answer, the same
 * Idempotency-Key rule) and predicted with model `m` exactly as POST predict/{m} predicts it.
 * `predictBeforeLearn` (SymetryML's default) predicts first; `rebuildModel` rebuilds the model
 * from the summary (its algorithm, inputs, targets and parameters) once the frame is learned,
 * on a build worker thread. `keepColumns` copies those columns of each row into its
 * prediction (a prediction key of the same name wins). The model is checked (400) before
 * anything is learned.
 */
/**
 * The error of a predict that failed after its frame was learned says so: the learn is durable,
 * and sending the learnpredict again would learn the frame twice (unless it carries the same
 * Idempotency-Key). Not retryable as it stands, whatever the predict's failure was.
 */
function learnedThen(err: unknown, what: 'its predict' | 'the model\'s rebuild'): unknown {
  if (!(err instanceof SmlError)) return err;
  const next = what === 'its predict' ? 'Predict it with predict/{m}' : 'Rebuild the model with build';
  return new SmlError(err.code, err.status, `The frame was learned; then ${what} failed: ${err.message}. ${next}: sending this learnpredict again learns it again (unless with the same Idempotency-Key)`, false, { cause: err });
}

export async function learnPredict(deps: { learning: Learning; models: Models; predict: PredictFn }, user: string, pid: string, modelId: string,
  req: sml.v1.ILearnPredictRequest): Promise<Prediction[]> {
  const info = await deps.models.info(user, pid, modelId);
  const frame = frameOf(req.frame);
  // Refused before anything is learned (predictBeforeLearn=false learns first).
  await deps.models.checkPredictCost(user, pid, modelId, frame.rows.length);
  const keep = (req.keepColumns ?? []).map((c) => c.trim()).filter((c) => c !== '');
  const positions = keep.map((c) => {
    const k = frame.names.indexOf(c);
    if (k < 0) throw smlError('MODEL_INPUT', { detail: `keepColumns names [${c}], which the frame does not have` });
    return k;
  });
  const learn = async () => {
    await deps.learning.batch(user, pid, { caller: req.caller, pid, frame: req.frame, idempotencyKey: req.idempotencyKey ?? '' }, 'learn');
    if (!req.rebuildModel) return;
    try {
      const rebuild = await deps.models.plan(user, pid, modelId, {
        algo: info.algo, buildOnly: true,
        mlcontext: { inputAttributeNames: info.inputAttributeNames ?? [], targetAttributeNames: info.targetAttributeNames ?? [], extraParameters: info.params ?? {} },
      });
      await rebuild.run(new AbortController().signal);
    } catch (err) {
      throw learnedThen(err, 'the model\'s rebuild');
    }
  };
  const predict = () => deps.predict(user, pid, modelId, req.frame);
  let predictions: Prediction[];
  if (req.predictBeforeLearn) {
    predictions = await predict();
    await learn();
  } else {
    await learn();
    try {
      predictions = await predict();
    } catch (err) {
      throw learnedThen(err, 'its predict');
    }
  }
  if (positions.length === 0) return predictions;
  return predictions.map((p, r) => ({ ...Object.fromEntries(keep.map((c, j) => [c, frame.rows[r]?.[positions[j]] ?? ''])), ...p }));
}

import type { sml } from '@sml/proto';
import type { Prediction } from '@sml/stats';
import type { ProjectEncoders } from './encoding';
import { frameOf, type Models } from './models';
import type { ProjectRegistry } from './registry';

/** Predictions of a frame's rows with a model: what `POST /projects/{p}/predict/{m}` answers, and what dss/predict writes per batch. */
export type PredictFn = (user: string, pid: string, modelId: string, frame: sml.v1.IDataFrame | null | undefined) => Promise<Prediction[]>;

/** The predict of `POST /projects/{p}/predict/{m}`: a project with an encoder predicts its S/L columns encoded, as it learned them. */
export function predictor(deps: { registry: ProjectRegistry; encoders: ProjectEncoders; models: Models }): PredictFn {
  return async (user, pid, modelId, frame) => {
    const encoder = await deps.registry.with(user, pid, (p) => p.meta.encoder);
    const encoded = encoder ? await deps.encoders.encodeProto(user, encoder, frame) : frame;
    return deps.models.predict(user, pid, modelId, frameOf(encoded));
  };
}

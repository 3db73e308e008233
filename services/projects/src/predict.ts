import type { sml } from '@sml/proto';
import { frameFromColumns, type PredictFrame, type Prediction } from '@sml/stats';
import type { ProjectEncoders } from './encoding';
import { frameOf, type Models } from './models';
import type { ProjectRegistry } from './registry';

/**
 * Predictions of a frame's rows with a model: what `POST /projects/{p}/predict/{m}` answers, and
 * what dss/predict writes per batch. `columns`: the frame as the gateway's fast reader read it
 * (every column C or B), in place of `frame`.
 */
export type PredictFn = (user: string, pid: string, modelId: string, frame: sml.v1.IDataFrame | null | undefined, columns?: sml.v1.IFrameColumns | null) => Promise<Prediction[]>;

/** The predict of `POST /projects/{p}/predict/{m}`: a project with an encoder predicts its S/L columns encoded, as it learned them. */
export function predictor(deps: { registry: ProjectRegistry; encoders: ProjectEncoders; models: Models }): PredictFn {
  return async (user, pid, modelId, frame, columns) => {
    // Numeric columns only: an encoder (of S and L columns) has nothing to encode in them.
    if (columns) return deps.models.predict(user, pid, modelId, predictColumns(columns));
    const encoder = await deps.registry.with(user, pid, (p) => p.meta.encoder);
    const encoded = encoder ? await deps.encoders.encodeProto(user, encoder, frame) : frame;
    return deps.models.predict(user, pid, modelId, frameOf(encoded));
  };
}

/** A frame of numeric columns (frame-columns.ts, from the gateway) as the models read it: PredictFrame.columns. */
function predictColumns(columns: sml.v1.IFrameColumns): PredictFrame {
  const frame = frameFromColumns(columns);
  if (frame.categorical.length > 0) throw new Error('a predict frame as columns has numeric columns only');
  return { names: [...frame.names], rows: [], columns: { rowCount: frame.rows.length, values: new Map(frame.numeric.map((c) => [c.name, c.values])) } };
}

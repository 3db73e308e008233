import type { sml } from '@sml/proto';
import { dataFrameToProto } from '@sml/core';
import { frameFromColumns, rowsFromColumns, type PredictFrame, type Prediction } from '@sml/stats';
import type { ProjectEncoders } from '../learning/encoding';
import { frameOf, type Models } from '../models/models';
import type { ProjectRegistry } from '../lifecycle/registry';

/**
 * Predictions of a frame's rows with a model: what `POST /projects/{p}/predict/{m}` answers, and
 * what dss/predict writes per batch. `columns`: the frame as the gateway's fast reader read it
 * (every column C or B), in place of `frame`.
 */
export type PredictFn = (user: string, pid: string, modelId: string, frame: sml.v1.IDataFrame | null | undefined, columns?: sml.v1.IFrameColumns | null) => Promise<Prediction[]>;

/** The predict of `POST /projects/{p}/predict/{m}`: a project with an encoder predicts its S/L columns encoded, as it learned them. */
export function predictor(deps: { registry: ProjectRegistry; encoders: ProjectEncoders; models: Models }): PredictFn {
  return async (user, pid, modelId, frame, columns) => {
    const encoder = await deps.registry.with(user, pid, (p) => p.meta.encoder);
    if (columns && !encoder) return deps.models.predict(user, pid, modelId, predictColumns(columns));
    // An encoder reads rows: the columns go back to rows of text first (the same frame).
    const rows = columns ? dataFrameOfColumns(columns) : frame;
    const encoded = encoder ? await deps.encoders.encodeProto(user, encoder, rows) : rows;
    return deps.models.predict(user, pid, modelId, frameOf(encoded));
  };
}

/** The columns as the DataFrame the gateway would have sent without them. */
function dataFrameOfColumns(columns: sml.v1.IFrameColumns): sml.v1.IDataFrame {
  const frame = rowsFromColumns(predictColumns(columns));
  return dataFrameToProto({ attributeNames: frame.names, attributeTypes: [...(columns.types ?? [])], data: frame.rows });
}

/** A frame of numeric columns (frame-columns.ts, from the gateway) as the models read it: PredictFrame.columns. */
function predictColumns(columns: sml.v1.IFrameColumns): PredictFrame {
  const frame = frameFromColumns(columns);
  if (frame.numeric.length !== frame.names.length) throw new Error('a predict frame as columns has C and B columns only');
  return { names: [...frame.names], rows: [], columns: { rowCount: frame.rows.length, values: new Map(frame.numeric.map((c) => [c.name, c.values])) } };
}

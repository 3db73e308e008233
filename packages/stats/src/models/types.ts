import type { Summary } from '../summary';

/** What to build: attributes as summary indexes, parameters as the MLContext's extraParameters. */
export interface ModelSpec {
  algo: string;
  inputs: number[];
  targets: number[];
  params: Record<string, string>;
}

/** Rows to predict, as the REST DataFrame sends them (cells are text). */
export interface PredictFrame {
  names: string[];
  rows: string[][];
  /**
   * The same frame as numeric columns by name (NaN: a missing cell), in place of `rows`, which
   * is then empty: what the gateway's fast reader makes of a frame of C and B columns. Only a
   * model that `readsColumns` is given one (rowsFromColumns gives the others their rows).
   */
  columns?: PredictColumns;
}

export interface PredictColumns {
  rowCount: number;
  values: ReadonlyMap<string, Float64Array>;
}

/** One prediction: string values keyed as STATS.md §4 says for the algorithm. */
export type Prediction = Record<string, string>;

/**
 * A built model: a snapshot of the summary's statistics it was built from, so it answers
 * the same until rebuilt whatever the project learns afterwards.
 */
export interface Model {
  readonly algo: string;
  readonly inputNames: readonly string[];
  readonly targetNames: readonly string[];
  /** modelInfo.info: short facts (n, r2 …), as strings. */
  info(): Record<string, string>;
  /** modelInfo.extra: tables (coefficients, std errors …), as strings. */
  extra(): Record<string, string>;
  predict(frame: PredictFrame): Prediction[];
  /** predict reads PredictFrame.columns when the frame has them (numericRows): its numeric inputs only. */
  readonly readsColumns?: boolean;
  /**
   * For a model whose answer grows faster than the rows it predicts (hmm: the decoded sequence
   * on every row), an upper bound of the characters (keys and values) of the predictions of
   * `rows` rows, known before predicting. Other answers grow with the frame, which the request
   * body's limit bounds.
   */
  predictionChars?(rows: number): number;
  /**
   * For a model whose predict costs far more per row than reading it (hmm: Viterbi over every
   * pair of states; kmeans: every center; covest, mqda, repca, oospca: a quadratic form in the
   * inputs), an upper bound of the elementary steps of predicting `rows` rows; undefined when it
   * costs about what reading them does.
   */
  predictionSteps?(rows: number): number | undefined;
  /** Predicting changes the model (evt): its state must be stored again after each predict. */
  readonly stateful?: boolean;
  /** JSON-serializable state that `Algorithm.restore` turns back into the same model. */
  state(): unknown;
}

export interface Algorithm {
  readonly name: string;
  /** binary | multiclass | regression | anomaly | other: how selectModel assesses it. */
  readonly task: 'regression' | 'binary' | 'multiclass' | 'anomaly' | 'other';
  build(summary: Summary, spec: ModelSpec): Model;
  restore(state: unknown): Model;
}

/** Bad parameters or attributes: the message says which (HTTP 400). */
export class ModelInputError extends Error {
  override readonly name: string = 'ModelInputError';
  readonly kind: 'model-input' | 'singular' = 'model-input';
}

/** A singular or ill-conditioned system (STATS.md §4: the job fails with a 500 naming the collinear attributes). */
export class SingularSystemError extends ModelInputError {
  override readonly name = 'SingularSystemError';
  override readonly kind = 'singular';
}

/** Algorithms the API names but this build does not implement yet (HTTP 400, never "unknown"). */
export class ModelNotAvailableError extends Error {
  override readonly name = 'ModelNotAvailableError';
}

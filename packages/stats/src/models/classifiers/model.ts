import type { Summary } from '../../summary';
import { numericRows } from '../rows';
import { ModelInputError, type ModelSpec, type PredictFrame, type Prediction } from '../types';
import { StateModel } from '../base';

/**
 * What every classifier and anomaly detector keeps besides its own numbers: the names it
 * was built on, the means a missing input is imputed with (API.md §7) and modelInfo.
 */
export interface SnapshotState {
  algo: string;
  inputNames: string[];
  targetNames: string[];
  means: number[];
  info: Record<string, string>;
  extra: Record<string, string>;
}

/**
 * A model that is a JSON snapshot of the numbers it was built from plus a per-row rule,
 * so `restore(JSON.parse(JSON.stringify(state())))` predicts exactly as the original.
 */
export class SnapshotModel<S extends SnapshotState> extends StateModel<S> {
  constructor(
    s: S,
    private readonly predictRow: (x: Float64Array, state: S) => Prediction,
    /** The steps of predicting one row, when they are many more than its inputs (kmeans: every center; covest: p²): Model.predictionSteps. */
    private readonly stepsPerRow?: (state: S) => number,
  ) {
    super(s);
  }

  readonly readsColumns = true;

  predict(frame: PredictFrame): Prediction[] {
    return numericRows(frame, this.s.inputNames, this.s.means).map((x) => this.predictRow(x, this.s));
  }

  predictionSteps(rows: number): number | undefined {
    return this.stepsPerRow && rows * this.stepsPerRow(this.s);
  }
}

/**
 * A numeric extraParameter: `fallback` when absent, else the parsed value, which must pass
 * `valid` (`range` says in words what is valid, for the ModelInputError).
 */
export function numberParam(spec: ModelSpec, name: string, fallback: number, valid: (v: number) => boolean, range: string): number {
  const text = spec.params[name];
  if (text === undefined || text.trim() === '') return fallback;
  const v = Number(text.trim());
  if (!Number.isFinite(v) || !valid(v)) throw new ModelInputError(`parameter [${name}] must be ${range}, got "${text}"`);
  return v;
}

/** An integer extraParameter; undefined when absent. */
export function integerParam(spec: ModelSpec, name: string, valid: (v: number) => boolean, range: string): number | undefined {
  const text = spec.params[name];
  if (text === undefined || text.trim() === '') return undefined;
  const v = Number(text.trim());
  if (!Number.isInteger(v) || !valid(v)) throw new ModelInputError(`parameter [${name}] must be ${range}, got "${text}"`);
  return v;
}

/** One of `choices`; `fallback` when absent. */
export function choiceParam<T extends string>(spec: ModelSpec, name: string, choices: readonly T[], fallback: T): T {
  const text = spec.params[name];
  if (text === undefined || text.trim() === '') return fallback;
  const v = text.trim() as T;
  if (!choices.includes(v)) throw new ModelInputError(`parameter [${name}] must be one of ${choices.join(', ')}, got "${text}"`);
  return v;
}

/**
 * The input names after checking that inputs exist, are distinct, have values and do not
 * double as targets; ModelInputError naming the attribute otherwise.
 */
export function checkedInputs(summary: Summary, spec: ModelSpec, minimum = 1): string[] {
  const names = summary.attributeNames;
  const nameOf = (i: number) => {
    if (!Number.isInteger(i) || i < 0 || i >= names.length) throw new ModelInputError(`${spec.algo}: unknown attribute index [${i}]`);
    return names[i];
  };
  if (spec.inputs.length < minimum) throw new ModelInputError(`${spec.algo} needs at least ${minimum} input attribute${minimum === 1 ? '' : 's'}, got ${spec.inputs.length}`);
  const seen = new Set<number>();
  for (const i of spec.inputs) {
    if (seen.has(i)) throw new ModelInputError(`${spec.algo}: input attribute [${nameOf(i)}] is given twice`);
    seen.add(i);
    if (summary.count(nameOf(i)) === 0) throw new ModelInputError(`${spec.algo}: no values learned for attribute [${names[i]}]`);
  }
  for (const t of spec.targets) {
    if (seen.has(t)) throw new ModelInputError(`the target [${nameOf(t)}] cannot also be an input`);
    nameOf(t);
  }
  return spec.inputs.map(nameOf);
}

/** Index of the largest value, the first on ties (numpy argmax, as sklearn's predict). */
export function argmax(values: ArrayLike<number>): number {
  let best = 0;
  for (let k = 1; k < values.length; k++) if (values[k] > values[best]) best = k;
  return best;
}

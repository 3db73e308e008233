import type { Model, PredictFrame, Prediction } from './types';

/** What every model's JSON state holds besides its algorithm's own parameters. */
export interface ModelState {
  algo: string;
  inputNames: string[];
  targetNames: string[];
  info: Record<string, string>;
  extra: Record<string, string>;
}

/**
 * The part of a Model that only reads its state: every algorithm keeps a JSON-serializable
 * state object, so `restore(JSON.parse(JSON.stringify(state())))` predicts as the original.
 */
export abstract class StateModel<S extends ModelState> implements Model {
  constructor(protected readonly s: S) {}

  get algo(): string {
    return this.s.algo;
  }

  get inputNames(): readonly string[] {
    return this.s.inputNames;
  }

  get targetNames(): readonly string[] {
    return this.s.targetNames;
  }

  info(): Record<string, string> {
    return this.s.info;
  }

  extra(): Record<string, string> {
    return this.s.extra;
  }

  state(): S {
    return this.s;
  }

  abstract predict(frame: PredictFrame): Prediction[];
}

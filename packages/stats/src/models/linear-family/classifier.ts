import { LinearModel, type LinearState } from '../linear';
import type { PredictFrame, Prediction } from '../types';
import { as, choice, readLinearState } from '../state-read';

/**
 * How a binary linear classifier reports its linear predictor z = intercept + coef·x:
 * `score` gives `score` = z (least-squares SVM), `logistic` gives `prob` = 1/(1 + e^−z).
 * Either way `res` is 1 when z > 0, else 0.
 */
export type BinaryOutput = 'score' | 'logistic';

export interface LinearClassifierState extends LinearState {
  output: BinaryOutput;
}

/** A binary classifier on a linear predictor (`lsvm`, `lr`); missing inputs are imputed with their means. */
export class LinearClassifier extends LinearModel {
  constructor(private readonly classifier: LinearClassifierState) {
    super(classifier);
  }

  override predict(frame: PredictFrame): Prediction[] {
    return super.predict(frame).map((p): Prediction => {
      // LinearModel writes the shortest round-trip text, so Number() gives z back exactly.
      const z = Number(p.res);
      const res = z > 0 ? '1' : '0';
      return this.classifier.output === 'score' ? { res, score: p.res } : { res, prob: String(1 / (1 + Math.exp(-z))) };
    });
  }

  override state(): LinearClassifierState {
    return this.classifier;
  }
}

/** A LinearClassifierState read back (state-read.ts). */
export function readClassifierState(state: unknown, algo: string): LinearClassifierState {
  const s = readLinearState(state, algo);
  choice(s.output, 'state.output', ['score', 'logistic'] as const);
  return as<LinearClassifierState>(s);
}

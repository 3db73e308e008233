import type { Summary } from '../../summary';
import { yeoJohnsonInverse, yeoJohnsonLogLikelihood } from './power-columns';
import { StateModel } from '../base';
import type { LinearState } from '../linear';
import { mlr } from '../mlr';
import { numericRows } from '../rows';
import { type Algorithm, ModelInputError, type ModelSpec, type PredictFrame, type Prediction } from '../types';
import { as, number, readLinearState } from '../state-read';

export interface PowerRegressionState extends LinearState {
  /** The chosen Yeo-Johnson power λ: coef and intercept predict YJ(target, λ). */
  power: number;
}

/**
 * `powerreg` (STATS.md §4): of the Yeo-Johnson powers the project tracks as columns
 * `pt_<target>^<p>` (power-columns.ts), the one of maximum profile log-likelihood of the target
 * (SciPy's `yeojohnson_llf`, over all rows where the target is present), then ordinary least
 * squares of that column on the inputs, exactly as `mlr` builds it from the summary. A
 * prediction is the inverse transform of the linear prediction (`res`, original scale) and
 * the power (`power`). Reference: fixtures/gen_powerreg.py (SciPy yeojohnson_llf over the
 * grid, numpy lstsq, scikit-learn's inverse transform).
 */
export const powerreg: Algorithm = {
  name: 'powerreg',
  task: 'regression',
  build(summary: Summary, spec: ModelSpec) {
    const power = summary.power;
    if (power === undefined) {
      throw new ModelInputError('powerreg needs a project created with sml_project_power_column (the target whose Yeo-Johnson power columns the project tracks)');
    }
    const column = power.options.column;
    if (spec.targets.length !== 1) throw new ModelInputError(`powerreg needs exactly one target attribute, got ${spec.targets.length}`);
    const targetName = summary.attributeNames[spec.targets[0]];
    if (targetName !== column) throw new ModelInputError(`powerreg's target must be the project's power column [${column}] (sml_project_power_column), not [${targetName}]`);
    const columns = new Set(power.names);
    for (const i of spec.inputs) {
      const name = summary.attributeNames[i];
      if (columns.has(name)) throw new ModelInputError(`the input [${name}] is a power column of the target [${column}]`);
    }
    const n = power.rowCount;
    if (n === 0) throw new ModelInputError(`powerreg needs rows with the target [${column}] present`);

    const llf = power.powers.map((p, k) => yeoJohnsonLogLikelihood(n, summary.variance(power.names[k]), power.jacobianSum, p));
    // The first of equal maxima (the smallest power), so the choice does not depend on rounding order.
    let best = 0;
    llf.forEach((v, k) => {
      if (v > llf[best]) best = k;
    });
    const lambda = power.powers[best];
    const transformed = power.names[best];
    const fit = mlr.build(summary, { ...spec, algo: 'powerreg', targets: [summary.indexOf(transformed)] }).state() as LinearState;
    const extra: Record<string, string> = { ...fit.extra };
    power.powers.forEach((p, k) => {
      extra[`llf_${power.names[k]}`] = String(llf[k]);
    });
    const state: PowerRegressionState = {
      ...fit,
      algo: 'powerreg',
      targetNames: [column],
      power: lambda,
      info: { ...fit.info, power: String(lambda), transformed_target: transformed, llf: String(llf[best]) },
      extra,
    };
    return new PowerRegressionModel(state);
  },
  restore(state) {
    const s = readLinearState(state, 'powerreg');
    number(s.power, 'state.power');
    return new PowerRegressionModel(as<PowerRegressionState>(s));
  },
};

/** Predicts YJ⁻¹(intercept + coef·x, λ): NaN where the linear prediction is outside the transform's range. */
export class PowerRegressionModel extends StateModel<PowerRegressionState> {
  readonly readsColumns = true;

  predict(frame: PredictFrame): Prediction[] {
    const power = String(this.s.power);
    return numericRows(frame, this.s.inputNames, this.s.means).map((x) => {
      let t = this.s.intercept;
      for (let k = 0; k < x.length; k++) t += this.s.coef[k] * x[k];
      return { res: String(yeoJohnsonInverse(t, this.s.power)), power };
    });
  }
}

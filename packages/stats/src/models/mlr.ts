import { Matrix } from 'ml-matrix';
import type { Summary } from '../summary';
import { studentT } from './jstat';
import { LinearModel, type LinearState, regressionMoments } from './linear';
import { inverseOrExplain } from './linalg';
import type { Algorithm, ModelSpec } from './types';
import { as, readLinearState } from './state-read';

/**
 * `mlr`: ordinary least squares with intercept (STATS.md §4), solved from the summary:
 * β = Sxx⁻¹·sxy on centred (population) moments, intercept = ȳ − β·x̄. Standard errors,
 * t, p and 95 % confidence intervals as statsmodels OLS reports them (reference:
 * statsmodels, test/models/fixtures/gen_models.py).
 */
export const mlr: Algorithm = {
  name: 'mlr',
  task: 'regression',
  build(summary: Summary, spec: ModelSpec) {
    const m = regressionMoments(summary, spec);
    const p = m.inputNames.length;
    const inv = inverseOrExplain(m.sxx, m.inputNames, spec.params.matrix_use_pseudoinv === 'true');
    const beta = inv.mmul(Matrix.columnVector(m.sxy)).getColumn(0);
    const intercept = m.yMean - beta.reduce((s, b, k) => s + b * m.xMean[k], 0);
    const explained = beta.reduce((s, b, k) => s + b * m.sxy[k], 0);
    const sse = Math.max(0, m.n * (m.syy - explained));
    const df = m.n - p - 1;
    const sigma2 = sse / df;
    // Var(β) = σ²·(n·Sxx)⁻¹; Var(b0) = σ²/n + x̄ᵀ·Var(β)·x̄.
    const varBeta = inv.clone().mul(sigma2 / m.n);
    const xm = Matrix.columnVector(m.xMean);
    const varIntercept = sigma2 / m.n + xm.transpose().mmul(varBeta).mmul(xm).get(0, 0);
    const coef = [intercept, ...beta];
    const se = [Math.sqrt(varIntercept), ...beta.map((_, k) => Math.sqrt(varBeta.get(k, k)))];
    const names = ['const', ...m.inputNames];
    const tq = studentT.inv(0.975, df);
    const r2 = m.syy > 0 ? 1 - sse / (m.n * m.syy) : NaN;
    const extra: Record<string, string> = {};
    names.forEach((name, k) => {
      const t = coef[k] / se[k];
      extra[`coef_${name}`] = String(coef[k]);
      extra[`stderr_${name}`] = String(se[k]);
      extra[`t_${name}`] = String(t);
      extra[`p_${name}`] = String(2 * (1 - studentT.cdf(Math.abs(t), df)));
      extra[`ci_low_${name}`] = String(coef[k] - tq * se[k]);
      extra[`ci_high_${name}`] = String(coef[k] + tq * se[k]);
    });
    const state: LinearState = {
      algo: 'mlr',
      inputNames: m.inputNames,
      targetNames: [m.targetName],
      coef: beta,
      intercept,
      means: m.xMean,
      info: { n: String(m.n), r2: String(r2), adj_r2: String(1 - (1 - r2) * (m.n - 1) / df), sigma: String(Math.sqrt(sigma2)), df_resid: String(df) },
      extra,
    };
    return new LinearModel(state);
  },
  restore: (state) => new LinearModel(as<LinearState>(readLinearState(state, 'mlr'))),
};

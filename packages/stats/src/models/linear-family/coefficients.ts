import type { LinearState, RegressionMoments } from '../linear';

/**
 * A fitted linear predictor in original units, `res` = intercept + coef·x, with the
 * intercept ȳ − coef·x̄ that centred solvers imply (the intercept is never penalised).
 */
export function linearState(algo: string, m: RegressionMoments, coef: number[], info: Record<string, string>, extra: Record<string, string> = {}): LinearState {
  const intercept = m.yMean - coef.reduce((s, b, k) => s + b * m.xMean[k], 0);
  return {
    algo,
    inputNames: m.inputNames,
    targetNames: [m.targetName],
    coef,
    intercept,
    means: m.xMean,
    info: { n: String(m.n), ...info },
    extra: { ...coefficientTable(m.inputNames, intercept, coef), ...extra },
  };
}

/** modelInfo.extra's coefficient table: `coef_const` and `coef_<input>`. */
export function coefficientTable(inputNames: readonly string[], intercept: number, coef: readonly number[]): Record<string, string> {
  const table: Record<string, string> = { coef_const: String(intercept) };
  inputNames.forEach((name, k) => {
    table[`coef_${name}`] = String(coef[k]);
  });
  return table;
}

/**
 * R² on the rows the moments describe: 1 − SSE/SST with SSE/n = syy − 2·coef·sxy +
 * coefᵀ·Sxx·coef (the residuals of a centred fit have mean zero).
 */
export function trainingR2(m: RegressionMoments, coef: readonly number[]): number {
  const p = coef.length;
  let sse = m.syy;
  for (let i = 0; i < p; i++) {
    sse -= 2 * coef[i] * m.sxy[i];
    for (let j = 0; j < p; j++) sse += coef[i] * m.sxx.get(i, j) * coef[j];
  }
  return m.syy > 0 ? 1 - Math.max(0, sse) / m.syy : NaN;
}

import { ModelInputError, type ModelSpec } from '../types';

/** What a numeric parameter may be; bounds are inclusive unless marked exclusive. */
export interface NumberRule {
  min?: number;
  minExclusive?: boolean;
  max?: number;
  integer?: boolean;
}

/**
 * The numeric parameter `name` of the MLContext's extraParameters, or `fallback` when it is
 * absent; ModelInputError naming the algorithm, the parameter and its text otherwise.
 */
export function numberParam(spec: ModelSpec, name: string, fallback: number, rule: NumberRule = {}): number {
  return optionalNumberParam(spec, name, rule) ?? fallback;
}

/** As `numberParam`, for a parameter whose default depends on the data: undefined when absent. */
export function optionalNumberParam(spec: ModelSpec, name: string, rule: NumberRule = {}): number | undefined {
  const text = spec.params[name];
  return text === undefined ? undefined : parseNumber(spec.algo, name, text, rule);
}

/**
 * The penalty λ as `lambda` or its alias `alpha` (scikit-learn's name); both may be given
 * only with the same value.
 */
export function lambdaParam(spec: ModelSpec, fallback: number, rule: NumberRule): number {
  const { lambda, alpha } = spec.params;
  const fromLambda = lambda === undefined ? undefined : parseNumber(spec.algo, 'lambda', lambda, rule);
  const fromAlpha = alpha === undefined ? undefined : parseNumber(spec.algo, 'alpha', alpha, rule);
  if (fromLambda !== undefined && fromAlpha !== undefined && fromLambda !== fromAlpha) {
    throw new ModelInputError(`${spec.algo}: alpha is an alias of lambda; give one of them, not lambda=${lambda} and alpha=${alpha}`);
  }
  return fromLambda ?? fromAlpha ?? fallback;
}

/** `matrix_use_pseudoinv=true`: solve a singular system with the pseudo-inverse instead of refusing it (STATS.md §4). */
export function usePseudoInverse(spec: ModelSpec): boolean {
  return spec.params.matrix_use_pseudoinv === 'true';
}

function parseNumber(algo: string, name: string, text: string, rule: NumberRule): number {
  const v = text.trim() === '' ? NaN : Number(text);
  const ok =
    Number.isFinite(v) &&
    (rule.integer !== true || Number.isInteger(v)) &&
    (rule.min === undefined || (rule.minExclusive === true ? v > rule.min : v >= rule.min)) &&
    (rule.max === undefined || v <= rule.max);
  if (!ok) throw new ModelInputError(`${algo}: parameter ${name} must be ${describe(rule)}, got "${text}"`);
  return v;
}

function describe(rule: NumberRule): string {
  const kind = rule.integer === true ? 'an integer' : 'a number';
  if (rule.min !== undefined && rule.max !== undefined) return `${kind} in ${rule.minExclusive === true ? '(' : '['}${rule.min}, ${rule.max}]`;
  if (rule.min !== undefined) return `${kind} ${rule.minExclusive === true ? '>' : '≥'} ${rule.min}`;
  if (rule.max !== undefined) return `${kind} ≤ ${rule.max}`;
  return kind;
}

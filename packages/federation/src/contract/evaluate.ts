/**
 * Contract evaluation on one summary: each line must be true. A call's value is
 * NaN when an attribute is absent, its rows are none or it divides by zero, and any comparison
 * with NaN is false (`!=` included, unlike JavaScript's), so the line fails and its log names
 * the call and its value.
 */
import type { Summary } from '@sml/stats';
import { CONTRACT_FUNCTIONS } from './functions';
import { type Comparison, type ContractLine, type Expr, callsOf } from './syntax';

export interface LineResult {
  readonly line: number;
  readonly result: boolean;
  /** Call text → value, every call of the line (each computed once). */
  readonly values: Readonly<Record<string, number>>;
}

export interface ContractResult {
  /** Every line true (a contract without lines passes). */
  readonly pass: boolean;
  readonly lines: readonly LineResult[];
  /** One sentence per failing line for the error log: 'Contract line <n> failed: <call>=<value>, …'. */
  readonly failures: readonly string[];
}

function compare(value: number, op: Comparison, bound: number): boolean {
  if (Number.isNaN(value)) return false;
  switch (op) {
    case '>=': return value >= bound;
    case '>': return value > bound;
    case '<=': return value <= bound;
    case '<': return value < bound;
    case '==': return value === bound;
    case '!=': return value !== bound;
  }
}

function truth(expr: Expr, valueOf: (text: string, fn: string, args: readonly string[]) => number): boolean {
  switch (expr.kind) {
    case 'compare': return compare(valueOf(expr.call.text, expr.call.fn, expr.call.args), expr.op, expr.value);
    case 'and': return expr.items.every((e) => truth(e, valueOf));
    case 'or': return expr.items.some((e) => truth(e, valueOf));
  }
}

/** Evaluates parsed lines on `summary` (every call is evaluated, so the log shows each value). */
export function evaluateContract(lines: readonly ContractLine[], summary: Summary): ContractResult {
  const results = lines.map((line): LineResult => {
    const values: Record<string, number> = {};
    const valueOf = (text: string, fn: string, args: readonly string[]) => (values[text] ??= CONTRACT_FUNCTIONS[fn].value(summary, args));
    for (const call of callsOf(line.expr)) valueOf(call.text, call.fn, call.args);
    return { line: line.line, result: truth(line.expr, valueOf), values };
  });
  const failures = results.filter((r) => !r.result).map((r) => `Contract line ${r.line} failed: ${Object.entries(r.values).map(([call, v]) => `${call}=${v}`).join(', ')}`);
  return { pass: failures.length === 0, lines: results, failures };
}

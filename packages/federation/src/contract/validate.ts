/**
 * Contract validation against a schema (contractValidate): every attribute a
 * call names exists and has a type its function takes. All errors are collected.
 */
import type { Summary } from '@sml/stats';
import { type ArgumentType, CONTRACT_FUNCTIONS } from './functions';
import { type ContractProblem, type ParsedContract, callsOf, contractError, parseContract } from './syntax';

/** Attribute name → type: `C` continuous, `B` binary, `T` a categorical level (`color$red`, binary). */
export type AttributeSchema = ReadonlyMap<string, 'C' | 'B' | 'T'>;

/** A summary's schema: its attributes with their types (categorical levels are `B` there, which validates the same as `T`). */
export function schemaOf(summary: Summary): AttributeSchema {
  const types = summary.attributeTypes;
  return new Map(summary.attributeNames.map((name, i) => [name, types[i]]));
}

const accepts = (type: ArgumentType, actual: 'C' | 'B' | 'T'): boolean => type === 'C|B' || (type === 'B' ? actual !== 'C' : actual === 'C');

/** The schema problems of parsed lines. */
export function schemaProblems(contract: ParsedContract, schema: AttributeSchema): ContractProblem[] {
  const problems: ContractProblem[] = [];
  for (const line of contract.lines) {
    for (const call of callsOf(line.expr)) {
      const expected = CONTRACT_FUNCTIONS[call.fn].args;
      call.args.forEach((name, k) => {
        const actual = schema.get(name);
        if (actual === undefined) problems.push({ line: line.line, reason: `attribute [${name}] of ${call.text} is not in the schema` });
        else if (!accepts(expected[k], actual)) problems.push({ line: line.line, reason: `attribute [${name}] of ${call.text} is ${actual}, ${call.fn} takes ${expected[k]} there` });
      });
    }
  }
  return problems;
}

/**
 * Syntax and schema errors of contract lines ('Contract line <n>: <reason>'), in line order;
 * empty when the contract is valid.
 */
export function validateContract(lines: readonly string[], schema: AttributeSchema): { contract: ParsedContract; errors: string[] } {
  const contract = parseContract(lines);
  const problems = [...contract.problems, ...schemaProblems(contract, schema)].sort((a, b) => a.line - b.line);
  return { contract, errors: problems.map(contractError) };
}

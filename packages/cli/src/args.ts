import { InvalidArgumentError } from 'commander';

// Option-value parsers: commander reports their InvalidArgumentError as a usage error
// naming the option, before anything is sent.

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

export function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a non-negative integer');
  return n;
}

export function positiveSeconds(value: string): number {
  const n = Number(value);
  if (!(n > 0)) throw new InvalidArgumentError('expected a positive number of seconds');
  return n;
}

/** `C,C,B` → attribute type codes (API.md §1); the server judges the codes themselves. */
export function typeCodes(value: string): string[] {
  const codes = value.split(',').map((c) => c.trim());
  if (codes.some((c) => c === '')) throw new InvalidArgumentError('expected comma-separated type codes, e.g. C,C,B');
  return codes;
}

/** `x1,x2,y` → names, e.g. the columns of a data source to learn. */
export function nameList(value: string): string[] {
  const names = value.split(',').map((n) => n.trim());
  if (names.some((n) => n === '')) throw new InvalidArgumentError(`expected comma-separated names, got '${value}'`);
  return names;
}

/** Repeatable `--param key=value`, collected into a flat string map. */
export function keyValue(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError(`expected key=value, got '${value}'`);
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

/** `1,2.5,10` → numbers, e.g. the times of a survival curve. */
export function numberList(value: string): number[] {
  const parts = value.split(',').map((p) => p.trim());
  const numbers = parts.map(Number);
  if (parts.some((p) => p === '') || numbers.some((n) => !Number.isFinite(n))) {
    throw new InvalidArgumentError(`expected comma-separated numbers, got '${value}'`);
  }
  return numbers;
}

export function finiteNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError(`expected a number, got '${value}'`);
  return n;
}

/**
 * Repeatable `--inputs a,b` / `--targets 0,3`: one attribute list per occurrence. A list is
 * all indexes or all names, because the server puts the indexes before the names and the
 * order matters to several metrics (`bi`, `ztest`, conditional density).
 */
export function attributeList(value: string, previous: string[][] = []): string[][] {
  const list = value.split(',').map((a) => a.trim());
  if (list.some((a) => a === '')) throw new InvalidArgumentError(`expected comma-separated attribute names or indexes, got '${value}'`);
  const indexes = list.filter(isIndex).length;
  if (indexes > 0 && indexes < list.length) {
    throw new InvalidArgumentError(`'${value}' mixes attribute indexes and names; give all of them one way`);
  }
  return [...previous, list];
}

export const isIndex = (attribute: string): boolean => /^\d+$/.test(attribute);

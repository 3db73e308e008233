import { InvalidArgumentError } from 'commander';

// Option-value parsers: commander reports their InvalidArgumentError as a usage error
// naming the option, before anything is sent.

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
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

/** Repeatable `--param key=value`, collected into a flat string map. */
export function keyValue(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError(`expected key=value, got '${value}'`);
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

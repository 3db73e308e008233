/**
 * API.md §1: NaN and ±Infinity are written as the strings "NaN", "Infinity", "-Infinity"
 * so that every response stays valid JSON.
 */
export function nonFiniteReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return value;
}

export function toJson(value: unknown): string {
  return JSON.stringify(value, nonFiniteReplacer);
}

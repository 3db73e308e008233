import type { ByteReader, ByteWriter } from './binary';
import { shownText, SummaryError } from './errors';

/**
 * Exact integer counts keyed by string, the building block of survival and sequence
 * summaries. A key whose count returns to 0 is deleted, so equal counts mean equal maps.
 */
export type Counts = Map<string, number>;

export function increment(counts: Counts, key: string, by = 1): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next === 0) counts.delete(key);
  else counts.set(key, next);
}

export function addCounts(target: Counts, source: Counts, sign: 1 | -1): void {
  for (const [key, c] of source) increment(target, key, sign * c);
}

/** Throws unless every count of `source` is at most the matching count of `target`. */
export function checkSubtractable(target: Counts | undefined, source: Counts, what: string): void {
  for (const [key, c] of source) {
    if ((target?.get(key) ?? 0) < c) {
      throw new SummaryError('not-learned', `cannot forget rows that were never learned: ${what} count of ${key} would become negative`);
    }
  }
}

/** Keys sorted, so equal counts serialize to equal bytes. */
export function writeCounts(w: ByteWriter, counts: Counts): void {
  const keys = [...counts.keys()].sort();
  w.u32(keys.length);
  for (const key of keys) {
    w.string(key);
    w.f64(counts.get(key)!);
  }
}

/** Counts as writeCounts wrote them: each a whole number > 0 (a count that reaches 0 is deleted), else the bytes are damaged (or forged: an import). */
export function readCounts(r: ByteReader): Counts {
  const counts: Counts = new Map();
  for (let n = r.u32(); n > 0; n--) {
    const key = r.string();
    const c = r.f64();
    if (!(Number.isSafeInteger(c) && c > 0)) throw new SummaryError('damaged', `damaged summary serialization: the count of ${shownText(key)} is ${c}, not a whole number > 0`);
    counts.set(key, c);
  }
  return counts;
}

/** An unambiguous key for a tuple of strings (states never need escaping rules of their own). */
export function tupleKey(parts: readonly (string | number)[]): string {
  return JSON.stringify(parts);
}

export function fromTupleKey(key: string): (string | number)[] {
  return JSON.parse(key) as (string | number)[];
}

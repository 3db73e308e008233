import { SummaryError } from './errors';
import type { Summary } from './summary';

/** What resolving names needs of a summary: a Summary, or its attribute table alone (explore's schema fetch). */
export interface AttributeTable {
  readonly attributeNames: readonly string[];
  /** The index of an attribute, or -1. */
  indexOf(name: string): number;
}

/**
 * Attribute references of an MLContext as summary indexes (API.md §1): an index (decimal
 * text, as in smlInfo.attributeIndexes) or a name; a categorical base name (`color`) stands
 * for all of its levels (`color$red`, …). An unknown reference throws SummaryError naming it.
 */
export function resolveAttributes(summary: Summary, refs: readonly string[], separator?: string): number[];
export function resolveAttributes(summary: AttributeTable, refs: readonly string[], separator: string): number[];
export function resolveAttributes(summary: AttributeTable & { options?: { categorySeparator: string } }, refs: readonly string[], separator = summary.options!.categorySeparator): number[] {
  // A Summary makes its name list at each read (thousands of names on a wide project): read
  // once, and only when a reference needs it (indexes and exact names do not).
  let names: readonly string[] | undefined;
  const all = () => (names ??= summary.attributeNames);
  return refs.flatMap((ref) => {
    const text = ref.trim();
    if (/^\d+$/.test(text)) {
      const i = Number(text);
      if (i < all().length) return [i];
    } else {
      const i = summary.indexOf(text);
      if (i >= 0) return [i];
      const levels = all().flatMap((n, k) => (n.startsWith(text + separator) ? [k] : []));
      if (levels.length > 0) return levels;
    }
    throw new SummaryError('unknown-attribute', 'unknown attribute', ref);
  });
}

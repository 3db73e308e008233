import { guessType, smlError } from '@sml/core';

/** Rows a sample or a preview shows (API.md §5); types are guessed from as many. */
export const SAMPLE_ROWS = 128;

/** Which columns of a source a learn reads, as which attributes: `index[k]` is the column of attribute k. */
export interface ColumnPlan {
  names: string[];
  types: string[];
  index: number[];
}

/**
 * The attributes a data-source learn makes of a source's columns: the request's
 * attributeNames/attributeTypes when given (each must be a column), else every column typed
 * by the DSInfo's `extra` (one per column) or guessed from the first rows.
 */
export function columnPlan(
  header: string[],
  first: string[][],
  wanted: { attributeNames?: string[] | null; attributeTypes?: string[] | null },
  extra: readonly string[],
  ds: string,
  where: string,
): ColumnPlan {
  const names = wanted.attributeNames ?? [];
  if (names.length > 0) {
    const types = wanted.attributeTypes ?? [];
    if (types.length !== names.length) throw smlError('DS_LEARN_FAILED', { ds, detail: `${names.length} attributeNames but ${types.length} attributeTypes` });
    const index = names.map((n) => {
      const i = header.indexOf(n);
      if (i < 0) throw smlError('DS_LEARN_FAILED', { ds, detail: `[${where}] has no column [${n.slice(0, 100)}]` });
      return i;
    });
    return { names: [...names], types: [...types], index };
  }
  const types = extra.length === header.length ? [...extra] : header.map((_, i) => guessType(first.slice(0, SAMPLE_ROWS).map((r) => r[i] ?? '')));
  return { names: header, types, index: header.map((_, i) => i) };
}

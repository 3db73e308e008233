import type { sml } from '@sml/proto';

/** A REST DataFrame of numbers (cells are strings on the wire; NaN as "NaN"). */
export function numberFrame(names: string[], rows: number[][]): sml.v1.IDataFrame {
  return {
    attributeNames: names,
    attributeTypes: names.map(() => 'C'),
    data: rows.map((r) => ({ entries: r.map(String) })),
    errorHandling: 0,
  };
}

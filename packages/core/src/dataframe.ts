import type { sml } from '@sml/proto';

/** The REST DataFrame (API.md §1): cells are strings, rows are arrays. */
export interface RestDataFrame {
  attributeNames: string[];
  attributeTypes: string[];
  data: string[][];
  errorHandling?: number;
}

/** protobuf has no nested repeated fields, so rows travel as `Row {entries}`. */
export function dataFrameToProto(df: RestDataFrame): sml.v1.IDataFrame {
  return {
    attributeNames: df.attributeNames,
    attributeTypes: df.attributeTypes,
    data: df.data.map((entries) => ({ entries })),
    errorHandling: df.errorHandling ?? 0,
  };
}

export function dataFrameFromProto(df: sml.v1.IDataFrame): RestDataFrame {
  return {
    attributeNames: df.attributeNames ?? [],
    attributeTypes: df.attributeTypes ?? [],
    data: (df.data ?? []).map((r) => r.entries ?? []),
    errorHandling: df.errorHandling ?? 0,
  };
}

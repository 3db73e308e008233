import type { RestDataFrame } from '@sml/core';
import { CliError } from './errors';

export interface FrameOptions {
  /** Attribute type codes (API.md §1), one per CSV column. */
  types: string[];
  /** Rows per DataFrame. */
  batchSize: number;
  /** 0 strict, 1 lenient (API.md §1). */
  errorHandling: 0 | 1;
}

export interface FrameBatch {
  frame: RestDataFrame;
  /** 1-based number of `frame.data[0]` among the file's data rows (the header is not counted). */
  firstRow: number;
}

/**
 * Groups CSV records, the first being the header, into DataFrames of at most `batchSize`
 * rows, so that a file of any size goes out as a sequence of bounded requests while only
 * one batch is held in memory.
 */
export async function* frameBatches(records: AsyncIterable<string[]>, options: FrameOptions): AsyncGenerator<FrameBatch> {
  let attributeNames: string[] | undefined;
  let data: string[][] = [];
  let firstRow = 1;
  const batch = (): FrameBatch => ({
    frame: { attributeNames: attributeNames!, attributeTypes: options.types, data, errorHandling: options.errorHandling },
    firstRow,
  });
  for await (const record of records) {
    if (attributeNames === undefined) {
      if (record.length !== options.types.length) {
        throw new CliError(`--types lists ${options.types.length} type code(s) but the CSV header has ${record.length} column(s)`);
      }
      attributeNames = record;
      continue;
    }
    data.push(record);
    if (data.length === options.batchSize) {
      yield batch();
      firstRow += data.length;
      data = [];
    }
  }
  if (attributeNames === undefined) throw new CliError('the CSV file is empty; its first row must name the columns');
  if (data.length > 0) yield batch();
}

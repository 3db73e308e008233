import { createReadStream } from 'node:fs';
import type { Envelope, SmlClient } from '@sml/sdk';
import { csvRecords } from './csv';
import { frameBatches, type FrameOptions } from './frames';
import { isSuccess } from './io';

export type Direction = 'learn' | 'forget';

export interface RowRange {
  first: number;
  last: number;
}

/** `values.learnReport` of a lenient learn or forget (API.md §1). */
interface LearnReport {
  rowsLearned?: number;
  rowsSkipped?: number;
  errors?: string[];
}

export interface TransferSummary {
  requests: number;
  /** Rows the server took into account (all rows sent, minus those a lenient request skipped). */
  rowsAccepted: number;
  rowsSkipped: number;
  /** Lenient-mode errors, each prefixed with the data rows of its request (the server numbers rows per request). */
  errors: string[];
  /** The request that was refused, if one was; nothing after it was sent. */
  refused?: { envelope: Envelope; rows: RowRange };
}

/**
 * Learns (or forgets) a CSV file into a project, one request per batch of rows, in file
 * order. Stops at the first refused request: in strict mode the server learns nothing of
 * that batch, but the batches before it stay learned.
 */
export async function transferCsv(
  client: SmlClient,
  direction: Direction,
  pid: string,
  path: string,
  options: FrameOptions,
  onReply: (envelope: Envelope, rows: RowRange, bytesRead: number) => void = () => undefined,
): Promise<TransferSummary> {
  const summary: TransferSummary = { requests: 0, rowsAccepted: 0, rowsSkipped: 0, errors: [] };
  const file = createReadStream(path, { encoding: 'utf8' });
  const records = csvRecords(file);
  for await (const { frame, firstRow } of frameBatches(records, options)) {
    const rows = { first: firstRow, last: firstRow + frame.data.length - 1 };
    const res = await client[direction](pid, frame);
    summary.requests++;
    // Bytes read so far (the stream reads ahead a little): a progress measure needing no row count.
    onReply(res.body, rows, file.bytesRead);
    if (!isSuccess(res.body.statusCode)) {
      summary.refused = { envelope: res.body, rows };
      break;
    }
    const report = (res.body.values as { learnReport?: LearnReport } | undefined)?.learnReport;
    summary.rowsAccepted += report?.rowsLearned ?? frame.data.length;
    summary.rowsSkipped += report?.rowsSkipped ?? 0;
    for (const error of report?.errors ?? []) summary.errors.push(`rows ${rows.first}-${rows.last}: ${error}`);
  }
  return summary;
}

import { parentPort } from 'node:worker_threads';
import { SmlError, STATS_KERNEL_CONFIG, loadConfig, smlError, statsKernels } from '@sml/core';
import { FrameError, parseRecords, selectKernels, type CategoricalColumn, type ColumnType, type NumericColumn } from '@sml/stats';
import { csvOptionsOf, csvRecordBatches, recordCells, SourceError, sourceOf, type SourceContext } from '@sml/sources';
import { columnPlan, SAMPLE_ROWS, type ColumnPlan } from './ds-plan';

// A thread entry point: the statistics kernels its configuration selects (as the main thread's).
selectKernels(statsKernels(loadConfig(process.env, STATS_KERNEL_CONFIG)));

/*
 * The reading half of a data-source learn, on its own thread: the source's bytes are read,
 * split into records and parsed into columns here (parseRecords), while the service thread
 * only adds the columns to the staging summary. Reading and learning so overlap, and a
 * large file does not hold the service thread that answers every other customer. At most
 * IN_FLIGHT batches wait for the service thread: memory stays bounded.
 */

/** What the service thread asks for. */
export interface ReadTask {
  type: string;
  info: Record<string, string>;
  /** The source context without its signal: cancelling terminates this thread. */
  ctx: Omit<SourceContext, 'signal'>;
  columns: { attributeNames: string[]; attributeTypes: string[] };
  extra: string[];
  lenient: boolean;
  ds: string;
}

/** One batch of parsed rows, with what the job's report and log count. */
export interface ReadBatch {
  /** The rows that passed (null when none did): a ParsedFrame without its placeholder rows. */
  frame: { names: string[]; types: ColumnType[]; numeric: NumericColumn[]; categorical: CategoricalColumn[]; rows: number } | null;
  /** The line each row of `frame` starts on. */
  lines: Int32Array;
  rowsRead: number;
  skipped: number;
  /** Messages of the first skipped records (lenient). */
  errors: string[];
  bytesRead: number;
  total: number | undefined;
}

/** A failure, as data: rebuilt on the service thread as the same error. */
export type ReadFailure =
  | { smlError: { code: SmlError['code']; status: number; message: string; retryable: boolean } }
  | { source: { reason: SourceError['reason']; message: string } }
  | { error: string };

export type WorkerMessage = { batch: ReadBatch } | { done: true } | { failure: ReadFailure };

/** Batches posted and not yet taken by the service thread, at most. */
const IN_FLIGHT = 2;

function failureOf(err: unknown): ReadFailure {
  if (err instanceof SmlError) return { smlError: { code: err.code, status: err.status, message: err.message, retryable: err.retryable } };
  if (err instanceof SourceError) return { source: { reason: err.reason, message: err.message } };
  return { error: err instanceof Error ? err.message : String(err) };
}

async function read(task: ReadTask, port: NonNullable<typeof parentPort>, credit: () => Promise<void>): Promise<void> {
  const source = sourceOf(task.type, task.info, task.ctx);
  if (source.kind !== 'bytes') throw new Error(`a ${task.type} source is not read as CSV`);
  const where = source.describe();
  const total = await source.size();
  const column = (name: string) => (name ? `, column [${name.slice(0, 100)}]` : '');
  let plan: ColumnPlan | undefined;
  for await (const batch of csvRecordBatches(source.open(), csvOptionsOf(task.info, where))) {
    plan ??= columnPlan(batch.header, Array.from({ length: Math.min(batch.count, SAMPLE_ROWS) }, (_, r) => recordCells(batch, r)), task.columns, task.extra, task.ds, where);
    const recordsPlan = { names: plan.names, types: plan.types as ColumnType[], fields: plan.index, width: batch.header.length };
    let parsed;
    try {
      parsed = parseRecords(batch, recordsPlan, task.lenient, (bad) => `[${where}] line ${batch.lines[bad.record]}${column(bad.column)}: ${bad.reason}`);
    } catch (err) {
      if (!(err instanceof FrameError)) throw err;
      const line = err.row > 0 ? ` line ${batch.lines[err.row - 1]}` : '';
      throw smlError('DS_LEARN_FAILED', { ds: task.ds, detail: `[${where}]${line}${column(err.column)}: ${err.reason}` }, err);
    }
    const p = parsed.parsed;
    const rows = p?.report.rowsLearned ?? 0;
    const lines = new Int32Array(rows);
    for (let k = 0; k < rows; k++) lines[k] = batch.lines[parsed.recordOf[k]];
    const message: WorkerMessage = {
      batch: {
        frame: p && { names: [...p.names], types: [...p.types], numeric: [...p.numeric], categorical: [...p.categorical], rows },
        lines, rowsRead: batch.count, skipped: parsed.skipped, errors: parsed.errors, bytesRead: batch.bytesRead, total,
      },
    };
    // The columns move to the service thread (not copied): this thread never reads them again.
    const transfer = new Set<ArrayBuffer>([lines.buffer]);
    for (const c of p?.numeric ?? []) transfer.add(c.values.buffer as ArrayBuffer);
    for (const c of p?.categorical ?? []) transfer.add(c.codes.buffer as ArrayBuffer);
    port.postMessage(message, [...transfer]);
    await credit();
  }
}

if (parentPort) {
  const port = parentPort;
  let inFlight = 0;
  let wake: (() => void) | null = null;
  const credit = async () => {
    inFlight++;
    while (inFlight >= IN_FLIGHT) await new Promise<void>((resolve) => (wake = resolve));
  };
  port.on('message', (m: { start?: ReadTask; ack?: true }) => {
    if (m.ack) {
      inFlight--;
      wake?.();
      wake = null;
    } else if (m.start) {
      inFlight = 0; // a new job on a reused thread
      read(m.start, port, credit).then(
        () => port.postMessage({ done: true } satisfies WorkerMessage),
        (err: unknown) => port.postMessage({ failure: failureOf(err) } satisfies WorkerMessage),
      );
    }
  });
}

import { smlError, SmlError } from '@sml/core';
import { FrameError, placeholderRows, type DataFrame, type Encoder, type LearnInput, type StateLimits, type Summary } from '@sml/stats';
import { encodeFrame } from '../learning/encoding';
import { ONLINE_BACKLOG, type OnlineUpdates } from '../predict/online-updates';
import { columnPlan, type ColumnPlan } from './plan';
import type { ReadBatch } from './read-worker';
import type { DsColumns, DsInfo, DsRun } from './types';

/** Reasons of skipped rows a job's report keeps. */
const MAX_ERRORS = 10;

/**
 * What one data-source learn job reads goes here: its batches learned into the staging
 * summary (never the project's: DataSources adds it under the project's lock at the end),
 * counted in the job's run, the first skipped rows' reasons kept for its report. Rows come
 * as text (tables, encoded or cell-reading summaries: `rows`) or parsed into columns on a
 * reading thread (CSV files: `parsed`).
 */
export class DsStaging {
  /** The report's messages: the first MAX_ERRORS skipped rows, and what the job adds. */
  readonly errors: string[] = [];
  /** Which columns are learned as which attributes: from the first batch's header and rows. */
  private plan: ColumnPlan | undefined;

  constructor(private readonly job: {
    staging: Summary; limits: StateLimits; run: DsRun; info: DsInfo; columns: DsColumns;
    /** The source as messages name it (`file.csv`, `s3://…`, a table). */
    where: string;
    /** The staging forest's updates, on the online-model threads, batch by batch in order. */
    online?: OnlineUpdates;
    /** The project's encoder as the job started: its S/L columns are learned encoded. */
    encoder?: Encoder;
  }) {}

  /** The job's counters, which the batches add to. */
  get run(): DsRun {
    return this.job.run;
  }

  private note(message: string): void {
    if (this.errors.length < MAX_ERRORS) this.errors.push(message);
  }

  /** Waits while the staging forest's updates are too far behind (only this job waits). */
  async backlog(): Promise<void> {
    await this.job.online?.below(ONLINE_BACKLOG);
  }

  /** Learns one input into the staging summary; its online part goes to the online threads. */
  private learn(input: LearnInput): { rowsLearned: number; rowsSkipped: number; errors: string[] } {
    const { staging, limits, online } = this.job;
    const change = staging.prepare('learn', input, limits, online !== undefined);
    change.commit();
    if (change.online) online!.add(change.online);
    return change.report;
  }

  /** A failure to learn as DS_LEARN_FAILED naming the source, the row's place (`line 12`, `row 3`) and the column. */
  private failure(err: unknown, place: (row: number) => string): SmlError {
    const { ds } = this.job.run;
    if (err instanceof FrameError) {
      const column = err.column ? `, column [${err.column.slice(0, 100)}]` : '';
      return smlError('DS_LEARN_FAILED', { ds, detail: `[${this.job.where}]${place(err.row)}${column}: ${err.reason}` }, err);
    }
    if (err instanceof SmlError) return err;
    return smlError('DS_LEARN_FAILED', { ds, detail: `[${this.job.where}]: ${(err as Error).message}` }, err);
  }

  /**
   * A batch of rows as text: a row of the wrong length fails the job, or is skipped and
   * counted when lenient. `lines` (files) or `firstRow` (tables) place each row in messages.
   */
  rows(header: string[], rows: (string | null)[][], lines: number[] | undefined, firstRow: number): void {
    const { run, info, columns, where, encoder } = this.job;
    const at = (k: number) => (lines ? `line ${lines[k]}` : `row ${firstRow + k + 1}`);
    this.plan ??= columnPlan(header, rows.map((r) => r.map((c) => c ?? '')), columns, info.extra, run.ds, where);
    const plan = this.plan;
    const data: string[][] = [];
    const kept: number[] = [];
    rows.forEach((r, k) => {
      if (r.length !== header.length) {
        const why = `[${where}] ${at(k)}: ${r.length} fields, the header has ${header.length}`;
        if (!columns.lenient) throw smlError('DS_LEARN_FAILED', { ds: run.ds, detail: why });
        run.rowsSkipped++;
        this.note(why);
        return;
      }
      data.push(plan.index.map((i) => r[i] ?? ''));
      kept.push(k);
    });
    run.rowsRead += rows.length;
    if (data.length === 0) return;
    const plain: DataFrame = { attributeNames: plan.names, attributeTypes: plan.types, data, errorHandling: columns.lenient ? 1 : 0 };
    const frame: DataFrame = encoder ? { ...encodeFrame(encoder, plain), errorHandling: plain.errorHandling } : plain;
    try {
      const report = this.learn({ frame });
      run.rowsLearned += report.rowsLearned;
      run.rowsSkipped += report.rowsSkipped;
      for (const e of report.errors) this.note(`[${where}] ${e}`);
    } catch (err) {
      throw this.failure(err, (row) => {
        const k = kept[row - 1];
        return k === undefined ? '' : ` ${at(k)}`;
      });
    }
  }

  /**
   * A batch a reading thread parsed into columns (read-worker.ts): the fast path, when no
   * column is encoded and the summary reads no cell as text.
   */
  parsed(batch: ReadBatch): void {
    const { run } = this.job;
    run.rowsRead += batch.rowsRead;
    run.rowsSkipped += batch.skipped;
    for (const e of batch.errors) this.note(e);
    if (batch.frame === null) return;
    const { rows, ...frame } = batch.frame;
    const parsed = { ...frame, rows: placeholderRows(rows), report: { rowsLearned: rows, rowsSkipped: 0, errors: [] } };
    try {
      run.rowsLearned += this.learn({ columns: parsed }).rowsLearned;
    } catch (err) {
      throw this.failure(err, (row) => (row > 0 ? ` line ${batch.lines[row - 1]}` : ''));
    }
  }
}

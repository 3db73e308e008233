import { guessType, SmlError, smlError } from '@sml/core';
import type { JobContext } from '@sml/jobs-client';
import type { sml } from '@sml/proto';
import { SINK_TYPES, sinkOf, type RowSink, type SourceContext } from '@sml/sources';
import type { Prediction } from '@sml/stats';
import type { DataSources } from './datasources';
import { SAMPLE_ROWS } from './datasources';
import { dsBatches, dsFailure } from './rows';
import { dsColumnsFromProto, type DsColumns, type DsInfo } from './types';
import type { Models } from '../models/models';
import type { PredictFn } from '../predict/predict';

/** A prediction value a table keeps as `double precision` (NaN and ±Infinity included). */
const NUMBER = /^\s*(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?Infinity|NaN)\s*$/;

/** Reasons of skipped rows a report keeps. */
const MAX_ERRORS = 10;

/** The input columns given to the model: the request's (by header name) or every column. */
interface Selection { names: string[]; types: string[]; index: number[] }

/** The output's layout, fixed by the first batch predicted. */
interface Layout { keys: string[]; known: Set<string> }

/**
 * Batch scoring (API.md §12 `dss/predict`): a job reads a registered data source in batches
 * (bounded memory), predicts each batch with the same function as `POST predict/{m}`, and
 * writes the input's columns then one column per prediction key to another data source
 * (sinks in @sml/sources: a localfile CSV renamed into place at the end, an s3 multipart upload
 * completed at the end, or one PostgreSQL transaction). A failure or a cancel writes nothing.
 */
export class DsPredictions {
  constructor(private readonly deps: {
    dataSources: DataSources;
    models: Models;
    predict: PredictFn;
    sourceContext(user: string, signal?: AbortSignal): SourceContext;
  }) {}

  /** Checks before the job is created: project and model (as predict), both data sources, an output that can be written. */
  async prepare(user: string, pid: string, modelId: string, inName: string | null | undefined, outName: string | null | undefined): Promise<{ input: DsInfo; output: DsInfo }> {
    await this.deps.models.info(user, pid, modelId);
    const input = await this.deps.dataSources.info(user, inName ?? '');
    const output = await this.deps.dataSources.info(user, outName ?? '');
    const { type } = output;
    if (!(SINK_TYPES as readonly string[]).includes(type)) throw smlError('DS_NOT_WRITABLE', { ds: output.name, type });
    try {
      sinkOf(type, output.info, this.deps.sourceContext(user));
    } catch (err) {
      dsFailure(err, output.name);
    }
    return { input, output };
  }

  /**
   * One batch's predictions, asked in as many predicts as the model's cost bounds require
   * (Models.rowsPerPredict): each predict holds the project's event loop for a bounded time,
   * and other requests run between them. Rows are predicted independently, except by `hmm`,
   * which decodes each piece as a sequence of its own (README).
   */
  private async predictInPieces(user: string, pid: string, modelId: string, frame: sml.v1.IDataFrame): Promise<Prediction[]> {
    const rows = frame.data ?? [];
    // At least one row per predict: a model over the bounds at one row is refused with their message.
    const step = Math.max(1, await this.deps.models.rowsPerPredict(user, pid, modelId, rows.length));
    if (step >= rows.length) return this.deps.predict(user, pid, modelId, frame);
    const out: Prediction[] = [];
    for (let at = 0; at < rows.length; at += step) {
      out.push(...(await this.deps.predict(user, pid, modelId, { ...frame, data: rows.slice(at, at + step) })));
    }
    return out;
  }

  /** The job: every row of `input` predicted and written to `output`, or nothing written. */
  async run(user: string, pid: string, modelId: string, input: DsInfo, output: DsInfo, frame: sml.v1.IDataFrame, job: JobContext): Promise<sml.v1.IDsPredictReport> {
    const { name: ds } = input;
    const { name: out } = output;
    const fail = (detail: string, cause?: unknown) => smlError('DS_PREDICT_FAILED', { ds, out, detail }, cause);
    const columns = dsColumnsFromProto(frame);
    const { lenient } = columns;
    const report = { rowsRead: 0, rowsPredicted: 0, rowsSkipped: 0, bytesRead: 0, bytesWritten: 0, attributeNames: [] as string[], errors: [] as string[] };
    const ctx = this.deps.sourceContext(user, job.signal);
    let sink: RowSink | undefined;
    let header: string[] = [];
    let selection: Selection | undefined;
    let layout: Layout | undefined;
    const begin = async (keys: string[], numeric: boolean[]) => {
      const names = [...header];
      for (const key of keys) {
        // A key named like an input column is written as SymetryML names its outputs.
        let name = key;
        while (names.includes(name)) name += '_Result';
        names.push(name);
      }
      report.attributeNames = names;
      await sink!.begin(names, [...header.map(() => false), ...numeric]);
      layout = { keys, known: new Set(keys) };
    };
    try {
      sink = sinkOf(output.type, output.info, ctx);
      for await (const batch of dsBatches(input, ctx)) {
        if (job.signal.aborted) throw smlError('JOB_CANCELLED');
        header = batch.header;
        selection ??= this.select(header, batch.rows, input, columns, fail);
        const sel = selection;
        const kept: string[][] = [];
        const at: number[] = [];
        batch.rows.forEach((r, k) => {
          if (r.length === header.length) {
            kept.push(r);
            at.push(k);
            return;
          }
          const why = `${batch.where(k)}: ${r.length} fields, the header has ${header.length}`;
          if (!lenient) throw fail(why);
          report.rowsSkipped++;
          if (report.errors.length < MAX_ERRORS) report.errors.push(why);
        });
        report.rowsRead += batch.rows.length;
        report.bytesRead = batch.bytesRead;
        if (kept.length > 0) {
          const frame: sml.v1.IDataFrame = {
            attributeNames: sel.names, attributeTypes: sel.types, errorHandling: 0,
            data: kept.map((r) => ({ entries: sel.index.map((i) => r[i]) })),
          };
          const predictions = await this.predictInPieces(user, pid, modelId, frame);
          if (!layout) {
            const keys = Object.keys(predictions[0] ?? {});
            await begin(keys, keys.map((key) => predictions.every((p) => (p[key] ?? '') === '' || NUMBER.test(p[key]))));
          }
          const { keys, known } = layout!;
          const rows = kept.map((r, k) => {
            const p = predictions[k] ?? {};
            for (const key of Object.keys(p)) if (!known.has(key)) throw fail(`${batch.where(at[k])}: the model answered key [${key.slice(0, 100)}], which the first row's prediction did not have`);
            return [...r, ...keys.map((key) => p[key] ?? '')];
          });
          await sink.write(rows);
          report.rowsPredicted += kept.length;
        }
        if (batch.total) job.progress(batch.read, batch.total);
      }
      if (job.signal.aborted) throw smlError('JOB_CANCELLED');
      // Nothing predicted (no rows): the output holds the input's header only.
      if (!layout) await begin([], []);
      report.bytesWritten = (await sink.commit()).bytesWritten;
      return report;
    } catch (err) {
      await sink?.abort();
      if (job.signal.aborted) throw err; // the runner answers a cancelled job
      if (err instanceof SmlError) throw err;
      // A reader's or writer's SourceError names the file and line, or the table.
      throw fail(err instanceof Error ? err.message : String(err), err);
    }
  }

  /** The columns the model is given: the request's attributeNames (by header name), else every column typed by the DSInfo's `extra` or guessed. */
  private select(header: string[], first: string[][], input: DsInfo, columns: DsColumns, fail: (detail: string) => SmlError): Selection {
    const wanted = columns.attributeNames;
    if (wanted.length > 0) {
      const types = columns.attributeTypes;
      if (types.length !== wanted.length) throw fail(`${wanted.length} attributeNames but ${types.length} attributeTypes`);
      const index = wanted.map((n) => {
        const i = header.indexOf(n);
        if (i < 0) throw fail(`the data source has no column [${n.slice(0, 100)}]`);
        return i;
      });
      return { names: [...wanted], types: [...types], index };
    }
    const { extra } = input;
    const sample = first.slice(0, SAMPLE_ROWS);
    const types = extra.length === header.length ? [...extra] : header.map((_, i) => guessType(sample.map((r) => r[i] ?? '')));
    return { names: [...header], types, index: header.map((_, i) => i) };
  }
}

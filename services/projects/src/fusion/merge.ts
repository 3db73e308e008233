import { smlError } from '@sml/core';
import { Summary, type ForeignSummaryChecks } from '@sml/stats';
import { CellError, cellName, type CellStatus, type FusionCell, type OnCellError } from './cells';

/** A cell's answer to a fetch: its summary (serialized) and version, or that `ifVersion` is still current. */
export type CellAnswer = { unchanged: true } | { summary: Uint8Array; version: string };

/** Where cells are fetched from (remote over signed REST, `local` over the bus): fetchers.ts, or a fake in tests. */
export interface CellFetcher {
  /** Throws CellError (its status) for a failure the cell explains, anything else is UNREACHABLE. */
  fetch(cell: FusionCell, ifVersion: string, signal: AbortSignal): Promise<CellAnswer>;
}

/** One cell as the merge knows it: its last good summary and what the last fetch said. */
interface CellState {
  cell: FusionCell;
  summary?: Summary;
  version: string;
  lastFetch: number;
  status: CellStatus | 'NEVER';
  error: string;
}

export interface CellReport {
  host: string;
  cid: string;
  pid: string;
  status: CellStatus | 'NEVER';
  rows: number;
  lastFetch: number;
  error: string;
}

/** What a read gets: the merge and the cells it used stale (`stale` mode). */
export interface MergeView {
  /** A new object whenever the merge changed: the caller installs it when it is not the one its project holds. */
  summary: Summary;
  stale: string[];
  /** `<cell>: <reason>` of each cell that failed the last refresh (params.fusion_fetch_error). */
  errors: string[];
}

export interface FusionMergeOptions {
  fetcher: CellFetcher;
  minRefreshMs: number;
  cellTimeoutMs: number;
  /** The fusion project's summary options: each cell's summary is read as a foreign summary under them. */
  checks: ForeignSummaryChecks;
  now?: () => number;
}

/**
 * The merge of one fusion project's cells: refreshed just in time, at most
 * once per `minRefreshMs`, one refresh shared by every request that arrives meanwhile (single
 * flight); each cell is fetched with the version it last gave, so an unchanged cell sends
 * nothing, and the merge is recomputed only when a cell's summary changed. The merge is exact:
 * Summary.merge by attribute name, cells in list order.
 */
export class FusionMerge {
  private readonly states: CellState[];
  private refreshedAt = -Infinity;
  private inflight?: Promise<void>;
  private merged: Summary;
  private readonly now: () => number;

  constructor(cells: readonly FusionCell[], private readonly opts: FusionMergeOptions) {
    this.states = cells.map((cell) => ({ cell, version: '', lastFetch: 0, status: 'NEVER', error: '' }));
    this.now = opts.now ?? Date.now;
    this.merged = new Summary(opts.checks.options);
  }

  /** The merge as of a refresh at most `minRefreshMs` old; a failed cell answers 503 (`fail`) or is used stale. */
  async read(mode: OnCellError): Promise<MergeView> {
    if (this.now() - this.refreshedAt >= this.opts.minRefreshMs) await this.refresh();
    const failed = this.states.filter((s) => s.status !== 'OK');
    // A never-fetched cell has nothing to stand in for it: it fails in either mode.
    const fatal = mode === 'fail' ? failed : failed.filter((s) => !s.summary);
    if (fatal.length > 0) throw smlError('FUSION_CELL_FAILED', { failures: fatal.map((s) => `[${cellName(s.cell)}] failed: ${s.error}`).join('; ') });
    return { summary: this.merged, stale: failed.map((s) => cellName(s.cell)), errors: failed.map((s) => `${cellName(s.cell)}: ${s.error}`) };
  }

  /** Fetches every cell now (or the named ones) and reports each; never throws for a cell's failure. */
  async probe(which?: (cell: FusionCell) => boolean): Promise<CellReport[]> {
    await this.refresh(true);
    return this.states.filter((s) => !which || which(s.cell)).map((s) => ({
      host: s.cell.host, cid: s.cell.cid, pid: s.cell.pid, status: s.status, rows: s.summary?.rowCount ?? 0, lastFetch: s.lastFetch, error: s.error,
    }));
  }

  /** One refresh at a time: a request arriving during one waits for it (forced: a probe starts its own after it). */
  private async refresh(force = false): Promise<void> {
    if (this.inflight) {
      await this.inflight;
      if (!force) return;
    }
    // Two probes that waited for the same refresh: the second waits for the first's own.
    while (this.inflight) await this.inflight;
    const run = this.fetchAll().finally(() => {
      this.inflight = undefined;
    });
    this.inflight = run;
    await run;
  }

  private async fetchAll(): Promise<void> {
    const started = this.now();
    const changed = await Promise.all(this.states.map((s) => this.fetchOne(s)));
    if (changed.some(Boolean)) this.remerge();
    this.refreshedAt = started;
  }

  /** Fetches one cell; true when its summary changed. */
  private async fetchOne(s: CellState): Promise<boolean> {
    const signal = AbortSignal.timeout(this.opts.cellTimeoutMs);
    try {
      const answer = await this.opts.fetcher.fetch(s.cell, s.summary ? s.version : '', signal);
      s.lastFetch = this.now();
      s.status = 'OK';
      s.error = '';
      if ('unchanged' in answer) return false;
      s.summary = Summary.deserialize(answer.summary, this.opts.checks);
      s.version = answer.version;
      return true;
    } catch (err) {
      s.status = err instanceof CellError ? err.status : 'UNREACHABLE';
      s.error = signal.aborted ? `no answer within ${this.opts.cellTimeoutMs} ms (SML_FUSION_CELL_TIMEOUT_MS)` : (err as Error).message;
      return false;
    }
  }

  /** The merge of every cell's last good summary; a cell whose attributes clash with the others' is left out (SCHEMA_CONFLICT). */
  private remerge(): void {
    const merged = new Summary(this.opts.checks.options);
    for (const s of this.states) {
      if (!s.summary) continue;
      try {
        merged.merge(s.summary);
      } catch (err) {
        s.status = 'SCHEMA_CONFLICT';
        s.error = (err as Error).message;
        s.summary = undefined;
        s.version = '';
      }
    }
    this.merged = merged;
  }
}

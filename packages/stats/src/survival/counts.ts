import type { ByteReader, ByteWriter } from '../binary';
import { addCounts, checkSubtractable, type Counts, fromTupleKey, increment, readCounts, tupleKey, writeCounts } from '../counts';
import { type CellCheck, categoryOf, cellText, type ParsedFrame, parseDecimal } from '../frame';
import type { Sign, SummaryPart } from '../parts';

/** The columns of a survival project (`km_time_column`, `km_event_column`, optional `km_group_column`). */
export interface SurvivalColumns {
  readonly time: string;
  readonly event: string;
  readonly group?: string;
}

/** One distinct time of one group. */
export interface SurvivalRow {
  readonly time: number;
  /** Rows with event 0. */
  readonly censored: number;
  /** events[k − 1] = rows with event type k. */
  readonly events: number[];
}

/**
 * Survival counts (STATS.md §1, §6): per group × distinct time, the number of rows censored
 * (event 0) and with each event type k ≥ 1. Kaplan-Meier and cumulative incidence are
 * computed from these. A row with a missing time, event or group is not counted here (it is
 * still learned by the rest of the summary); a frame without the time or event column
 * contributes nothing.
 */
export class SurvivalCounts implements SummaryPart<SurvivalCounts> {
  /** Key: [group, time, event type]. */
  private readonly counts: Counts = new Map();

  constructor(readonly columns: SurvivalColumns) {}

  /** The frame parser rejects (strict) or skips (lenient) rows failing these. */
  static cellChecks(columns: SurvivalColumns): Map<string, CellCheck> {
    const checks = new Map<string, CellCheck>();
    checks.set(columns.time, (text) => {
      const t = parseDecimal(text);
      if (Number.isNaN(t)) return `survival time [${text}] is not a number`;
      return t < 0 ? `survival time [${text}] is negative` : null;
    });
    checks.set(columns.event, (text) => {
      const e = parseDecimal(text);
      return Number.isInteger(e) && e >= 0 ? null : `survival event [${text}] is not an integer ≥ 0`;
    });
    return checks;
  }

  /** learn(parsed, -1) removes the frame's rows: throws SummaryError and changes nothing if one was never learned. */
  learn(parsed: ParsedFrame, sign: Sign): void {
    if (sign === -1) {
      const rows = new SurvivalCounts(this.columns);
      rows.learn(parsed, 1);
      return this.merge(rows, -1);
    }
    const timeColumn = parsed.names.indexOf(this.columns.time);
    const eventColumn = parsed.names.indexOf(this.columns.event);
    const groupColumn = this.columns.group === undefined ? -1 : parsed.names.indexOf(this.columns.group);
    if (timeColumn < 0 || eventColumn < 0 || (this.columns.group !== undefined && groupColumn < 0)) return;
    for (const row of parsed.rows) {
      const time = cellText(row[timeColumn]);
      const event = cellText(row[eventColumn]);
      const group = groupColumn < 0 ? '' : categoryOf(row[groupColumn]);
      if (time === null || event === null || group === null) continue;
      increment(this.counts, tupleKey([group, parseDecimal(time), parseDecimal(event)]));
    }
  }

  merge(other: SurvivalCounts, sign: Sign): void {
    this.checkMerge(other, sign);
    addCounts(this.counts, other.counts, sign);
  }

  checkMerge(other: SurvivalCounts, sign: Sign): void {
    if (sign === -1) checkSubtractable(this.counts, other.counts, 'survival');
  }

  /** Group names (trimmed, lower-cased values of the group column; '' without one), sorted. */
  groups(): string[] {
    return [...new Set([...this.counts.keys()].map((key) => fromTupleKey(key)[0] as string))].sort();
  }

  /** The distinct event types k ≥ 1 seen in any group, ascending. */
  eventTypes(): number[] {
    const types = new Set<number>();
    for (const key of this.counts.keys()) {
      const k = fromTupleKey(key)[2] as number;
      if (k > 0) types.add(k);
    }
    return [...types].sort((a, b) => a - b);
  }

  /** One row per distinct time of `group`, ascending; empty for an unknown group. */
  table(group: string): SurvivalRow[] {
    const byTime = new Map<number, { censored: number; events: number[] }>();
    for (const [key, count] of this.counts) {
      const [g, time, k] = fromTupleKey(key) as [string, number, number];
      if (g !== group) continue;
      let row = byTime.get(time);
      if (!row) byTime.set(time, (row = { censored: 0, events: [] }));
      if (k === 0) row.censored += count;
      else {
        while (row.events.length < k) row.events.push(0);
        row.events[k - 1] += count;
      }
    }
    // Every row lists the same event types, those seen anywhere in the group.
    const types = [...byTime.values()].reduce((most, row) => Math.max(most, row.events.length), 0);
    return [...byTime]
      .sort((a, b) => a[0] - b[0])
      .map(([time, row]) => ({ time, censored: row.censored, events: [...row.events, ...new Array<number>(types - row.events.length).fill(0)] }));
  }

  write(w: ByteWriter): void {
    writeCounts(w, this.counts);
  }

  read(r: ByteReader): void {
    for (const [key, c] of readCounts(r)) this.counts.set(key, c);
  }
}

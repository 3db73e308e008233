import { categoryOf, cellText, parseDecimal } from '../frame';
import { StateModel } from '../models/base';
import { num } from '../models/rows';
import { type Algorithm, ModelInputError, type ModelSpec, type PredictFrame, type Prediction } from '../models/types';
import type { Summary } from '../summary';
import type { SurvivalCounts } from './counts';
import { kaplanMeier, TOTAL_GROUP } from './kaplan-meier';
import { lastAtOrBefore, riskSet } from './risk-set';
import { as, numbers, object, readModelState, text } from '../models/state-read';

/** A step function at the event times: survival S(t) and Nelson-Aalen cumulative hazard H(t). */
interface Curve {
  times: number[];
  survival: number[];
  hazard: number[];
}

interface KmState {
  algo: 'km';
  inputNames: string[];
  targetNames: string[];
  timeColumn: string;
  groupColumn: string | null;
  /** Per group (trimmed, lower-cased value of the group column). */
  groups: Record<string, Curve>;
  total: Curve;
  info: Record<string, string>;
  extra: Record<string, string>;
}

/**
 * `km` (STATS.md §4, §6): the Kaplan-Meier curve of every group and of all groups pooled
 * (`Total`) as a model, from the project's survival counts. modelInfo.extra has, per group g,
 * `survival_<g>` and `hazard_<g>`: "t₁:v₁,t₂:v₂,…" at the event times (S(t) = Π(1 − dᵢ/nᵢ);
 * H(t) = Σ dᵢ/nᵢ, Nelson-Aalen, R survfit's `cumhaz`); both are steps, constant between
 * the times, S = 1 and H = 0 before the first. Predict: per row, `survival` and `hazard`
 * at the row's time for the row's group (README "km").
 */
export const km: Algorithm = {
  name: 'km',
  task: 'other',
  build(summary: Summary, _spec: ModelSpec) {
    const counts = summary.survival;
    if (counts === undefined) throw new ModelInputError('km needs a survival project (created with km_time_column and km_event_column)');
    const { time, event, group } = counts.columns;
    const groupNames = group === undefined ? [] : counts.groups();
    const groups = Object.fromEntries(groupNames.map((g) => [g, curveOf(counts, g)]));
    const total = curveOf(counts, null);
    const extra: Record<string, string> = {};
    for (const [g, curve] of [...Object.entries(groups), [TOTAL_GROUP, total] as const]) {
      extra[`survival_${g}`] = steps(curve.times, curve.survival);
      extra[`hazard_${g}`] = steps(curve.times, curve.hazard);
    }
    const risk = riskSet(counts, null);
    const state: KmState = {
      algo: 'km',
      inputNames: group === undefined ? [time, event] : [time, event, group],
      targetNames: [],
      timeColumn: time,
      groupColumn: group ?? null,
      groups,
      total,
      info: {
        groups: num(groupNames.length),
        rows: num(risk.length === 0 ? 0 : risk[0].atRisk),
        events: num(risk.reduce((s, r) => s + r.events, 0)),
        event_times: num(total.times.length),
      },
      extra,
    };
    return new KmModel(state);
  },
  restore(state) {
    const s = readModelState(state, 'km');
    text(s.timeColumn, 'state.timeColumn');
    if (s.groupColumn !== null) text(s.groupColumn, 'state.groupColumn');
    for (const [g, curve] of Object.entries(object(s.groups, 'state.groups'))) readCurve(curve, `state.groups.${g}`);
    readCurve(s.total, 'state.total');
    return new KmModel(as<KmState>(s));
  },
};

function curveOf(counts: SurvivalCounts, group: string | null): Curve {
  const rows = riskSet(counts, group).filter((r) => r.events > 0);
  const times = rows.map((r) => r.time);
  let hazard = 0;
  return {
    times,
    survival: kaplanMeier(counts, group, times).map((r) => r.survival),
    hazard: rows.map((r) => (hazard += r.events / r.atRisk)),
  };
}

/** A Curve read back (state-read.ts): one survival and one hazard per time. */
function readCurve(v: unknown, path: string): void {
  const c = object(v, path);
  const n = numbers(c.times, `${path}.times`).length;
  numbers(c.survival, `${path}.survival`, n);
  numbers(c.hazard, `${path}.hazard`, n);
}

const steps = (times: readonly number[], values: readonly number[]) => times.map((t, i) => `${num(t)}:${num(values[i])}`).join(',');

class KmModel extends StateModel<KmState> {
  /**
   * `survival` and `hazard` at the row's time (a number ≥ 0) for its group; the pooled curve
   * when the project has no group column, the frame none, or the cell is missing. An empty
   * map when the time is missing or invalid, or the group unknown.
   */
  predict(frame: PredictFrame): Prediction[] {
    const timeAt = frame.names.indexOf(this.s.timeColumn);
    const groupAt = this.s.groupColumn === null ? -1 : frame.names.indexOf(this.s.groupColumn);
    return frame.rows.map((cells): Prediction => {
      const text = timeAt < 0 ? null : cellText(cells[timeAt]);
      const t = text === null ? NaN : parseDecimal(text);
      if (!(t >= 0)) return {};
      const group = groupAt < 0 ? null : categoryOf(cells[groupAt]);
      const curve = group === null ? this.s.total : Object.hasOwn(this.s.groups, group) ? this.s.groups[group] : undefined;
      if (curve === undefined) return {};
      const i = lastAtOrBefore(curve.times, t);
      return { survival: num(i < 0 ? 1 : curve.survival[i]), hazard: num(i < 0 ? 0 : curve.hazard[i]) };
    });
  }
}

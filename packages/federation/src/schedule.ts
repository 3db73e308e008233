/**
 * The sync schedule: `<unit><N>`, ticks on multiples of the interval since the
 * Unix epoch so every peer sends in the same window, each node a little late at random so a
 * backbone is not hit by every peer in the same millisecond.
 */

/** SML_FED_MIN_INTERVAL_MS's default: one minute (`m1`). */
export const DEFAULT_MIN_INTERVAL_MS = 60_000;
/** N of `<unit><N>` is 1–9999. */
export const MAX_SCHEDULE_COUNT = 9999;
/** The random delay after a tick is at most min(10 % of the interval, 30 s). */
export const MAX_TICK_DELAY_MS = 30_000;

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
export type ScheduleUnit = keyof typeof UNIT_MS;

export interface Schedule {
  /** As given (the text peers store and show in `sync_sched`). */
  readonly text: string;
  readonly unit: ScheduleUnit;
  readonly count: number;
  readonly intervalMs: number;
}

/** A schedule the grammar or the bounds refuse; the message is the REST 400's statusString. */
export class ScheduleError extends Error {
  override readonly name = 'ScheduleError';
  constructor(readonly schedule: string) {
    super(`Invalid schedule [${schedule}]`);
  }
}

/**
 * Reads `<unit><N>`: unit m/h/d (case-insensitive), `s` only when the minimum interval is
 * below a minute (test and lab configurations), N an integer 1–9999 in digits only (no sign,
 * space or other unit); the interval must reach `minIntervalMs`.
 */
export function parseSchedule(text: string, minIntervalMs = DEFAULT_MIN_INTERVAL_MS): Schedule {
  const match = /^([smhdSMHD])([0-9]{1,4})$/.exec(text);
  if (match === null) throw new ScheduleError(text);
  const unit = match[1].toLowerCase() as ScheduleUnit;
  const count = Number(match[2]);
  if (unit === 's' && minIntervalMs >= UNIT_MS.m) throw new ScheduleError(text);
  if (count < 1 || count > MAX_SCHEDULE_COUNT) throw new ScheduleError(text);
  const intervalMs = count * UNIT_MS[unit];
  if (intervalMs < minIntervalMs) throw new ScheduleError(text);
  return { text, unit, count, intervalMs };
}

export interface Tick {
  /** The next multiple of the interval since the epoch, strictly after `now`. */
  readonly tickAt: number;
  /** tickAt plus this node's random delay: when to send. */
  readonly sendAt: number;
}

/**
 * The next tick after `nowMs` and when to send for it. `random` returns [0, 1) (Math.random in
 * a service; a fixed sequence in tests).
 */
export function nextTick(schedule: Pick<Schedule, 'intervalMs'>, nowMs: number, random: () => number): Tick {
  const interval = schedule.intervalMs;
  const tickAt = (Math.floor(nowMs / interval) + 1) * interval;
  const maxDelay = Math.min(Math.floor(interval / 10), MAX_TICK_DELAY_MS);
  return { tickAt, sendAt: tickAt + Math.floor(random() * (maxDelay + 1)) };
}

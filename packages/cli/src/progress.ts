import { SingleBar } from 'cli-progress';
import type { JobInfo } from '@sml/sdk';
import type { Writer } from './io';

/** A job's progress as a person reads it: `42%`, or empty before the job knows its size. */
export function percent(current: number, maximum: number): string {
  if (!(maximum > 0)) return '';
  return `${Math.min(100, Math.floor((current / maximum) * 100))}%`;
}

/** Where a long wait reports how far it got; always on stderr, since scripts parse stdout. */
export interface Progress {
  update(current: number, maximum: number): void;
  stop(): void;
}

/** Without a terminal (a log, a pipe) one plain line at most this often, so logs stay short. */
export const PLAIN_INTERVAL_MS = 5_000;

/**
 * A bar (cli-progress) when stderr is a terminal, else plain `label: 42% (3/7)` lines
 * (`label: running` while the size is unknown): the first at once, then at most one per
 * PLAIN_INTERVAL_MS, and the last value at stop.
 */
export function progress(stderr: Writer, label: string, now: () => number = Date.now): Progress {
  if (stderr.isTTY === true) {
    const bar = new SingleBar({
      stream: stderr as NodeJS.WritableStream,
      format: `${label} [{bar}] {percentage}% {value}/{total}`,
      hideCursor: true,
      clearOnComplete: true,
    });
    let started = false;
    return {
      update(current, maximum) {
        if (!(maximum > 0)) return; // no size yet: nothing to draw a bar of
        if (!started) bar.start(maximum, current);
        else bar.setTotal(maximum);
        started = true;
        bar.update(current);
      },
      stop: () => {
        if (started) bar.stop();
      },
    };
  }
  let last: { current: number; maximum: number } | undefined;
  let printedAt = -Infinity;
  let printed = '';
  const print = () => {
    if (!last) return;
    const { current, maximum } = last;
    const line = maximum > 0 ? `${label}: ${percent(current, maximum)} (${current}/${maximum})` : `${label}: running`;
    if (line === printed) return;
    stderr.write(`${line}\n`);
    printed = line;
    printedAt = now();
  };
  return {
    update(current, maximum) {
      last = { current, maximum };
      if (now() - printedAt >= PLAIN_INTERVAL_MS) print();
    },
    stop: print,
  };
}

/**
 * Shows `p` only once `ms` have passed since this call: a short transfer (one request, a
 * small file) stays as quiet as before, a long one says how far it got.
 */
export function afterDelay(p: Progress, ms: number, now: () => number = Date.now): Progress {
  const since = now();
  let shown = false;
  return {
    update(current, maximum) {
      shown ||= now() - since >= ms;
      if (shown) p.update(current, maximum);
    },
    stop: () => p.stop(),
  };
}

/** The `onRunning` of `waitForJob` that feeds a Progress. */
export const onJob = (p: Progress) => (info: JobInfo) => p.update(info.current, info.maximum);

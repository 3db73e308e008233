/**
 * Bounds on one read of a source: how long it may take in all, and how slowly it may send.
 * A source that trickles (1 byte every 2 s) never trips a silence timeout, since every byte
 * restarts it, and would hold a job, and one of its service's job slots, for ever; a read
 * under these bounds fails naming the source and the variable instead.
 *
 * The rate is measured over the time spent waiting on the source (a call to it pending), not
 * over the wall clock: a consumer that learns slowly (a wide summary, a busy thread) pauses
 * the clock, so it never makes a fast source look slow. Its windows start at the source's
 * first data: until then the source's own timeout bounds the wait (http, s3), or the deadline
 * does (a database computing a query's first rows). A timer runs only while a call is
 * pending, so a read its caller abandons leaves nothing behind.
 */
import type { Config } from '@sml/core';
import { SourceError, type ByteSource, type RowSource, type Source } from './types';

export interface ReadLimits {
  /** The whole read, wall clock, from the first call to the source (size, columns, open) to its last data. */
  deadlineMs: number;
  /** The variable that sets deadlineMs, named by the message (SML_SOURCE_READ_DEADLINE_MS, or SML_SOURCE_TIMEOUT_MS for a sample). */
  deadlineVariable: string;
  /** Least average rate, bytes a second of waiting (a row source: its cells' characters, + 1 a cell); 0 = none. */
  minBytesPerS: number;
  /** The rate is measured over each span of this much waiting (SML_SOURCE_RATE_WINDOW_MS). */
  windowMs: number;
}

/** Checks while waiting happen this often, at most every second (a fraction of the window). */
function tickOf(windowMs: number): number {
  return Math.max(50, Math.min(1000, Math.floor(windowMs / 4)));
}

/** One read's clock, counters and abort: the calls to the source go through `during`. */
export class ReadPace {
  private readonly controller = new AbortController();
  private readonly aborted: Promise<never>;
  private startedAt = -1;
  /** Waiting time of the calls that ended, ms. */
  private waited = 0;
  /** When the pending call(s) started waiting (-1: none pending). */
  private waitingSince = -1;
  private pending = 0;
  private bytes = 0;
  /** (waiting clock, bytes) a tick apart since the first data; the first is the window's base. */
  private samples: Array<[number, number]> = [];
  private ticker: NodeJS.Timeout | undefined;
  private readonly unlink: () => void;
  /** What the messages name (the source's describe(): never credentials). */
  what = 'the data source';

  constructor(private readonly limits: ReadLimits, parent?: AbortSignal) {
    this.aborted = new Promise<never>((_, reject) => {
      // The reason is an Error: a bound's SourceError, or the caller's (a cancelled job's) reason.
      this.controller.signal.addEventListener('abort', () => {
        const reason: unknown = this.controller.signal.reason;
        reject(reason instanceof Error ? reason : new Error(String(reason)));
      }, { once: true });
    });
    this.aborted.catch(() => undefined);
    const onAbort = () => this.controller.abort(parent?.reason);
    if (parent?.aborted) onAbort();
    else parent?.addEventListener('abort', onAbort, { once: true });
    this.unlink = () => parent?.removeEventListener('abort', onAbort);
  }

  /** The signal the source reads with: its caller's (a cancelled job), or a bound passed. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  private clock(now: number): number {
    return this.waited + (this.waitingSince >= 0 ? now - this.waitingSince : 0);
  }

  private fail(message: string): void {
    if (!this.controller.signal.aborted) this.controller.abort(new SourceError('unreachable', `${this.what}: ${message}`));
  }

  private check(now: number): void {
    const { deadlineMs, deadlineVariable, minBytesPerS, windowMs } = this.limits;
    if (now - this.startedAt > deadlineMs) {
      this.fail(`the read did not end within ${deadlineMs} ms (${deadlineVariable})`);
      return;
    }
    if (minBytesPerS <= 0 || this.samples.length === 0) return;
    const c = this.clock(now);
    if (c > this.samples[this.samples.length - 1][0]) this.samples.push([c, this.bytes]);
    // The base: the latest sample at least a window of waiting ago.
    while (this.samples.length > 1 && this.samples[1][0] <= c - windowMs) this.samples.shift();
    const [at, base] = this.samples[0];
    const span = c - at;
    if (span >= windowMs && (this.bytes - base) * 1000 < minBytesPerS * span) {
      this.fail(`sent ${this.bytes - base} bytes in ${(span / 1000).toFixed(1)} s of waiting, under the least rate of ${minBytesPerS} bytes/s (SML_SOURCE_MIN_BYTES_PER_S, over SML_SOURCE_RATE_WINDOW_MS = ${windowMs} ms)`);
    }
  }

  /**
   * One call to the source, timed: it fails with the bound's SourceError as soon as a bound
   * is passed, whether or not the source itself reacts to the abort.
   */
  async during<T>(call: () => Promise<T>): Promise<T> {
    const now = Date.now();
    if (this.startedAt < 0) this.startedAt = now;
    this.check(now);
    this.signal.throwIfAborted();
    if (this.pending++ === 0) {
      this.waitingSince = now;
      this.ticker = setInterval(() => this.check(Date.now()), tickOf(this.limits.windowMs));
    }
    try {
      return await Promise.race([call(), this.aborted]);
    } catch (err) {
      // A source failing because the bound aborted it fails with the bound's reason.
      if (this.signal.aborted) throw this.signal.reason;
      throw err;
    } finally {
      if (--this.pending === 0) {
        clearInterval(this.ticker);
        this.waited += Date.now() - this.waitingSince;
        this.waitingSince = -1;
      }
    }
  }

  /** Data came: `n` bytes (or characters of cells). The rate's windows start at the first. */
  got(n: number): void {
    if (this.samples.length === 0) this.samples.push([this.clock(Date.now()), this.bytes]);
    this.bytes += n;
  }

  /** The read ended (or was given up): nothing of it stays linked to its caller's signal. */
  end(): void {
    this.unlink();
  }
}

/** The items of `iterable`, each wait for the next one timed by `pace`, each item counted by `size`. */
async function* paced<T>(iterable: AsyncIterable<T>, pace: ReadPace, size: (item: T) => number): AsyncGenerator<T> {
  const it = iterable[Symbol.asyncIterator]();
  let waiting = false;
  try {
    for (;;) {
      waiting = true;
      const next = await pace.during(() => it.next());
      waiting = false;
      if (next.done) return;
      pace.got(size(next.value));
      yield next.value;
    }
  } finally {
    pace.end();
    // A call still pending (a bound passed while the source sent nothing) is not waited for:
    // the abort ends it; otherwise the source closes now (a caller that stopped early).
    if (waiting) void it.return?.()?.catch(() => undefined);
    else await it.return?.().catch(() => undefined);
  }
}

/** Characters of a batch of rows as a CSV would hold them, roughly: cells + 1 a cell. */
function rowsSize(rows: (string | null)[][]): number {
  let n = 0;
  for (const row of rows) {
    n += row.length;
    for (const cell of row) n += cell?.length ?? 0;
  }
  return n;
}

/** `source` with every call timed by `pace` (the source was made with `pace.signal`). */
export function pacedSource(source: Source, pace: ReadPace): Source {
  pace.what = source.describe();
  const timed = <T>(call: () => Promise<T>) => pace.during(call).catch((err: unknown) => {
    pace.end();
    throw err;
  });
  if (source.kind === 'bytes') {
    return {
      kind: 'bytes',
      describe: () => source.describe(),
      size: () => timed(() => source.size()),
      open: () => paced(source.open(), pace, (chunk) => chunk.length),
    } satisfies ByteSource;
  }
  return {
    kind: 'rows',
    describe: () => source.describe(),
    columns: () => timed(() => source.columns()),
    size: () => timed(() => source.size()),
    open: (batchRows) => paced(source.open(batchRows), pace, rowsSize),
  } satisfies RowSource;
}

/** What readLimitsOf reads of the configuration: a process that reads sources loads this slice. */
export const SOURCE_READ_CONFIG = ['SML_SOURCE_TIMEOUT_MS', 'SML_SOURCE_READ_DEADLINE_MS', 'SML_SOURCE_MIN_BYTES_PER_S', 'SML_SOURCE_RATE_WINDOW_MS'] as const satisfies readonly (keyof Config)[];
type PaceConfig = Pick<Config, (typeof SOURCE_READ_CONFIG)[number]>;

/**
 * The bounds of a read, from the config: a job's read (learn, forget, predict, selectModel,
 * encoder learnds) has the whole-read deadline and the least rate; a request's (sample,
 * preview) must end within SML_SOURCE_TIMEOUT_MS, before the gateway's request timeout.
 */
export function readLimitsOf(c: PaceConfig, read: 'job' | 'request'): ReadLimits {
  if (read === 'request') return { deadlineMs: c.SML_SOURCE_TIMEOUT_MS, deadlineVariable: 'SML_SOURCE_TIMEOUT_MS', minBytesPerS: 0, windowMs: c.SML_SOURCE_RATE_WINDOW_MS };
  return { deadlineMs: c.SML_SOURCE_READ_DEADLINE_MS, deadlineVariable: 'SML_SOURCE_READ_DEADLINE_MS', minBytesPerS: c.SML_SOURCE_MIN_BYTES_PER_S, windowMs: c.SML_SOURCE_RATE_WINDOW_MS };
}

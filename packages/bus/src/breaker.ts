export interface BreakerOptions {
  /** How long an open breaker waits before letting one trial request through (half-open). */
  resetMs: number;
  /** Timeouts in a row, with no answer between them, that open a breaker. */
  failures?: number;
}

/** Timeouts in a row that open a breaker, unless BreakerOptions.failures says otherwise. */
export const BREAKER_FAILURES = 5;

/** What a breaker lets a call do: go, go as the one half-open trial, or fail at once. */
export type Admission = 'go' | 'trial' | 'refused';

interface BreakerState {
  /** Timeouts in a row since the last answer. */
  failures: number;
  /** When it opened (undefined: closed). */
  openedAt?: number;
  /** A half-open trial is out: every other call is refused until it ends, or for resetMs. */
  trial: boolean;
  /** When the trial went out. */
  trialAt: number;
}

/**
 * Circuit breakers keyed by subject — one per operation of a service, and per shard of the
 * projects (`sml.projects.<shard>.<op>`) — so one operation or one shard that stops answering
 * never fails another's requests. Only a timeout counts: it is what piles requests up (each
 * holds a caller for the whole request timeout). An answer — whatever its Status, 4xx and 503
 * included — closes the breaker and clears its count; "no responders" (nobody subscribed:
 * a replica handing a shard over, a service restarting) is answered by NATS at once, costs
 * nothing to wait for, and is retried by BusClient rather than counted. `failures` timeouts in
 * a row open a breaker; after `resetMs` one trial goes through (half-open), and another each
 * `resetMs` while it is out: answered, the breaker closes with a clean count; timed out, it
 * opens for another `resetMs`.
 *
 * Pure bookkeeping (the caller says what happened), so the policy is tested without a clock
 * or a socket.
 */
export class Breakers {
  private readonly states = new Map<string, BreakerState>();
  private readonly failures: number;

  constructor(private readonly opts: BreakerOptions) {
    this.failures = opts.failures ?? BREAKER_FAILURES;
  }

  /** Whether a call on `key` may be sent now. A `trial` must be followed by answered, timedOut or released. */
  admit(key: string, now = Date.now()): Admission {
    const s = this.states.get(key);
    if (!s || s.openedAt === undefined) return 'go';
    // A trial still out after resetMs (it may wait the whole request timeout) lets another go:
    // a stalled trial must not refuse everything else for that long.
    if ((s.trial && now < s.trialAt + this.opts.resetMs) || now < s.openedAt + this.opts.resetMs) return 'refused';
    s.trial = true;
    s.trialAt = now;
    return 'trial';
  }

  /** The call was answered: the breaker closes and forgets every earlier timeout. */
  answered(key: string): void {
    this.states.delete(key);
  }

  /** The call timed out: one more in a row; the breaker opens at the threshold, or again after a failed trial. */
  timedOut(key: string, now = Date.now()): void {
    const s = this.states.get(key) ?? { failures: 0, trial: false, trialAt: 0 };
    s.failures++;
    if (s.trial || s.failures >= this.failures) s.openedAt = now;
    s.trial = false;
    this.states.set(key, s);
  }

  /**
   * The call ended without telling anything about the target (no responders, NATS down):
   * nothing counted; a trial it was lets the next call be the trial.
   */
  released(key: string): void {
    const s = this.states.get(key);
    if (s) s.trial = false;
  }

  /** Whether the breaker of `key` is open (or half-open): calls on it are refused now or soon. */
  isOpen(key: string): boolean {
    return this.states.get(key)?.openedAt !== undefined;
  }

  /** Keys of the open breakers (for logs and health). */
  get open(): string[] {
    return [...this.states].filter(([, s]) => s.openedAt !== undefined).map(([k]) => k);
  }
}

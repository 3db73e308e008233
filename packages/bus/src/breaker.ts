import CircuitBreaker from 'opossum';

export interface BreakerOptions {
  /** How long an open breaker waits before letting one trial request through. */
  resetMs: number;
  /** Failure percentage over the rolling window that opens the breaker. */
  errorThresholdPercentage?: number;
  /** Requests needed in the window before the breaker may open. */
  volumeThreshold?: number;
}

/**
 * One opossum breaker per target service: when a service keeps timing out or has no
 * responders, callers fail fast with 503 instead of piling up requests. Only transport
 * failures count; an error Status in a reply is data and never trips the breaker.
 */
export class Breakers {
  private readonly breakers = new Map<string, CircuitBreaker<[() => Promise<unknown>], unknown>>();
  constructor(private readonly opts: BreakerOptions) {}

  fire<T>(service: string, call: () => Promise<T>): Promise<T> {
    let b = this.breakers.get(service);
    if (!b) {
      b = new CircuitBreaker((fn: () => Promise<unknown>) => fn(), {
        timeout: false,
        resetTimeout: this.opts.resetMs,
        errorThresholdPercentage: this.opts.errorThresholdPercentage ?? 50,
        volumeThreshold: this.opts.volumeThreshold ?? 5,
        rollingCountTimeout: 10_000,
        name: service,
      });
      this.breakers.set(service, b);
    }
    return b.fire(call) as Promise<T>;
  }

  isOpen(service: string): boolean {
    return this.breakers.get(service)?.opened ?? false;
  }

  shutdown(): void {
    for (const b of this.breakers.values()) b.shutdown();
  }
}

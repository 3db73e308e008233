/**
 * Signatures seen within the authentication window (API.md §2 [ours]). A signature covers
 * the date with nanoseconds, so an honest client never repeats one; a repeat is a replay.
 * Kept in this process: with several gateway replicas a replay could land on another one —
 * see README "Known gaps".
 */
export class ReplayCache {
  private readonly seen = new Map<string, number>();
  private lastPrune = 0;

  constructor(private readonly ttlMs: number) {}

  /** Records the signature; false when it was already seen and has not expired. */
  remember(signature: string, now = Date.now()): boolean {
    this.prune(now);
    const expires = this.seen.get(signature);
    if (expires !== undefined && expires > now) return false;
    this.seen.set(signature, now + this.ttlMs);
    return true;
  }

  private prune(now: number): void {
    if (now - this.lastPrune < 10_000) return;
    this.lastPrune = now;
    for (const [sig, expires] of this.seen) if (expires <= now) this.seen.delete(sig);
  }
}

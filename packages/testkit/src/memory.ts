/**
 * Whether a reader's memory stays bounded, measured as a test can: the growth of the
 * process's RSS while it reads, counted from the moment `warmUp` units (bytes, rows) have
 * been read. The first units pay for one-off costs (modules, connection buffers, the
 * garbage collector reaching its steady state), which are not what grows with the size of
 * the source; a reader that kept what it read would grow by that much again after them.
 */
export class RssAfterWarmUp {
  /** Units read so far. */
  total = 0;
  private baseline: number | undefined;
  private peak = 0;

  constructor(private readonly warmUp: number) {}

  /** Call after each chunk or batch with how many units it held. */
  read(units: number): void {
    this.total += units;
    const rss = process.memoryUsage().rss;
    if (this.baseline === undefined) {
      if (this.total >= this.warmUp) this.baseline = this.peak = rss;
      return;
    }
    this.peak = Math.max(this.peak, rss);
  }

  /** Peak RSS after the warm-up, minus RSS at its end (bytes); 0 if it never ended. */
  get growth(): number {
    return this.baseline === undefined ? 0 : this.peak - this.baseline;
  }
}

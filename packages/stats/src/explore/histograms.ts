import { Histogram, type HistogramBin } from '../histogram';
import type { Summary } from '../summary';

/**
 * The histogram of t over the rows where binary c = 1 (`Summary.conditionalHistogram`), empty
 * when there is no such row; undefined when the summary keeps no histograms.
 */
export function conditionalHistogram(summary: Summary, c: number, t: number): Histogram | undefined {
  const mode = summary.options.histogram;
  if (mode === undefined) return undefined;
  return summary.conditionalHistogram(c, t) ?? new Histogram(mode, summary.options.histogramBins, summary.options.exactHistogramCap);
}

/**
 * Counts of several histograms of one attribute on a common set of values: the exact values
 * when every histogram is exact, else the bins of the widest streaming grid (streaming grids
 * are powers of two anchored at 0, so a finer bin lies inside exactly one coarser bin and an
 * exact value falls in the bin floor(value/width)). Keys ascending; one count array per histogram.
 */
export function alignHistograms(histograms: readonly Histogram[]): { keys: number[]; counts: number[][] } {
  const width = Math.max(0, ...histograms.map((h) => h.width));
  const keyOf = (bin: HistogramBin) => (width > 0 ? Math.floor(bin.lower / width) : bin.lower);
  const maps = histograms.map((h) => {
    const m = new Map<number, number>();
    for (const bin of h.toBins()) m.set(keyOf(bin), (m.get(keyOf(bin)) ?? 0) + bin.count);
    return m;
  });
  const keys = [...new Set(maps.flatMap((m) => [...m.keys()]))].sort((a, b) => a - b);
  return { keys, counts: maps.map((m) => keys.map((k) => m.get(k) ?? 0)) };
}

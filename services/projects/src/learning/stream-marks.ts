import type { sml } from '@sml/proto';

/** The op of a log entry that drops a deleted stream's marks (`streamPosition.stream`); it carries no rows. */
export const DROP_MARKS = 'dropMarks';

/**
 * The highest source offset a project learned from each (stream, partition) — what makes a
 * stream's learns apply once (README "Streams"). The position travels in the batch's log
 * entry and the marks in the snapshot, so they are exactly as durable as the rows they count:
 * a batch redelivered after a crash between its learn and the source's commit starts at or
 * below the mark and is answered `alreadyLearned` without being learned again.
 */
export class StreamMarks {
  private readonly marks = new Map<string, sml.v1.IStreamMark>();

  private static key(stream: string, partition: string): string {
    return `${stream}\u0000${partition}`;
  }

  /** The mark a batch starting at or below it meets (it must not be learned), else undefined. */
  covering(pos: sml.v1.IStreamPosition | null | undefined): number | undefined {
    if (!pos?.stream) return undefined;
    const mark = this.marks.get(StreamMarks.key(pos.stream, pos.partition ?? ''));
    return mark && Number(pos.firstOffset ?? 0) <= Number(mark.lastOffset) ? Number(mark.lastOffset) : undefined;
  }

  /** Records a logged (or replayed) stream batch. */
  advance(pos: sml.v1.IStreamPosition | null | undefined): void {
    if (!pos?.stream) return;
    const key = StreamMarks.key(pos.stream, pos.partition ?? '');
    const last = Number(pos.lastOffset ?? 0);
    if (Number(this.marks.get(key)?.lastOffset ?? -Infinity) < last) this.marks.set(key, { stream: pos.stream, partition: pos.partition ?? '', lastOffset: last });
  }

  /** Forgets every mark of a stream (all its partitions): the stream was deleted. */
  drop(stream: string): void {
    for (const [key, mark] of this.marks) if (mark.stream === stream) this.marks.delete(key);
  }

  load(marks: readonly sml.v1.IStreamMark[] | null | undefined): void {
    for (const m of marks ?? []) this.advance({ stream: m.stream, partition: m.partition, firstOffset: m.lastOffset, lastOffset: m.lastOffset });
  }

  list(): sml.v1.IStreamMark[] {
    return [...this.marks.values()];
  }
}

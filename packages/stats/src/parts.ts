import type { ByteReader, ByteWriter } from './binary';
import type { ParsedFrame } from './frame';

/** Adding (1) or removing (-1): the one spelling of subtraction across the summary's parts. */
export type Sign = 1 | -1;

/**
 * A statistic the summary keeps, with one way to change it (STYLE.md "a statistic is a part
 * with one interface"). The laws every part keeps, up to the rounding of compensated sums
 * (test/parts.laws.test.ts): learning A then B equals learning A and B's parts merged;
 * merge(B, -1) after merge(B, 1) gives A back; learn(rows, -1) removes what learn(rows, 1)
 * added; read(write()) is the same part; learning in chunks equals learning at once.
 *
 * Removing (sign -1) throws SummaryError and changes nothing when a count would go negative
 * (rows never learned). The summary, a composite of parts, calls checkMerge on every part
 * before it merges any, so a subtraction that fails changes no part.
 *
 * `Input` is what the part learns: a frame's rows for the parts that belong to no attribute,
 * values for a histogram.
 */
export interface SummaryPart<Self, Input = ParsedFrame> {
  learn(input: Input, sign: Sign): void;
  merge(other: Self, sign: Sign): void;
  /** Throws what merge(other, sign) would throw, changing nothing. */
  checkMerge(other: Self, sign: Sign): void;
  write(w: ByteWriter): void;
  /** Reads what write() wrote into this (empty) part. */
  read(r: ByteReader): void;
}

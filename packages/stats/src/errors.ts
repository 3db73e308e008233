/**
 * A DataFrame that cannot be learned: malformed cell, ragged row, unknown type code,
 * duplicate or conflicting attribute names, too many attributes. `row` is the 1-based data
 * row (-1 when the problem is not tied to a row), `column` the attribute name ('' when not
 * tied to a column). The projects service answers it with a 400 carrying `message`.
 */
export class FrameError extends Error {
  override readonly name = 'FrameError';
  readonly kind = 'frame';
  constructor(
    readonly row: number,
    readonly column: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(frameErrorMessage(row, column, reason), options);
  }
}

function frameErrorMessage(row: number, column: string, reason: string): string {
  const where = [row > 0 ? `row ${row}` : '', column !== '' ? `column [${shownText(column)}]` : ''].filter((s) => s !== '');
  return escapeLoneSurrogates(where.length === 0 ? reason : `Invalid DataFrame at ${where.join(', ')}: ${reason}`);
}

/** Longest piece of client text (a name, a cell) an error message repeats. */
const SHOWN_CHARACTERS = 100;

/** Client text as an error message shows it: cut after 100 characters, unpaired surrogates escaped. */
export function shownText(text: string): string {
  return escapeLoneSurrogates(text.length <= SHOWN_CHARACTERS ? text : `${text.slice(0, SHOWN_CHARACTERS)}… (${text.length} characters)`);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** Whether a string holds an unpaired surrogate (it cannot be written as UTF-8: not valid Unicode text). */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/**
 * `\ud800` for each unpaired surrogate: messages travel as protobuf strings (UTF-8), which
 * cannot hold one.
 */
function escapeLoneSurrogates(text: string): string {
  return text.replace(LONE_SURROGATES, (s) => `\\u${s.charCodeAt(0).toString(16)}`);
}

/**
 * What a SummaryError means, which is what its REST answer depends on (one mapper,
 * `@sml/core` domain-errors.ts): forgetting what was never learned, naming an attribute the
 * summary lacks, combining summaries (or encoders) that cannot be combined, reading a damaged
 * serialization, or asking a summary what its options cannot answer (`summary-input`: a lag
 * or n-gram length out of range, an invalid option, a value too large for a batch summary).
 */
export type SummaryErrorKind = 'not-learned' | 'unknown-attribute' | 'incompatible' | 'damaged' | 'summary-input';

/**
 * An operation between summaries that would corrupt the statistics: forgetting rows that
 * were never learned (a count would become negative), merging summaries built with
 * different options, reading an unknown attribute, or decoding a damaged serialization.
 * The summary is left unchanged. `attribute` names the attribute concerned ('' if none).
 */
export class SummaryError extends Error {
  override readonly name = 'SummaryError';
  constructor(
    readonly kind: SummaryErrorKind,
    readonly reason: string,
    readonly attribute = '',
    options?: { cause?: unknown },
  ) {
    super(attribute === '' ? reason : `${reason} [${attribute}]`, options);
  }
}

/** Which bounded state a CapacityError is about: the REST answer names its variable by it. */
export type CapacityResource = 'attributes' | 'partitions' | 'sequence' | 'encoder-values';

/**
 * Learning a batch would make a summary keep more state than its limit allows (sequence
 * counts, partitions): the batch is refused whole and nothing changes. `what` names the
 * state, `size` is what it would hold, `limit` the bound (the service's configuration).
 */
export class CapacityError extends Error {
  override readonly name = 'CapacityError';
  readonly kind = 'capacity';
  constructor(
    readonly resource: CapacityResource,
    readonly what: string,
    readonly size: number,
    readonly limit: number,
  ) {
    super(`learning this batch would keep ${size} ${what}, over the limit of ${limit}`);
  }
}

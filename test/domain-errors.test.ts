/**
 * The one mapper from domain errors to catalogue codes (`@sml/core` domain-errors.ts), over
 * every kind, with the libraries' real error classes: what each kind answers (status, code,
 * message), an encoder's errors in the encoders' words, and what is left alone. Here, not in
 * packages/core: core cannot import the libraries whose errors it maps.
 */
import { isDomainError, JsonBodyError, SmlError, toSmlError, type DomainErrorKind, type ErrorSubject } from '@sml/core';
import { SourceError } from '@sml/sources';
import {
  CapacityError, ExploreInputError, FrameError, MatrixInputError, ModelInputError, ModelStateError, SingularSystemError, SummaryError, SurvivalInputError,
  type SummaryErrorKind,
} from '@sml/stats';

/** Every kind the libraries' errors carry is a kind the mapper knows (checked by `npm run typecheck`). */
type LibraryKind = SummaryErrorKind | FrameError['kind'] | CapacityError['kind'] | ModelInputError['kind'] | ModelStateError['kind']
  | ExploreInputError['kind'] | MatrixInputError['kind'] | SurvivalInputError['kind'] | SourceError['kind'] | JsonBodyError['kind'];
export const libraryKinds: readonly DomainErrorKind[] = [] as LibraryKind[];

const subject: ErrorSubject = { pid: 'p', ds: 'd', other: 'q', model: 'm' };

/** One real error of each kind; a Record, so a kind added to DomainErrorKind without a case here does not compile. */
const errors: Record<DomainErrorKind, () => Error> = {
  frame: () => new FrameError(2, 'x', 'not a number'),
  'not-learned': () => new SummaryError('not-learned', 'cannot forget rows that were never learned', 'x'),
  'unknown-attribute': () => new SummaryError('unknown-attribute', 'unknown attribute', 'nope'),
  incompatible: () => new SummaryError('incompatible', 'summaries built with different options cannot be combined'),
  damaged: () => new SummaryError('damaged', 'damaged summary serialization: trailing bytes'),
  'summary-input': () => new SummaryError('summary-input', 'lag must be an integer in 1..2', 's'),
  capacity: () => new CapacityError('sequence', 'sequence counts', 12, 10),
  'model-input': () => new ModelInputError('lambda must be ≥ 0'),
  singular: () => new SingularSystemError('singular system: collinear attributes [a, b]'),
  'model-state': () => new ModelStateError('state.coefficients is not an array (null)'),
  'explore-input': () => new ExploreInputError('ztest needs a continuous attribute'),
  'matrix-input': () => new MatrixInputError('Less than 2 attributes'),
  'survival-input': () => new SurvivalInputError('alpha must be in (0, 1)'),
  source: () => new SourceError('invalid', 'info path is required'),
  json: () => new JsonBodyError('Unexpected end of JSON input'),
};

/** What each kind answers for a project request (`subject`): [status, code, message]. */
const answers: Record<DomainErrorKind, [number, string, string] | 'unchanged'> = {
  frame: [400, 'INVALID_FRAME', 'Invalid DataFrame at row 2, column [x]: not a number'],
  'not-learned': [400, 'FORGET_NOT_LEARNED', 'Cannot forget rows that were never learned: cannot forget rows that were never learned [x]; nothing was changed'],
  'unknown-attribute': [400, 'UNKNOWN_ATTRIBUTE', 'Unknown attribute [nope] in project [p]'],
  incompatible: [400, 'MERGE_INCOMPATIBLE', 'Cannot merge project [q] into [p]: summaries built with different options cannot be combined'],
  damaged: 'unchanged',
  'summary-input': [400, 'EXPLORE_INPUT', 'lag must be an integer in 1..2 [s]'],
  capacity: [400, 'STATE_LIMIT', 'Project [p]: learning this batch would keep 12 sequence counts, over the limit of 10 (SML_MAX_SEQUENCE_NGRAMS); nothing was learned'],
  'model-input': [400, 'MODEL_INPUT', 'lambda must be ≥ 0'],
  singular: [500, 'SINGULAR_SYSTEM', 'Generic Exception [java.lang.Exception: singular system: collinear attributes [a, b]]'],
  'model-state': [400, 'MODEL_STATE_INVALID', 'Model [m] of project [p] has a state its algorithm cannot read (state.coefficients is not an array (null)): build it again, or import it from a valid document'],
  'explore-input': [400, 'EXPLORE_INPUT', 'ztest needs a continuous attribute'],
  'matrix-input': [400, 'EXPLORE_INPUT', 'Less than 2 attributes'],
  'survival-input': [400, 'SURVIVAL_INPUT', 'alpha must be in (0, 1)'],
  source: [400, 'DS_INVALID', 'Invalid data source [d]: info path is required'],
  json: [400, 'MALFORMED_JSON', 'Malformed JSON body: Unexpected end of JSON input'],
};

const answered = (err: unknown): unknown => {
  const out = toSmlError(err, subject);
  if (out === err) return 'unchanged';
  return out instanceof SmlError ? [out.status, out.code, out.message] : out;
};

describe('toSmlError: one mapper, by kind', () => {
  it.each(Object.keys(errors) as DomainErrorKind[])('%s', (kind) => {
    const err = errors[kind]();
    expect(isDomainError(err)).toBe(true);
    expect((err as Error & { kind: string }).kind).toBe(kind);
    expect(answered(err)).toEqual(answers[kind]);
    const out = toSmlError(err, subject);
    if (out !== err) expect((out as SmlError).cause).toBe(err);
  });

  it('a source that cannot be reached, found or opened is unreadable, not invalid', () => {
    for (const reason of ['not-found', 'denied', 'unreachable'] as const) {
      expect(answered(new SourceError(reason, 'cannot connect to h'))).toEqual([400, 'DS_UNREADABLE', 'Data source [d] cannot be read: cannot connect to h']);
    }
  });

  it('a limit with no variable of its own, and one named by its resource', () => {
    expect(answered(new CapacityError('attributes', 'attributes', 3, 2))).toEqual([400, 'STATE_LIMIT', 'Project [p]: learning this batch would keep 3 attributes, over the limit of 2 (a resource limit); nothing was learned']);
    expect(answered(new CapacityError('partitions', 'partitions', 3, 2))).toEqual([400, 'STATE_LIMIT', 'Project [p]: learning this batch would keep 3 partitions, over the limit of 2 (SML_MAX_PARTITIONS); nothing was learned']);
  });

  it("an encoder's input errors and limit, in the encoders' words; a damaged encoder stays an internal error", () => {
    const encoder = (err: Error) => {
      const out = toSmlError(err, { encoder: 'e' });
      return out instanceof SmlError ? [out.status, out.code, out.message] : 'unchanged';
    };
    expect(encoder(new CapacityError('encoder-values', 'distinct key values', 5, 4)))
      .toEqual([400, 'ENCODER_LIMIT', 'Encoder [e]: learning this batch would keep 5 distinct key values, over the limit of 4 (SML_MAX_ENCODER_VALUES); nothing was learned']);
    expect(encoder(new FrameError(-1, 'k', 'the key has 9 characters'))).toEqual([400, 'ENCODER_INPUT', 'Invalid DataFrame at column [k]: the key has 9 characters']);
    expect(encoder(new SummaryError('not-learned', 'cannot subtract value [v] seen more often than here', 'k'))).toEqual([400, 'ENCODER_INPUT', 'cannot subtract value [v] seen more often than here [k]']);
    expect(encoder(new SummaryError('incompatible', 'encoders with different targets cannot be combined'))).toEqual([400, 'ENCODER_INPUT', 'encoders with different targets cannot be combined']);
    expect(encoder(new SummaryError('damaged', 'damaged encoder serialization: value slots'))).toBe('unchanged');
  });

  it('leaves SmlErrors and errors of no domain as they are; JSON.parse errors are malformed JSON', () => {
    const sml = new SmlError('INTERNAL', 500, 'x');
    expect(toSmlError(sml, subject)).toBe(sml);
    const plain = new TypeError('x is undefined');
    expect(toSmlError(plain, subject)).toBe(plain);
    expect(isDomainError(plain)).toBe(false);
    expect(isDomainError(Object.assign(new Error('x'), { kind: 'mystery' }))).toBe(false);
    expect(isDomainError({ kind: 'frame', message: 'not an Error' })).toBe(false);
    let syntax: unknown;
    try {
      JSON.parse('{');
    } catch (err) {
      syntax = err;
    }
    expect(answered(syntax)).toEqual([400, 'MALFORMED_JSON', expect.stringMatching(/^Malformed JSON body: /)]);
  });
});

import { SmlError, smlError } from './errors';

/**
 * What went wrong, as the libraries that know nothing of REST say it: every error class of
 * `@sml/stats` (which depends on no package), `@sml/sources` and `json.ts` carries one of these
 * as `kind`. `toSmlError` is the one place a kind becomes a catalogue code, for every service
 * and for the gateway's REST and WebSocket answers alike.
 */
export type DomainErrorKind =
  // @sml/stats FrameError, SummaryError (SummaryErrorKind), CapacityError
  | 'frame' | 'not-learned' | 'unknown-attribute' | 'incompatible' | 'damaged' | 'summary-input' | 'capacity'
  // @sml/stats ModelInputError, SingularSystemError, ModelStateError, ExploreInputError, MatrixInputError, SurvivalInputError
  | 'model-input' | 'singular' | 'model-state' | 'explore-input' | 'matrix-input' | 'survival-input'
  // @sml/sources SourceError; core JsonBodyError
  | 'source' | 'json';

/** A domain error: its kind, and the fields the answers of some kinds name. */
export interface DomainError extends Error {
  readonly kind: DomainErrorKind;
  /** unknown-attribute: the attribute named. */
  readonly attribute?: string;
  /** capacity: which bounded state (CapacityResource), naming its variable. */
  readonly resource?: string;
  /** source: invalid | not-found | denied | unreachable. */
  readonly reason?: string;
}

/** What the request was about: the names an answer's message carries. */
export interface ErrorSubject {
  pid?: string;
  /** An encoder's input errors are answered in the encoders' words (ENCODER_INPUT, ENCODER_LIMIT). */
  encoder?: string;
  /** The data source read. */
  ds?: string;
  /** The project merged into `pid`. */
  other?: string;
  /** The model whose stored state was read. */
  model?: string;
}

/** The variable that bounds each CapacityResource (a limit with no variable of its own reads 'a resource limit'). */
const CAPACITY_VARIABLE: Readonly<Record<string, string>> = {
  sequence: 'SML_MAX_SEQUENCE_NGRAMS', partitions: 'SML_MAX_PARTITIONS', 'encoder-values': 'SML_MAX_ENCODER_VALUES',
};

type Answer = (err: DomainError, subject: ErrorSubject) => SmlError | undefined;

const detail = (err: DomainError) => ({ detail: err.message });

/**
 * Kind → catalogue code. `damaged` (a serialization this service stored and cannot read back)
 * is no fault of the request: it stays what it is, an Internal error that is logged.
 */
const ANSWERS: Readonly<Record<DomainErrorKind, Answer>> = {
  frame: (e) => smlError('INVALID_FRAME', detail(e), e),
  'not-learned': (e) => smlError('FORGET_NOT_LEARNED', detail(e), e),
  'unknown-attribute': (e, s) => smlError('UNKNOWN_ATTRIBUTE', { name: e.attribute ?? '', pid: s.pid ?? '' }, e),
  incompatible: (e, s) => smlError('MERGE_INCOMPATIBLE', { other: s.other ?? '', pid: s.pid ?? '', reason: e.message }, e),
  damaged: () => undefined,
  'summary-input': (e) => smlError('EXPLORE_INPUT', detail(e), e),
  capacity: (e, s) => smlError('STATE_LIMIT', { pid: s.pid ?? '', detail: e.message, variable: capacityVariable(e) }, e),
  'model-input': (e) => smlError('MODEL_INPUT', detail(e), e),
  // A singular system is the seed's 500 (STATS.md §4).
  singular: (e) => smlError('SINGULAR_SYSTEM', detail(e), e),
  'model-state': (e, s) => smlError('MODEL_STATE_INVALID', { model: s.model ?? '', pid: s.pid ?? '', detail: e.message }, e),
  'explore-input': (e) => smlError('EXPLORE_INPUT', detail(e), e),
  'matrix-input': (e) => smlError('EXPLORE_INPUT', detail(e), e),
  'survival-input': (e) => smlError('SURVIVAL_INPUT', detail(e), e),
  source: (e, s) => smlError(e.reason === 'invalid' ? 'DS_INVALID' : 'DS_UNREADABLE', { ds: s.ds ?? '', detail: e.message }, e),
  json: (e) => smlError('MALFORMED_JSON', detail(e), e),
};

/** The kinds an encoder's statistics (@sml/stats Encoder) are refused with: the request's input, in the encoders' words. */
const ENCODER_INPUT_KINDS: ReadonlySet<DomainErrorKind> = new Set(['frame', 'not-learned', 'unknown-attribute', 'incompatible', 'summary-input']);

function capacityVariable(err: DomainError): string {
  return CAPACITY_VARIABLE[err.resource ?? ''] ?? 'a resource limit';
}

/** Whether `err` is a domain error of a library (an Error whose `kind` this mapper knows). */
export function isDomainError(err: unknown): err is DomainError {
  if (!(err instanceof Error)) return false;
  const kind: unknown = (err as Error & { kind?: unknown }).kind;
  return typeof kind === 'string' && Object.hasOwn(ANSWERS, kind);
}

/**
 * The SmlError a domain error answers with, by its kind (and, for an encoder, in the encoders'
 * words); an SmlError as it is; anything else (a JSON.parse SyntaxError aside: malformed JSON)
 * returned unchanged, for the caller to rethrow: the bus answers it as a logged Internal error.
 */
export function toSmlError(err: unknown, subject: ErrorSubject = {}): unknown {
  if (err instanceof SmlError) return err;
  if (err instanceof SyntaxError) return smlError('MALFORMED_JSON', { detail: err.message }, err);
  if (!isDomainError(err)) return err;
  if (subject.encoder !== undefined) {
    if (err.kind === 'capacity') return smlError('ENCODER_LIMIT', { encoder: subject.encoder, detail: err.message, variable: capacityVariable(err) }, err);
    if (ENCODER_INPUT_KINDS.has(err.kind)) return smlError('ENCODER_INPUT', detail(err), err);
  }
  return ANSWERS[err.kind](err, subject) ?? err;
}

/** Runs `fn`, its domain errors thrown as the SmlErrors they answer with (toSmlError). */
export async function answeringDomainErrors<T>(subject: ErrorSubject, fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toSmlError(err, subject);
  }
}

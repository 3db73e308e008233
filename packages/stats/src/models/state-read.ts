/**
 * Reading a model's JSON state back (Algorithm.restore): a state comes from this service's own
 * store, but also from an imported document, whose digests anyone recomputes. Each algorithm's
 * restore reads its state through these checks, so that a state it could not predict from
 * (`{}`, a nested array where numbers are, tables of the wrong size, a forest whose nodes loop)
 * is refused when it is read, naming the field, instead of failing (or never ending) in every
 * later predict. The checks only walk what the state holds: their cost is linear in its size.
 *
 * A number may be JSON's `null`: JSON.stringify writes NaN and ±Infinity so, and a built model
 * can hold them (a log of 0); a predict reads such a field as it always has.
 */
export class ModelStateError extends Error {
  override readonly name = 'ModelStateError';
  readonly kind = 'model-state';
}

function fail(path: string, what: string): never {
  throw new ModelStateError(`${path} ${what}`);
}

const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

export function object(v: unknown, path: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(path, `is not an object (${kind(v)})`);
  return v as Record<string, unknown>;
}

export function text(v: unknown, path: string): string {
  if (typeof v !== 'string') fail(path, `is not a string (${kind(v)})`);
  return v;
}

export function flag(v: unknown, path: string): boolean {
  if (typeof v !== 'boolean') fail(path, `is not true or false (${kind(v)})`);
  return v;
}

/** A number, or null (JSON's NaN or ±Infinity). */
export function number(v: unknown, path: string): number {
  if (typeof v !== 'number' && v !== null) fail(path, `is not a number (${kind(v)})`);
  return v as number;
}

/** An integer in [min, max]. */
export function integer(v: unknown, path: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) fail(path, `is not an integer in [${min}, ${max}] (${typeof v === 'number' ? v : kind(v)})`);
  return v;
}

export function list(v: unknown, path: string, length?: number): unknown[] {
  if (!Array.isArray(v)) fail(path, `is not an array (${kind(v)})`);
  if (length !== undefined && v.length !== length) fail(path, `has ${v.length} entries, not ${length}`);
  return v;
}

export function numbers(v: unknown, path: string, length?: number): number[] {
  const a = list(v, path, length);
  for (let i = 0; i < a.length; i++) number(a[i], `${path}[${i}]`);
  return a as number[];
}

export function texts(v: unknown, path: string, length?: number): string[] {
  const a = list(v, path, length);
  for (let i = 0; i < a.length; i++) text(a[i], `${path}[${i}]`);
  return a as string[];
}

/** Rows × columns of numbers (either undefined: any). */
export function matrix(v: unknown, path: string, rows?: number, columns?: number): number[][] {
  const a = list(v, path, rows);
  for (let i = 0; i < a.length; i++) numbers(a[i], `${path}[${i}]`, columns);
  return a as number[][];
}

export function textMap(v: unknown, path: string): Record<string, string> {
  const o = object(v, path);
  for (const [k, x] of Object.entries(o)) text(x, `${path}.${k}`);
  return o as Record<string, string>;
}

export function choice<T extends string>(v: unknown, path: string, choices: readonly T[]): T {
  if (!choices.includes(v as T)) fail(path, `is not one of ${choices.join(', ')} (${typeof v === 'string' ? JSON.stringify(v.slice(0, 40)) : kind(v)})`);
  return v as T;
}

/**
 * What every model's state holds (base.ts ModelState): `algo` (one of `algos`), inputNames and
 * targetNames (text), info and extra (text maps). Answers the state as an object.
 */
export function readModelState(state: unknown, algos: string | readonly string[]): Record<string, unknown> {
  const s = object(state, 'state');
  choice(s.algo, 'state.algo', typeof algos === 'string' ? [algos] : algos);
  texts(s.inputNames, 'state.inputNames');
  texts(s.targetNames, 'state.targetNames');
  textMap(s.info, 'state.info');
  textMap(s.extra, 'state.extra');
  return s;
}

/** A SnapshotState (classifiers/model.ts): a ModelState with one mean per input; answers the state and its number of inputs. */
export function readSnapshotState(state: unknown, algos: string | readonly string[]): { s: Record<string, unknown>; p: number } {
  const s = readModelState(state, algos);
  const p = (s.inputNames as string[]).length;
  numbers(s.means, 'state.means', p);
  return { s, p };
}

/** A LinearState (linear.ts): intercept, one coefficient and one mean per input. */
export function readLinearState(state: unknown, algos: string | readonly string[]): Record<string, unknown> {
  const { s, p } = readSnapshotState(state, algos);
  numbers(s.coef, 'state.coef', p);
  number(s.intercept, 'state.intercept');
  return s;
}

/** The state after its checks, as the algorithm's own type. */
export const as = <S>(s: Record<string, unknown>): S => s as unknown as S;

/** The class names of a multiclass state (at least one: a predict answers one of them). */
export function classCount(v: unknown): number {
  const k = texts(v, 'state.classes').length;
  if (k === 0) fail('state.classes', 'is empty');
  return k;
}

import { smlError } from './errors';
import { clip } from './limits';

const NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$/;

/** API.md §1: 1–128 chars of [A-Za-z0-9_.-], not starting with "." and without "..". */
export function isValidName(name: unknown): name is string {
  return typeof name === 'string' && NAME.test(name) && !name.includes('..');
}

export function checkName(kind: string, name: unknown): string {
  if (!isValidName(name)) throw smlError('INVALID_NAME', { kind, name: clip(typeof name === 'string' ? name : JSON.stringify(name) ?? '', 200) });
  return name;
}

/**
 * Encodes a (valid) name into a token safe for a KV key, an object name and a NATS subject
 * token: "." would split subject tokens, so it is escaped together with the escape char "_".
 * Injective, so two names never share a key.
 */
export function nameToken(name: string): string {
  return name.replace(/_/g, '__').replace(/\./g, '_d');
}

export function tokenToName(token: string): string {
  return token.replace(/_d|__/g, (m) => (m === '__' ? '_' : '.'));
}

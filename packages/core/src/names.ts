import { controlAt, smlError, type SmlError } from './errors';
import { clip } from './limits';

const NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$/;

/** API.md §1: 1–128 chars of [A-Za-z0-9_.-], not starting with "." and without "..". */
export function isValidName(name: unknown): name is string {
  return typeof name === 'string' && NAME.test(name) && !name.includes('..');
}

/**
 * Why a name with a control character is refused, e.g. `character 15 is the control character
 * U+000D; ` for `Iris_virginica\r` (a Windows line end left on a CSV value); empty otherwise.
 */
function controlReason(name: string): string {
  const at = controlAt(name);
  if (at < 0) return '';
  const code = name.charCodeAt(at).toString(16).toUpperCase().padStart(4, '0');
  const hint = code === '000D' ? ' (a carriage return: a Windows line ending left in the value?)' : '';
  return `character ${at + 1} is the control character U+${code}${hint}; names are `;
}

export function checkName(kind: string, name: unknown): string {
  if (isValidName(name)) return name;
  throw invalidName(kind, name);
}

/**
 * The INVALID_NAME error of a name that is not valid: the name shown clipped (formatMessage
 * escapes its control characters: \r, \u0000) and the first control character named by
 * position. The gateway's checks of names in URLs answer this message too.
 */
export function invalidName(kind: string, name: unknown): SmlError {
  const text = typeof name === 'string' ? name : JSON.stringify(name) ?? '';
  return smlError('INVALID_NAME', { kind, name: clip(text, 200), reason: typeof name === 'string' ? controlReason(name) : '' });
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

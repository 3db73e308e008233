import { smlError } from './errors';
import { clip } from './limits';

const NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$/;

/** API.md §1: 1–128 chars of [A-Za-z0-9_.-], not starting with "." and without "..". */
export function isValidName(name: unknown): name is string {
  return typeof name === 'string' && NAME.test(name) && !name.includes('..');
}

// C0 controls and DEL: invisible in a message, so a name holding one is refused by position.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/g;

/**
 * Why a name with a control character is refused, e.g. `character 15 is the control character
 * U+000D; ` for `Iris_virginica\r` (a Windows line end left on a CSV value); empty otherwise.
 */
function controlReason(name: string): string {
  const at = name.search(CONTROL); // search ignores the g flag and lastIndex
  if (at < 0) return '';
  const code = name.charCodeAt(at).toString(16).toUpperCase().padStart(4, '0');
  const hint = code === '000D' ? ' (a carriage return: a Windows line ending left in the value?)' : '';
  return `character ${at + 1} is the control character U+${code}${hint}; names are `;
}

export function checkName(kind: string, name: unknown): string {
  if (isValidName(name)) return name;
  const text = typeof name === 'string' ? name : JSON.stringify(name) ?? '';
  // Control characters shown escaped (\r, \u0000), so the message stays one readable line.
  const shown = clip(text, 200).replace(CONTROL, (c) => JSON.stringify(c).slice(1, -1));
  throw smlError('INVALID_NAME', { kind, name: shown, reason: typeof name === 'string' ? controlReason(name) : '' });
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

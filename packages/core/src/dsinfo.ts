/**
 * Encrypted DSInfo bodies (API.md §2.4), keyed by the customer's secret. `v1` is the compat
 * format existing SymetryML clients send (AES-128-CBC, fixed IV, so unauthenticated);
 * `v2` is AES-128-GCM with a random nonce, which the SDK sends.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { smlError } from './errors';

export type DsInfoFormat = 'v1' | 'v2';

/** Fixed by the compat clients; it is why v1 leaks equal plaintext prefixes and v2 exists. */
const V1_IV = Buffer.from('LzM5QUtXZXWHm7HJ4wAePg==', 'base64');
const V2_PREFIX = 'v2:';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

function aesKey(secret: string): Buffer {
  const key = Buffer.from(secret, 'base64');
  if (key.length !== 16) throw new RangeError('a customer secret is base64 of 16 bytes');
  return key;
}

/** The body to send for `obj`: base64 text (v1) or `v2:` + base64 text (v2). */
export function encryptDsInfo(obj: unknown, secret: string, options: { format?: DsInfoFormat } = {}): string {
  const key = aesKey(secret);
  const plaintext = Buffer.from(JSON.stringify(obj), 'utf8');
  if (options.format === 'v1') {
    const cipher = createCipheriv('aes-128-cbc', key, V1_IV);
    return Buffer.concat([cipher.update(plaintext), cipher.final()]).toString('base64');
  }
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-128-gcm', key, nonce);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return V2_PREFIX + Buffer.concat([nonce, ciphertext, cipher.getAuthTag()]).toString('base64');
}

/** Node's base64 decoder skips junk silently; a payload must be well-formed base64 (line breaks allowed, as openssl writes them). */
function strictBase64(text: string): Buffer {
  const compact = text.replace(/\s+/g, '');
  if (compact.length === 0 || !BASE64.test(compact)) throw new Error('not base64');
  return Buffer.from(compact, 'base64');
}

function decryptV1(data: Buffer, key: Buffer): Buffer {
  const decipher = createDecipheriv('aes-128-cbc', key, V1_IV);
  return Buffer.concat([decipher.update(data), decipher.final()]);
}

function decryptV2(data: Buffer, key: Buffer): Buffer {
  if (data.length < NONCE_BYTES + TAG_BYTES) throw new Error('v2 payload shorter than nonce + tag');
  const decipher = createDecipheriv('aes-128-gcm', key, data.subarray(0, NONCE_BYTES));
  decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
  return Buffer.concat([decipher.update(data.subarray(NONCE_BYTES, data.length - TAG_BYTES)), decipher.final()]);
}

/**
 * The DSInfo carried by a request body: the raw payload or the same payload as a JSON
 * string literal. Every failure (encoding, padding, tag, key, JSON) is the same
 * INVALID_ENCRYPTED_PAYLOAD so that the answer is no padding or tag oracle. A payload
 * that decrypts to JSON `null` returns null: rejecting that is the caller's rule (§3.3).
 */
export function decryptDsInfo(body: string, secret: string): unknown {
  try {
    const trimmed = body.trim();
    const payload: unknown = trimmed.startsWith('"') ? JSON.parse(trimmed) : trimmed;
    if (typeof payload !== 'string') throw new Error('JSON body is not a string literal');
    const key = aesKey(secret);
    const plaintext = payload.startsWith(V2_PREFIX)
      ? decryptV2(strictBase64(payload.slice(V2_PREFIX.length)), key)
      : decryptV1(strictBase64(payload), key);
    return JSON.parse(utf8.decode(plaintext));
  } catch (cause) {
    throw smlError('INVALID_ENCRYPTED_PAYLOAD', {}, cause);
  }
}

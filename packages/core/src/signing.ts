/**
 * The request-signing scheme of API.md §2, shared by the SDK (which signs) and the gateway
 * (which verifies) so that both build the string to sign from one definition. Pure
 * functions: no clock, no I/O; the caller supplies the date and the request parts.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Stands in for the secret in the string to sign that a 401 'Invalid Signature' returns. */
export const REDACTED_SECRET = 'SECRETKEY';

const SYM_DATE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:;(\d{1,9}))?$/;
const NANOS_PER_MS = 1_000_000;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/**
 * `yyyy-MM-dd HH:mm:ss;N` in UTC, N = sub-second nanoseconds, unpadded. Without `nanos`
 * the date's milliseconds are used; with it, `nanos` replaces them (the SDK adds random
 * sub-millisecond digits so that two requests in the same millisecond sign differently).
 */
export function formatSymDate(date: Date, nanos?: number): string {
  const n = nanos ?? date.getUTCMilliseconds() * NANOS_PER_MS;
  if (!Number.isInteger(n) || n < 0 || n >= 1_000_000_000) throw new RangeError(`nanos must be an integer in [0, 1e9), got ${n}`);
  const day = `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
  const time = `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
  return `${day} ${time};${n}`;
}

/** Epoch milliseconds of a `Sym-date` value, or undefined when it is not exactly that format. */
export function parseSymDate(value: string): number | undefined {
  const m = SYM_DATE.exec(value);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  // setUTC* (unlike Date.UTC) keeps years 0-99 literal; it rolls 2024-02-30 over to March,
  // so a field that moved means the date was invalid.
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, 0);
  const exact = d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day
    && d.getUTCHours() === hour && d.getUTCMinutes() === minute && d.getUTCSeconds() === second;
  if (!exact) return undefined;
  return d.getTime() + Math.floor(Number(m[7] ?? 0) / NANOS_PER_MS);
}

/** Base64 MD5 of the exact body bytes; '' when there is no body (an empty body is none). */
export function contentMd5(body: Uint8Array | string | undefined): string {
  if (body === undefined || body.length === 0) return '';
  return createHash('md5').update(body).digest('base64');
}

export interface SignedParts {
  method: string;
  /** The Content-MD5 header value ('' when there is no body). */
  contentMd5: string;
  /** The customer's secret key as its base64 text. */
  secret: string;
  /** The Sym-date header value, verbatim. */
  symDate: string;
  /** The Customer-ID header value (the customer's id, `user` elsewhere in the code). */
  customerId: string;
  /** Raw body; bytes are read as UTF-8. Absent or empty: the line is omitted. */
  body?: Uint8Array | string;
  /** Path (`/symetry/rest/c1/projects`) or full URL (`http://host:port/symetry/rest/c1/projects`), as the client signed it. */
  resource: string;
  /** Raw query string without `?`. Absent or empty: the line is omitted. */
  query?: string;
}

function lines(parts: Omit<SignedParts, 'secret'>, secretText: string): string {
  const out = [parts.method.toUpperCase(), parts.contentMd5, secretText, parts.symDate, parts.customerId];
  if (parts.body !== undefined && parts.body.length > 0) out.push(typeof parts.body === 'string' ? parts.body : Buffer.from(parts.body.buffer, parts.body.byteOffset, parts.body.byteLength).toString('utf8'));
  out.push(parts.resource);
  if (parts.query) out.push(parts.query);
  return `${out.join('\n')}\n`;
}

/** The message that is HMAC-signed (API.md §2): one line per part, always ending with '\n'. */
export function stringToSign(parts: SignedParts): string {
  return lines(parts, parts.secret);
}

/** The same string with the secret replaced by `SECRETKEY`, safe to return to the client. */
export function redactedStringToSign(parts: Omit<SignedParts, 'secret'>): string {
  return lines(parts, REDACTED_SECRET);
}

/** base64(HMAC-SHA256(key = base64decode(secret), stringToSign)). */
export function signature(secretBase64: string, message: string): string {
  return createHmac('sha256', Buffer.from(secretBase64, 'base64')).update(message, 'utf8').digest('base64');
}

/**
 * signature(secret, stringToSign(parts)) without building the string: the HMAC is fed the
 * lines and the body bytes as they are, which saves copying a multi-megabyte body twice.
 * A Buffer body is signed as its raw bytes (the same as its UTF-8 text when it is valid UTF-8).
 */
export function signParts(parts: SignedParts): string {
  return restSignatures(parts, [parts.resource])[0];
}

/**
 * signParts for each resource form the client may have signed (the path, the full URL), reading
 * the body once: the resource comes after the body in the string to sign, so only the lines
 * after it are hashed once per form (hmacWithSuffixes). A client that signs the URL, as the
 * public Rust client does, otherwise costs the gateway a second pass over a large body.
 */
export function restSignatures(parts: Omit<SignedParts, 'resource'>, resources: string[]): string[] {
  const head = `${[parts.method.toUpperCase(), parts.contentMd5, parts.secret, parts.symDate, parts.customerId].join('\n')}\n`;
  const prefix: Array<Uint8Array | string> = parts.body !== undefined && parts.body.length > 0 ? [head, parts.body, '\n'] : [head];
  return hmacWithSuffixes(parts.secret, prefix, resources.map((resource) => `${resource}\n${parts.query ? `${parts.query}\n` : ''}`));
}

/** The signature carried by an Authorization header, bare or as `Bearer <signature>`. */
export function bareSignature(authorization: string): string {
  const m = /^Bearer\s+(.*)$/i.exec(authorization.trim());
  return (m ? m[1] : authorization).trim();
}

/**
 * Constant-time comparison of the expected signature with the Authorization header value,
 * so that response timing reveals nothing about how many leading characters matched.
 */
export function verifySignature(expected: string, provided: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(bareSignature(provided), 'utf8');
  // The signature length is public (44 base64 chars), so a length mismatch may exit early.
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A new customer secret: 16 random bytes, base64 (24 characters); also the AES key (§2.4). */
export function generateSecret(): string {
  return randomBytes(16).toString('base64');
}

/**
 * The parts of a WebSocket message's string to sign (API.md §12): Content-MD5, secret, date,
 * customer id, body, service path, then one extra key per line. SymetryML's documentation ends
 * the last key without a newline and signs the path (`/symetry/ws/learn`); the public Rust
 * client signs the full URL (`ws://host:port/symetry/ws/learn`) and ends every key with one.
 */
export interface WsSignedParts {
  contentMd5: string;
  secret: string;
  symDate: string;
  customerId: string;
  body?: Uint8Array | string;
  /** The path or the full `ws://` URL, as the client signed it. */
  servicePath: string;
  extraKeys: string[];
  /** A newline after the last extra key (the Rust client's form). */
  trailingNewline?: boolean;
}

function wsHead(parts: Omit<WsSignedParts, 'secret' | 'servicePath' | 'extraKeys'>, secretText: string): string {
  return `${[parts.contentMd5, secretText, parts.symDate, parts.customerId].join('\n')}\n`;
}

function wsTail(servicePath: string, extraKeys: string[], trailingNewline: boolean): string {
  const keys = extraKeys.join('\n');
  return `${servicePath}\n${keys}${trailingNewline && extraKeys.length > 0 ? '\n' : ''}`;
}

function bodyText(body: Uint8Array | string): string {
  return typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
}

/** The WebSocket string to sign (API.md §12); the body line is there even when empty. */
export function wsStringToSign(parts: WsSignedParts): string {
  return `${wsHead(parts, parts.secret)}${parts.body === undefined ? '' : bodyText(parts.body)}\n${wsTail(parts.servicePath, parts.extraKeys, parts.trailingNewline === true)}`;
}

/** The same string with the secret replaced by `SECRETKEY`, safe to return to the client. */
export function redactedWsStringToSign(parts: Omit<WsSignedParts, 'secret'>): string {
  return wsStringToSign({ ...parts, secret: REDACTED_SECRET });
}

const SHA256_BLOCK = 64;

/**
 * base64(HMAC-SHA256(key, prefix ‖ suffix)) for each suffix, reading the prefix (a multi-megabyte
 * body) once: the inner hash of the prefix is copied for each suffix (RFC 2104 spelled out,
 * since an Hmac object cannot be copied).
 */
export function hmacWithSuffixes(secretBase64: string, prefix: Array<Uint8Array | string>, suffixes: string[]): string[] {
  let key: Buffer = Buffer.from(secretBase64, 'base64');
  if (key.length > SHA256_BLOCK) key = createHash('sha256').update(key).digest();
  const padded = Buffer.alloc(SHA256_BLOCK);
  key.copy(padded);
  const inner = createHash('sha256').update(padded.map((b) => b ^ 0x36));
  for (const part of prefix) {
    if (typeof part === 'string') inner.update(part, 'utf8');
    else inner.update(part);
  }
  const outerKey = padded.map((b) => b ^ 0x5c);
  return suffixes.map((suffix) => {
    const innerDigest = inner.copy().update(suffix, 'utf8').digest();
    return createHash('sha256').update(outerKey).update(innerDigest).digest('base64');
  });
}

/** The signatures a WebSocket message may carry: one per accepted form (service path or URL, with or without the last newline). */
export function wsSignatures(parts: Omit<WsSignedParts, 'servicePath' | 'trailingNewline'>, servicePaths: string[]): string[] {
  const head = wsHead(parts, parts.secret);
  const prefix: Array<Uint8Array | string> = parts.body === undefined ? [head, '\n'] : [head, parts.body, '\n'];
  const suffixes = servicePaths.flatMap((path) => [wsTail(path, parts.extraKeys, false), wsTail(path, parts.extraKeys, true)]);
  return hmacWithSuffixes(parts.secret, prefix, [...new Set(suffixes)]);
}

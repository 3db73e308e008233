/**
 * Invitations: the map of keys a joiner needs,
 * encrypted with a password the admin passes on by another channel, and the single-use token
 * inside it that the admin redeems once.
 */
import { createCipheriv, createDecipheriv, createHash, pbkdf2, randomBytes } from 'node:crypto';

/** Password cipher: PBKDF2-SHA256 with 600 000 iterations (OWASP 2023), 16-byte salt → AES-256-GCM. */
export const INVITATION_PREFIX = 'v2p:';
export const PBKDF2_ITERATIONS = 600_000;
const SALT_BYTES = 16;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/** Wrong password, garbled or not an invitation: one answer for all (nothing tells which). */
export class InvitationError extends Error {
  override readonly name = 'InvitationError';
  constructor() {
    super('Invalid federation invitation');
  }
}

function passwordKey(password: string, salt: Uint8Array): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    pbkdf2(Buffer.from(password, 'utf8'), salt, PBKDF2_ITERATIONS, KEY_BYTES, 'sha256', (e, key) => (e ? reject(e) : resolve(key)));
  });
}

/**
 * `v2p:` + base64(salt ‖ nonce ‖ ciphertext ‖ tag) of the map's JSON. Asynchronous: the key
 * derivation takes a few hundred milliseconds by design and must not stall a service.
 */
export async function encryptInvitation(map: Readonly<Record<string, string>>, password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', await passwordKey(password, salt), nonce);
  const ct = Buffer.concat([cipher.update(JSON.stringify(map), 'utf8'), cipher.final()]);
  return INVITATION_PREFIX + Buffer.concat([salt, nonce, ct, cipher.getAuthTag()]).toString('base64');
}

/** The invitation's map (flat string → string); InvitationError for a wrong password or anything garbled. */
export async function decryptInvitation(text: string, password: string): Promise<Record<string, string>> {
  if (!text.startsWith(INVITATION_PREFIX)) throw new InvitationError();
  const bytes = Buffer.from(text.slice(INVITATION_PREFIX.length), 'base64');
  if (bytes.length < SALT_BYTES + NONCE_BYTES + TAG_BYTES) throw new InvitationError();
  const salt = bytes.subarray(0, SALT_BYTES);
  const nonce = bytes.subarray(SALT_BYTES, SALT_BYTES + NONCE_BYTES);
  let map: unknown;
  try {
    const decipher = createDecipheriv('aes-256-gcm', await passwordKey(password, salt), nonce);
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    map = JSON.parse(Buffer.concat([decipher.update(bytes.subarray(SALT_BYTES + NONCE_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8'));
  } catch {
    throw new InvitationError();
  }
  if (typeof map !== 'object' || map === null || Array.isArray(map) || !Object.values(map).every((v) => typeof v === 'string')) throw new InvitationError();
  return map as Record<string, string>;
}

// ---- tokens ----

const TOKEN_PREFIX = 'FEDTOKEN';
/** `fed_token_timeout_hours`: default 2 (SymetryML's lifespan), at most a week. */
export const DEFAULT_TOKEN_HOURS = 2;
export const MAX_TOKEN_HOURS = 168;

/** A new single-use token: `FEDTOKEN` + 32 hex (128 random bits). */
export function newInvitationToken(): string {
  return TOKEN_PREFIX + randomBytes(16).toString('hex');
}

export function isInvitationToken(text: string): boolean {
  return /^FEDTOKEN[0-9a-f]{32}$/.test(text);
}

/** The token's storage key: SHA-256 hex, so a copy of the store cannot redeem a token. */
export function tokenDigest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * The lifetime of a token in ms from `fed_token_timeout_hours` (undefined: the default);
 * null when it is not a number of hours in (0, 168].
 */
export function tokenLifetimeMs(hours: string | undefined): number | null {
  if (hours === undefined) return DEFAULT_TOKEN_HOURS * 3_600_000;
  if (!/^\d+(\.\d+)?$/.test(hours.trim())) return null;
  const h = Number(hours);
  return h > 0 && h <= MAX_TOKEN_HOURS ? Math.round(h * 3_600_000) : null;
}

/** What is stored under tokenDigest(token). */
export interface TokenRecord {
  /** Epoch ms. */
  readonly expiresAt: number;
  /** The node uuid that redeemed it; null while unused. */
  readonly usedBy: string | null;
}

export function newTokenRecord(now: number, lifetimeMs: number): TokenRecord {
  return { expiresAt: now + lifetimeMs, usedBy: null };
}

export type RedeemRefusal = 'unknown' | 'expired' | 'used';

export type RedeemDecision =
  | { readonly ok: true; readonly record: TokenRecord }
  | { readonly ok: false; readonly reason: RedeemRefusal; readonly message: string };

const REFUSED = 'Federation token expired or already used';

/**
 * Whether `peer` may redeem the token whose record is `record` (undefined: never issued) at
 * `now`, and the record to write with a compare-and-set if so. Unknown, expired and used
 * tokens get one message, so a guesser learns nothing; the reason is for the admin's log.
 * A retry by the peer that already redeemed it is refused too: a token admits once.
 */
export function redeemToken(record: TokenRecord | undefined, now: number, peer: string): RedeemDecision {
  if (record === undefined) return { ok: false, reason: 'unknown', message: REFUSED };
  if (record.usedBy !== null) return { ok: false, reason: 'used', message: REFUSED };
  if (now >= record.expiresAt) return { ok: false, reason: 'expired', message: REFUSED };
  return { ok: true, record: { ...record, usedBy: peer } };
}

/**
 * Sync messages: a signed header published on `smlfed.<T>.sum.<peer>` and a
 * blob put in the object store. The group key K_enc gives confidentiality and membership, the
 * sender's Ed25519 signature gives origin. Also the group-key envelope of join requests and
 * replies. Pure: the service fetches and publishes, this module seals and checks.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { canonicalBytes } from './canonical';
import { signBytes, verifyBytes } from './keys';
import type { Roster } from './roster';

export const SYNC_VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** SML_FED_CLOCK_SKEW_S's default: 300 s either side of the receiver's clock. */
export const DEFAULT_CLOCK_SKEW_MS = 300_000;
/** Default bound on a blob's decompressed size: a 2000-attribute summary is ≈ 210 MB. */
export const DEFAULT_MAX_SUMMARY_BYTES = 512 * 1024 * 1024;

/** The header every peer signs. */
export interface SyncHeader {
  readonly v: number;
  /** The federation's subject token T. */
  readonly fed: string;
  /** The sender's node uuid. */
  readonly peer: string;
  /** The sender's send counter: strictly increasing, so a replayed message is refused. */
  readonly seq: number;
  /** Epoch milliseconds at sealing. */
  readonly sentAt: number;
  readonly rows: number;
  readonly attrs: number;
  readonly schemaHash: string;
  readonly contractVersion: number;
  /** SHA-256 (hex) of the blob as stored (nonce-encrypted bytes and tag). */
  readonly blobDigest: string;
  /** AES-GCM nonce, base64. */
  readonly nonce: string;
}

/** What is published: the header and the sender's signature of its canonical JSON. */
export interface SyncMessage {
  readonly header: SyncHeader;
  readonly signature: string;
}

/** Why a message was refused (one counter and one error-log reason each). */
export type SyncRejection = 'malformed' | 'not-member' | 'signature' | 'federation' | 'clock' | 'replay' | 'digest' | 'decrypt' | 'too-large';

export type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: SyncRejection; readonly detail: string };

const reject = (reason: SyncRejection, detail: string): Checked<never> => ({ ok: false, reason, detail });

export interface SealInput {
  readonly fed: string;
  readonly enc: Uint8Array;
  readonly peer: string;
  readonly privateKey: string;
  readonly seq: number;
  readonly sentAt: number;
  readonly rows: number;
  readonly attrs: number;
  readonly schemaHash: string;
  readonly contractVersion: number;
  /** The shared summary's serialization. */
  readonly bytes: Uint8Array;
}

/**
 * AAD of a blob: the canonical header without `blobDigest` (the digest is of the encrypted
 * blob, so it cannot be inside the blob's own AAD; the signature covers it).
 */
function blobAad(header: Omit<SyncHeader, 'blobDigest'> & { blobDigest?: string }): Buffer {
  const { blobDigest: _digest, ...rest } = header;
  return canonicalBytes(rest);
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** Seals a summary: blob = AES-128-GCM(K_enc, nonce, gzip(bytes), AAD) ‖ tag, header signed. */
export function sealSync(input: SealInput, nonce: Uint8Array = randomBytes(NONCE_BYTES)): { message: SyncMessage; blob: Buffer } {
  const unsigned = {
    v: SYNC_VERSION, fed: input.fed, peer: input.peer, seq: input.seq, sentAt: input.sentAt, rows: input.rows, attrs: input.attrs,
    schemaHash: input.schemaHash, contractVersion: input.contractVersion, nonce: Buffer.from(nonce).toString('base64'),
  };
  const cipher = createCipheriv('aes-128-gcm', input.enc, nonce);
  cipher.setAAD(blobAad(unsigned));
  const blob = Buffer.concat([cipher.update(gzipSync(input.bytes)), cipher.final(), cipher.getAuthTag()]);
  const header: SyncHeader = { ...unsigned, blobDigest: sha256(blob) };
  return { message: { header, signature: signBytes(input.privateKey, canonicalBytes(header)) }, blob };
}

function isHeader(h: unknown): h is SyncHeader {
  if (typeof h !== 'object' || h === null) return false;
  const r = h as Record<string, unknown>;
  const count = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
  return r.v === SYNC_VERSION && typeof r.fed === 'string' && typeof r.peer === 'string' && count(r.seq) && count(r.sentAt)
    && count(r.rows) && count(r.attrs) && typeof r.schemaHash === 'string' && count(r.contractVersion)
    && typeof r.blobDigest === 'string' && typeof r.nonce === 'string' && Buffer.from(r.nonce, 'base64').length === NONCE_BYTES;
}

export interface ReceiveContext {
  readonly fed: string;
  readonly roster: Roster;
  /** The receiver's clock, epoch ms. */
  readonly now: number;
  readonly clockSkewMs?: number;
  /** The last seq accepted from `peer` (undefined: none yet). */
  readonly lastSeq: (peer: string) => number | undefined;
}

/**
 * The header checks, in the protocol's order, before the blob is fetched: the message is
 * well formed and from a roster member; signature with that member's key; the federation; the
 * clock window; seq above the last accepted from that peer.
 */
export function checkSyncHeader(message: unknown, ctx: ReceiveContext): Checked<SyncHeader> {
  const m = message as Partial<SyncMessage> | null;
  if (typeof m !== 'object' || m === null || !isHeader(m.header) || typeof m.signature !== 'string') return reject('malformed', 'malformed sync message');
  const header = m.header;
  const publicKey = Object.hasOwn(ctx.roster.members, header.peer) ? ctx.roster.members[header.peer] : undefined;
  if (publicKey === undefined) return reject('not-member', `peer ${header.peer} is not in the roster (version ${ctx.roster.version})`);
  if (!verifyBytes(publicKey, canonicalBytes(header), m.signature)) return reject('signature', `bad signature for peer ${header.peer}`);
  if (header.fed !== ctx.fed) return reject('federation', 'message of another federation');
  const skew = ctx.clockSkewMs ?? DEFAULT_CLOCK_SKEW_MS;
  if (Math.abs(header.sentAt - ctx.now) > skew) {
    return reject('clock', `sentAt ${new Date(header.sentAt).toISOString()} outside ±${skew / 1000} s of ${new Date(ctx.now).toISOString()}`);
  }
  const last = ctx.lastSeq(header.peer);
  if (last !== undefined && header.seq <= last) return reject('replay', `seq ${header.seq} not above the last accepted ${last}`);
  return { ok: true, value: header };
}

/** The blob checks after the header's: digest, then decryption (AAD = the header), then gunzip within `maxBytes`. */
export function openSyncBlob(header: SyncHeader, blob: Uint8Array, enc: Uint8Array, maxBytes = DEFAULT_MAX_SUMMARY_BYTES): Checked<Buffer> {
  if (sha256(blob) !== header.blobDigest) return reject('digest', 'blob digest does not match the header');
  if (blob.length < TAG_BYTES) return reject('decrypt', 'blob too short');
  let compressed: Buffer;
  try {
    const decipher = createDecipheriv('aes-128-gcm', enc, Buffer.from(header.nonce, 'base64'));
    decipher.setAAD(blobAad(header));
    decipher.setAuthTag(blob.subarray(blob.length - TAG_BYTES));
    compressed = Buffer.concat([decipher.update(blob.subarray(0, blob.length - TAG_BYTES)), decipher.final()]);
  } catch {
    return reject('decrypt', 'blob does not decrypt with the federation key');
  }
  try {
    return { ok: true, value: gunzipSync(compressed, { maxOutputLength: maxBytes }) };
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' ? reject('too-large', `summary larger than ${maxBytes} bytes`) : reject('decrypt', 'blob is not gzip');
  }
}

/** Every receive check in order: the header's, then (only if they pass) the blob's. */
export function openSync(message: unknown, blob: Uint8Array, ctx: ReceiveContext & { readonly enc: Uint8Array; readonly maxBytes?: number }): Checked<{ header: SyncHeader; bytes: Buffer }> {
  const header = checkSyncHeader(message, ctx);
  if (!header.ok) return header;
  const bytes = openSyncBlob(header.value, blob, ctx.enc, ctx.maxBytes);
  return bytes.ok ? { ok: true, value: { header: header.value, bytes: bytes.value } } : bytes;
}

/** What a group-key envelope is for: its AAD, so a join request cannot be replayed as a reply. */
export type GroupPurpose = 'join-request' | 'join-reply';

/**
 * A JSON value under K_enc (join requests `{token, peer, pid, publicKey}` and their replies):
 * base64(nonce ‖ ciphertext ‖ tag), AAD = `sml-fed v1 <purpose> <T>`.
 */
export function sealGroup(enc: Uint8Array, fed: string, purpose: GroupPurpose, value: unknown, nonce: Uint8Array = randomBytes(NONCE_BYTES)): string {
  const cipher = createCipheriv('aes-128-gcm', enc, nonce);
  cipher.setAAD(Buffer.from(`sml-fed v1 ${purpose} ${fed}`, 'utf8'));
  const ct = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return Buffer.concat([nonce, ct, cipher.getAuthTag()]).toString('base64');
}

/** sealGroup's value, or undefined when it does not open with this key, federation and purpose. */
export function openGroup(enc: Uint8Array, fed: string, purpose: GroupPurpose, sealed: string): unknown {
  const bytes = Buffer.from(sealed, 'base64');
  if (bytes.length < NONCE_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-128-gcm', enc, bytes.subarray(0, NONCE_BYTES));
    decipher.setAAD(Buffer.from(`sml-fed v1 ${purpose} ${fed}`, 'utf8'));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    const text = Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

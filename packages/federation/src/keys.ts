/**
 * Key material, node:crypto only. From the federation's shared secret K
 * (`fed_secret_key`, 16 random bytes in base64) HKDF-SHA256 derives K_enc, the AES-128-GCM key
 * of sync blobs and join requests, and T, the subject token that names the federation on a
 * shared backbone (`fed_id`) without showing its name. Each node signs with its own Ed25519 key.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, hkdfSync, type KeyObject, randomBytes, sign, verify } from 'node:crypto';

/** Length of `fed_secret_key` (decoded), K_enc and the subject token's bytes. */
export const SECRET_KEY_BYTES = 16;
/**
 * HKDF labels: one per derived key, so K_enc and T are independent. No salt (RFC 5869 §3.1:
 * K is already uniformly random); a version in the label lets a later format derive anew.
 */
const ENC_INFO = 'sml-fed v1 enc';
const SUBJECT_INFO = 'sml-fed v1 subject';

/** A key the federation cannot use (wrong length, not base64, not Ed25519). */
export class FederationKeyError extends Error {
  override readonly name = 'FederationKeyError';
}

/** HKDF-SHA256 (RFC 5869) of `length` bytes. */
export function hkdfSha256(ikm: Uint8Array, salt: Uint8Array, info: Uint8Array | string, length: number): Buffer {
  return Buffer.from(hkdfSync('sha256', ikm, salt, typeof info === 'string' ? Buffer.from(info, 'utf8') : info, length));
}

/** RFC 4648 base32, upper case, unpadded: a NATS subject token and stream-name safe spelling. */
export function base32(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

export interface FederationKeys {
  /** AES-128-GCM key of sync blobs and join requests. */
  readonly enc: Buffer;
  /** Subject token T (26 base32 characters): `fed_id`, `smlfed.<T>.*`, `SMLFED_<T>`. */
  readonly subjectToken: string;
}

/** A new `fed_secret_key`: 16 random bytes, base64. */
export function newSecretKey(): string {
  return randomBytes(SECRET_KEY_BYTES).toString('base64');
}

/** K_enc and T from `fed_secret_key`. */
export function deriveFederationKeys(secretKey: string): FederationKeys {
  const k = Buffer.from(secretKey, 'base64');
  if (k.length !== SECRET_KEY_BYTES || k.toString('base64') !== secretKey) throw new FederationKeyError(`fed_secret_key must be ${SECRET_KEY_BYTES} bytes in base64`);
  const none = Buffer.alloc(0);
  return {
    enc: hkdfSha256(k, none, ENC_INFO, SECRET_KEY_BYTES),
    subjectToken: base32(hkdfSha256(k, none, SUBJECT_INFO, SECRET_KEY_BYTES)),
  };
}

/** DER prefixes of a raw Ed25519 key: PKCS#8 private (RFC 8410 §7), SPKI public. */
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');
const ED25519_BYTES = 32;

/** A node's Ed25519 key pair as stored: the 32-byte seed and the 32-byte public key, base64. */
export interface NodeKeyPair {
  readonly privateKey: string;
  readonly publicKey: string;
}

function raw(text: string, what: string): Buffer {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length !== ED25519_BYTES) throw new FederationKeyError(`${what} must be a ${ED25519_BYTES}-byte Ed25519 key in base64`);
  return bytes;
}

function privateKeyObject(seed: string): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, raw(seed, 'private key')]), format: 'der', type: 'pkcs8' });
}

function publicKeyObject(publicKey: string): KeyObject {
  return createPublicKey({ key: Buffer.concat([SPKI_ED25519, raw(publicKey, 'public key')]), format: 'der', type: 'spki' });
}

/** The key pair of a seed (RFC 8032 §5.1.5). */
export function nodeKeyFromSeed(seed: string): NodeKeyPair {
  const spki = createPublicKey(privateKeyObject(seed)).export({ format: 'der', type: 'spki' });
  return { privateKey: seed, publicKey: spki.subarray(SPKI_ED25519.length).toString('base64') };
}

/** A new node key pair. */
export function newNodeKey(): NodeKeyPair {
  const { privateKey } = generateKeyPairSync('ed25519');
  const pkcs8 = privateKey.export({ format: 'der', type: 'pkcs8' });
  return nodeKeyFromSeed(pkcs8.subarray(PKCS8_ED25519.length).toString('base64'));
}

/** Ed25519 signature (64 bytes, base64) of `message`. */
export function signBytes(privateKey: string, message: Uint8Array): string {
  return sign(null, message, privateKeyObject(privateKey)).toString('base64');
}

/** Whether `signature` is `publicKey`'s signature of `message`; false for malformed keys or signatures. */
export function verifyBytes(publicKey: string, message: Uint8Array, signature: string): boolean {
  try {
    const sig = Buffer.from(signature, 'base64');
    return sig.length === 64 && verify(null, message, publicKeyObject(publicKey), sig);
  } catch {
    return false;
  }
}

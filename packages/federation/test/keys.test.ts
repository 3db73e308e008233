/**
 * Key derivation and node keys. The primitives' use is pinned by the standards'
 * own vectors: RFC 5869 A.1 (HKDF-SHA256 test case 1), RFC 8032 §7.1 TEST 1 (Ed25519), RFC 4648
 * §10 (base32).
 */
import {
  FederationKeyError, base32, deriveFederationKeys, hkdfSha256, newNodeKey, newSecretKey, nodeKeyFromSeed, signBytes, verifyBytes,
} from '@sml/federation';

const hex = (h: string) => Buffer.from(h, 'hex');
const b64 = (h: string) => hex(h).toString('base64');

test('HKDF-SHA256 gives RFC 5869 test case 1', () => {
  const okm = hkdfSha256(hex('0b'.repeat(22)), hex('000102030405060708090a0b0c'), hex('f0f1f2f3f4f5f6f7f8f9'), 42);
  expect(okm.toString('hex')).toBe('3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865');
});

test('base32 spells RFC 4648 §10 vectors, unpadded', () => {
  expect(['', 'f', 'fo', 'foo', 'foob', 'fooba', 'foobar'].map((s) => base32(Buffer.from(s)))).toEqual(['', 'MY', 'MZXQ', 'MZXW6', 'MZXW6YQ', 'MZXW6YTB', 'MZXW6YTBOI']);
});

describe('deriveFederationKeys', () => {
  const secret = Buffer.alloc(16, 7).toString('base64');

  test('K_enc and T are HKDF-SHA256 of the secret with their own labels, T in base32', () => {
    const keys = deriveFederationKeys(secret);
    expect(keys.enc).toEqual(hkdfSha256(Buffer.alloc(16, 7), Buffer.alloc(0), 'sml-fed v1 enc', 16));
    expect(keys.subjectToken).toBe(base32(hkdfSha256(Buffer.alloc(16, 7), Buffer.alloc(0), 'sml-fed v1 subject', 16)));
    expect(keys.subjectToken).toMatch(/^[A-Z2-7]{26}$/);
    // Pinned (Python hmac/hashlib, RFC 5869 by hand): a changed label would split federations.
    expect(keys.enc.toString('hex')).toBe('ded3008a342489f77e58416d3d00eebb');
    expect(keys.subjectToken).toBe('PE5N4T6VH3JM7QUCIDCUPSIBWE');
  });

  test('another secret gives other keys; a new secret is 16 random bytes', () => {
    const a = newSecretKey();
    expect(Buffer.from(a, 'base64')).toHaveLength(16);
    expect(deriveFederationKeys(a).subjectToken).not.toBe(deriveFederationKeys(secret).subjectToken);
  });

  test.each(['', 'AAAA', Buffer.alloc(32).toString('base64'), 'not base64 at all!!!!!!!'])('secret %j is refused', (s) => {
    expect(() => deriveFederationKeys(s)).toThrow(FederationKeyError);
  });
});

describe('Ed25519 node keys', () => {
  // RFC 8032 §7.1 TEST 1: empty message.
  const seed = b64('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
  const publicKey = b64('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
  const signature = b64('e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b');

  test('RFC 8032 TEST 1: public key, signature and verification', () => {
    expect(nodeKeyFromSeed(seed).publicKey).toBe(publicKey);
    expect(signBytes(seed, Buffer.alloc(0))).toBe(signature);
    expect(verifyBytes(publicKey, Buffer.alloc(0), signature)).toBe(true);
  });

  test('a signature fails for another message, another key or garbage, without throwing', () => {
    const other = newNodeKey();
    expect(verifyBytes(publicKey, Buffer.from('x'), signature)).toBe(false);
    expect(verifyBytes(other.publicKey, Buffer.alloc(0), signature)).toBe(false);
    expect(verifyBytes(publicKey, Buffer.alloc(0), 'garbage')).toBe(false);
    expect(verifyBytes('short', Buffer.alloc(0), signature)).toBe(false);
  });

  test('a new key pair signs and verifies', () => {
    const k = newNodeKey();
    expect(nodeKeyFromSeed(k.privateKey)).toEqual(k);
    expect(verifyBytes(k.publicKey, Buffer.from('m'), signBytes(k.privateKey, Buffer.from('m')))).toBe(true);
  });
});

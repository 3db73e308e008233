/**
 * Sealed sync messages: a round trip, and every forgery, tamper, replay, stale
 * and non-member case refused with its own reason, in the order of the receive checks.
 */
import fc from 'fast-check';
import { createCipheriv, createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import {
  type ReceiveContext, type SealInput, type SyncMessage, canonicalBytes, checkSyncHeader, deriveFederationKeys, newNodeKey, newRoster, newSecretKey, openGroup,
  openSync, openSyncBlob, sealGroup, sealSync, signBytes, withMember,
} from '@sml/federation';

const keys = deriveFederationKeys(newSecretKey());
const admin = newNodeKey();
const b = newNodeKey();
const outsider = newNodeKey();
const roster = withMember(newRoster(keys.subjectToken, 'A', admin.publicKey), 'B', b.publicKey);
const NOW = Date.UTC(2026, 10, 29, 12);
const summary = Buffer.from('serialized summary '.repeat(100));

const input = (over: Partial<SealInput> = {}): SealInput => ({
  fed: keys.subjectToken, enc: keys.enc, peer: 'B', privateKey: b.privateKey, seq: 5, sentAt: NOW - 1000, rows: 120, attrs: 7,
  schemaHash: 'h1', contractVersion: 2, bytes: summary, ...over,
});
const ctx = (over: Partial<ReceiveContext> = {}) => ({
  fed: keys.subjectToken, roster, now: NOW, lastSeq: (peer: string) => (peer === 'B' ? 4 : undefined), enc: keys.enc, ...over,
});
const reasonOf = (message: unknown, blob: Uint8Array, over: Partial<ReturnType<typeof ctx>> = {}) => {
  const r = openSync(message, blob, ctx(over));
  return r.ok ? 'accepted' : r.reason;
};
/** The header changed and signed again with `key`: what a member (or a thief of its key) could forge. */
const resigned = (message: SyncMessage, change: Partial<SyncMessage['header']>, key = b.privateKey): SyncMessage => {
  const header = { ...message.header, ...change };
  return { header, signature: signBytes(key, canonicalBytes(header)) };
};

test('a sealed summary opens to the same bytes, with its header', () => {
  const { message, blob } = sealSync(input());
  const opened = openSync(JSON.parse(JSON.stringify(message)), blob, ctx());
  expect(opened.ok && opened.value.bytes.equals(summary)).toBe(true);
  expect(opened.ok && opened.value.header).toEqual(message.header);
  expect(message.header).toMatchObject({ v: 1, fed: keys.subjectToken, peer: 'B', seq: 5, rows: 120, attrs: 7, schemaHash: 'h1', contractVersion: 2 });
});

test('any bytes, seq and counts round-trip', () => {
  fc.assert(fc.property(fc.uint8Array({ maxLength: 4096 }), fc.nat(), fc.nat(), fc.nat(), (bytes, seq, rows, attrs) => {
    const { message, blob } = sealSync(input({ bytes, seq, rows, attrs }));
    const opened = openSync(message, blob, ctx({ lastSeq: () => undefined }));
    expect(opened.ok && opened.value.bytes.equals(Buffer.from(bytes))).toBe(true);
  }), { numRuns: 50 });
});

test('the blob is AES-128-GCM of gzip(bytes) under K_enc and the nonce, its digest SHA-256 (fixed nonce)', () => {
  const nonce = Buffer.alloc(12, 9);
  const { message, blob } = sealSync(input(), nonce);
  expect(message.header.nonce).toBe(nonce.toString('base64'));
  expect(message.header.blobDigest).toBe(createHash('sha256').update(blob).digest('hex'));
  const { blobDigest: _d, ...aad } = message.header;
  const cipher = createCipheriv('aes-128-gcm', keys.enc, nonce).setAAD(canonicalBytes(aad));
  const expected = Buffer.concat([cipher.update(gzipSync(summary)), cipher.final(), cipher.getAuthTag()]);
  expect(blob.equals(expected)).toBe(true);
  expect(blob.includes(Buffer.from('serialized summary'))).toBe(false);
});

describe('receive refuses, each with its reason', () => {
  const { message, blob } = sealSync(input());

  test.each<[string, () => [unknown, Uint8Array, Partial<ReturnType<typeof ctx>>?], string]>([
    ['not a message', () => [{ header: { v: 1 } }, blob], 'malformed'],
    ['another format version', () => [resigned(message, { v: 2 }), blob], 'malformed'],
    ['a sender not in the roster (signed with its own key)', () => {
      const s = sealSync(input({ peer: 'X', privateKey: outsider.privateKey }));
      return [s.message, s.blob];
    }, 'not-member'],
    ['a member posing as another (C signs as B)', () => [resigned(message, {}, outsider.privateKey), blob], 'signature'],
    ['a header field changed after signing (rows)', () => [{ ...message, header: { ...message.header, rows: 121 } }, blob], 'signature'],
    ['a forged message sealed with another federation key', () => {
      const other = deriveFederationKeys(newSecretKey());
      const s = sealSync(input({ fed: other.subjectToken, enc: other.enc }));
      return [s.message, s.blob];
    }, 'federation'],
    ['sent more than 300 s ago', () => [resigned(message, { sentAt: NOW - 300_001 }), blob], 'clock'],
    ['sent more than 300 s ahead', () => [resigned(message, { sentAt: NOW + 300_001 }), blob], 'clock'],
    ['a replay of the last accepted seq', () => [message, blob, { lastSeq: () => 5 }], 'replay'],
    ['an older seq', () => [message, blob, { lastSeq: () => 9 }], 'replay'],
    ['a tampered blob', () => {
      const t = Buffer.from(blob);
      t[10] ^= 1;
      return [message, t];
    }, 'digest'],
    ['another message\'s blob', () => [message, sealSync(input()).blob], 'digest'],
    ['a blob whose digest was re-signed by the member but encrypted under another key', () => {
      const other = sealSync(input({ enc: deriveFederationKeys(newSecretKey()).enc }));
      return [resigned(message, { blobDigest: other.message.header.blobDigest, nonce: other.message.header.nonce }), other.blob];
    }, 'decrypt'],
    ['a header re-signed with another schemaHash (the blob\'s AAD no longer matches)', () => [resigned(message, { schemaHash: 'h2' }), blob], 'decrypt'],
  ])('%s', (_what, make, expected) => {
    const [m, bl, over] = make();
    expect(reasonOf(m, bl, over)).toBe(expected);
  });

  test('the clock window is inclusive and configurable', () => {
    const edge = sealSync(input({ sentAt: NOW - 300_000 }));
    expect(reasonOf(edge.message, edge.blob)).toBe('accepted');
    expect(reasonOf(message, blob, { clockSkewMs: 500 })).toBe('clock');
  });

  test('the header is checked before the blob is needed; a first message from a peer has no seq bound', () => {
    const r = checkSyncHeader(message, ctx({ lastSeq: () => undefined }));
    expect(r.ok).toBe(true);
    expect(reasonOf(message, Buffer.alloc(0))).toBe('digest');
  });

  test('a summary over the size bound is refused, not inflated', () => {
    const big = sealSync(input({ bytes: Buffer.alloc(1 << 20) }));
    const r = openSyncBlob(big.message.header, big.blob, keys.enc, 1000);
    expect(r.ok ? 'accepted' : r.reason).toBe('too-large');
  });
});

describe('group envelope of join requests and replies', () => {
  const request = { token: 'FEDTOKEN' + '0'.repeat(32), peer: 'B', pid: 'p1', publicKey: b.publicKey };

  test('opens with the same key, federation and purpose only', () => {
    const sealed = sealGroup(keys.enc, keys.subjectToken, 'join-request', request);
    expect(openGroup(keys.enc, keys.subjectToken, 'join-request', sealed)).toEqual(request);
    expect(openGroup(keys.enc, keys.subjectToken, 'join-reply', sealed)).toBeUndefined();
    expect(openGroup(keys.enc, 'OTHER', 'join-request', sealed)).toBeUndefined();
    expect(openGroup(deriveFederationKeys(newSecretKey()).enc, keys.subjectToken, 'join-request', sealed)).toBeUndefined();
    expect(openGroup(keys.enc, keys.subjectToken, 'join-request', 'garbage')).toBeUndefined();
  });
});

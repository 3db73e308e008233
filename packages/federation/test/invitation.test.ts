/**
 * Invitations: the `v2p:` password cipher (checked against node:crypto
 * primitives by hand on its own bytes) and single-use tokens.
 */
import { createDecipheriv, createHash, pbkdf2Sync } from 'node:crypto';
import {
  InvitationError, PBKDF2_ITERATIONS, decryptInvitation, encryptInvitation, isInvitationToken, newInvitationToken, newTokenRecord, redeemToken,
  tokenDigest, tokenLifetimeMs,
} from '@sml/federation';

const MAP = { fed_name: 'cardio', sync_sched: 'h1', fed_secret_key: 'AAAAAAAAAAAAAAAAAAAAAA==', fed_req_token: newInvitationToken(), nats_hosts: 'nats://backbone:4222' };

describe('password cipher', () => {
  let sealed: string;
  beforeAll(async () => {
    sealed = await encryptInvitation(MAP, 'correct horse');
  });

  test('round trip; the layout is v2p: + base64(salt16 ‖ nonce12 ‖ ct ‖ tag16) under PBKDF2-SHA256 600 000', async () => {
    expect(await decryptInvitation(sealed, 'correct horse')).toEqual(MAP);
    expect(PBKDF2_ITERATIONS).toBe(600_000);
    const bytes = Buffer.from(sealed.slice(4), 'base64');
    const key = pbkdf2Sync('correct horse', bytes.subarray(0, 16), 600_000, 32, 'sha256');
    const d = createDecipheriv('aes-256-gcm', key, bytes.subarray(16, 28));
    d.setAuthTag(bytes.subarray(bytes.length - 16));
    expect(JSON.parse(Buffer.concat([d.update(bytes.subarray(28, bytes.length - 16)), d.final()]).toString())).toEqual(MAP);
  });

  test('two encryptions of one map differ (fresh salt and nonce)', async () => {
    expect(await encryptInvitation(MAP, 'correct horse')).not.toBe(sealed);
  });

  test.each<[string, () => string, string]>([
    ['a wrong password', () => sealed, 'battery staple'],
    ['a flipped ciphertext bit', () => {
      const b = Buffer.from(sealed.slice(4), 'base64');
      b[30] ^= 1;
      return 'v2p:' + b.toString('base64');
    }, 'correct horse'],
    ['a truncated text', () => sealed.slice(0, 40), 'correct horse'],
    ['no v2p: prefix', () => sealed.slice(4), 'correct horse'],
  ])('%s gives one error: Invalid federation invitation', async (_what, text, password) => {
    await expect(decryptInvitation(text(), password)).rejects.toThrow(new InvitationError());
  });

  test('a map that is not flat string → string is refused', async () => {
    await expect(decryptInvitation(await encryptInvitation({ a: 1 } as unknown as Record<string, string>, 'p'), 'p')).rejects.toThrow('Invalid federation invitation');
  });
});

describe('tokens', () => {
  const NOW = 1_000_000;

  test('FEDTOKEN + 32 hex, random, stored as SHA-256 hex', () => {
    const t = newInvitationToken();
    expect(isInvitationToken(t)).toBe(true);
    expect(t).not.toBe(newInvitationToken());
    expect(tokenDigest(t)).toBe(createHash('sha256').update(t).digest('hex'));
    expect(isInvitationToken('FEDTOKEN' + 'G'.repeat(32))).toBe(false);
  });

  test('lifetime: 2 h by default, up to 168 h', () => {
    expect(tokenLifetimeMs(undefined)).toBe(7_200_000);
    expect(tokenLifetimeMs('168')).toBe(168 * 3_600_000);
    expect(tokenLifetimeMs('0.5')).toBe(1_800_000);
    for (const bad of ['0', '169', '-1', 'x', '', '1e3']) expect(tokenLifetimeMs(bad)).toBeNull();
  });

  test('an unused, unexpired token is redeemed once, by one peer', () => {
    const record = newTokenRecord(NOW, 1000);
    const first = redeemToken(record, NOW + 999, 'B');
    expect(first).toEqual({ ok: true, record: { expiresAt: NOW + 1000, usedBy: 'B' } });
    const used = first.ok ? first.record : record;
    expect(redeemToken(used, NOW + 1, 'C')).toMatchObject({ ok: false, reason: 'used' });
    expect(redeemToken(used, NOW + 1, 'B')).toMatchObject({ ok: false, reason: 'used' });
  });

  test('expired and unknown tokens are refused with the same message', () => {
    const expired = redeemToken(newTokenRecord(NOW, 1000), NOW + 1000, 'B');
    const unknown = redeemToken(undefined, NOW, 'B');
    expect(expired).toMatchObject({ ok: false, reason: 'expired', message: 'Federation token expired or already used' });
    expect(unknown).toMatchObject({ ok: false, reason: 'unknown', message: 'Federation token expired or already used' });
  });
});

import { spawnSync } from 'node:child_process';
import { decryptDsInfo, encryptDsInfo, generateSecret, SmlError } from '@sml/core';

const secret = 'VLmAm+WkpnA5zp2wXiSYkw==';
const dsInfo = { type: 'postgres', name: 'ds1', info: { path: 'public.t', user: 'u' }, extra: ['C', 'C'] };
const hex = (b64: string) => Buffer.from(b64, 'base64').toString('hex');
const IV = 'LzM5QUtXZXWHm7HJ4wAePg==';

/**
 * Derived with the reference implementation:
 *   printf '%s' "$(node -p 'JSON.stringify(dsInfo)')" | openssl enc -aes-128-cbc \
 *     -K 54b9809be5a4a67039ce9db05e249893 -iv 2f3339414b576575879bb1c9e3001e3e -base64 -A
 */
const OPENSSL_V1 = 'nhkuMAhp40BYpjjQteS3/6KWtJbE83Jz4UdFVCngvUfpTT8e4lrS9Qv6U3tCvzdyFz/6wYPasuTa5/5JtoGFf1xG2BdurfdOCbVjF/Sq7BfePJUMDQpAqlCo28/zzOhw';

function expectInvalid(body: string, key = secret) {
  let thrown: unknown;
  try {
    decryptDsInfo(body, key);
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toBeInstanceOf(SmlError);
  expect(thrown).toMatchObject({ code: 'INVALID_ENCRYPTED_PAYLOAD', status: 400, message: 'Invalid encrypted payload' });
}

describe('DSInfo encryption (API.md §2.4)', () => {
  it.each(['v1', 'v2'] as const)('%s round-trips', (format) => {
    expect(decryptDsInfo(encryptDsInfo(dsInfo, secret, { format }), secret)).toEqual(dsInfo);
  });

  it('sends v2 by default, with a fresh nonce each time', () => {
    const a = encryptDsInfo(dsInfo, secret);
    expect(a.startsWith('v2:')).toBe(true);
    expect(encryptDsInfo(dsInfo, secret)).not.toBe(a);
  });

  it('v1 is deterministic because its IV is fixed (compat)', () => {
    expect(encryptDsInfo(dsInfo, secret, { format: 'v1' })).toBe(encryptDsInfo(dsInfo, secret, { format: 'v1' }));
  });

  it('decrypts a v1 payload produced by openssl', () => {
    expect(decryptDsInfo(OPENSSL_V1, secret)).toEqual(dsInfo);
  });

  it('openssl decrypts the v1 payload we produce', () => {
    const payload = encryptDsInfo({ ...dsInfo, name: 'ü-ds' }, secret, { format: 'v1' });
    const out = spawnSync('openssl', ['enc', '-d', '-aes-128-cbc', '-K', hex(secret), '-iv', hex(IV), '-base64', '-A'], { input: payload });
    expect(out.status).toBe(0);
    expect(JSON.parse(out.stdout.toString('utf8'))).toEqual({ ...dsInfo, name: 'ü-ds' });
  });

  it('accepts the payload as a JSON string literal, and with line breaks as openssl wraps it', () => {
    expect(decryptDsInfo(JSON.stringify(OPENSSL_V1), secret)).toEqual(dsInfo);
    expect(decryptDsInfo(JSON.stringify(encryptDsInfo(dsInfo, secret)), secret)).toEqual(dsInfo);
    expect(decryptDsInfo(OPENSSL_V1.replace(/(.{64})/g, '$1\n'), secret)).toEqual(dsInfo);
  });

  it('returns null for a payload that decrypts to JSON null (the caller decides)', () => {
    expect(decryptDsInfo(encryptDsInfo(null, secret, { format: 'v1' }), secret)).toBeNull();
    expect(decryptDsInfo(encryptDsInfo(null, secret), secret)).toBeNull();
  });

  it('rejects a tampered v2 payload (ciphertext, tag or nonce)', () => {
    const data = Buffer.from(encryptDsInfo(dsInfo, secret).slice(3), 'base64');
    for (const i of [0, 12, data.length - 1]) {
      const tampered = Buffer.from(data);
      tampered[i] ^= 1;
      expectInvalid(`v2:${tampered.toString('base64')}`);
    }
    expectInvalid(`v2:${data.subarray(0, 27).toString('base64')}`);
  });

  it.each(['v1', 'v2'] as const)('rejects a %s payload under another key with the same error', (format) => {
    expectInvalid(encryptDsInfo(dsInfo, secret, { format }), generateSecret());
  });

  it.each([
    ['empty', ''],
    ['not base64', 'not*base64!'],
    ['base64 with junk inside', `${OPENSSL_V1.slice(0, 20)}*${OPENSSL_V1.slice(20)}`],
    ['truncated to a non-block length', OPENSSL_V1.slice(0, 40)],
    ['a JSON non-string', '{"type":"postgres"}'],
    ['a broken JSON string literal', `"${OPENSSL_V1}`],
    ['empty v2', 'v2:'],
  ])('rejects %s', (_what, body) => expectInvalid(body));

  it('rejects ciphertext whose plaintext is not JSON', () => {
    const out = spawnSync('openssl', ['enc', '-aes-128-cbc', '-K', hex(secret), '-iv', hex(IV), '-base64', '-A'], { input: 'not json' });
    expectInvalid(out.stdout.toString());
  });
});

import { decryptDsInfo, encryptDsInfo, generateSecret } from '@sml/core';
import { dsInfo, expectInvalid, OPENSSL_V1, secret } from './dsinfo-fixture';

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
});

import { spawnSync } from 'node:child_process';
import { encryptDsInfo } from '@sml/core';
import { dsInfo, expectInvalid, hex, IV, secret } from './dsinfo-fixture';

// The v1 format against the reference implementation, the openssl command (a child process).
describe('DSInfo encryption (API.md §2.4) and openssl', () => {
  it('openssl decrypts the v1 payload we produce', () => {
    const payload = encryptDsInfo({ ...dsInfo, name: 'ü-ds' }, secret, { format: 'v1' });
    const out = spawnSync('openssl', ['enc', '-d', '-aes-128-cbc', '-K', hex(secret), '-iv', hex(IV), '-base64', '-A'], { input: payload });
    expect(out.status).toBe(0);
    expect(JSON.parse(out.stdout.toString('utf8'))).toEqual({ ...dsInfo, name: 'ü-ds' });
  });

  it('rejects ciphertext whose plaintext is not JSON', () => {
    const out = spawnSync('openssl', ['enc', '-aes-128-cbc', '-K', hex(secret), '-iv', hex(IV), '-base64', '-A'], { input: 'not json' });
    expectInvalid(out.stdout.toString());
  });
});

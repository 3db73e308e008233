// Shared by dsinfo.test.ts (pure) and dsinfo.int.test.ts (against the openssl command).
import { decryptDsInfo, SmlError } from '@sml/core';

export const secret = 'VLmAm+WkpnA5zp2wXiSYkw==';
export const dsInfo = { type: 'postgres', name: 'ds1', info: { path: 'public.t', user: 'u' }, extra: ['C', 'C'] };
export const hex = (b64: string) => Buffer.from(b64, 'base64').toString('hex');
export const IV = 'LzM5QUtXZXWHm7HJ4wAePg==';

/**
 * Derived with the reference implementation:
 *   printf '%s' "$(node -p 'JSON.stringify(dsInfo)')" | openssl enc -aes-128-cbc \
 *     -K 54b9809be5a4a67039ce9db05e249893 -iv 2f3339414b576575879bb1c9e3001e3e -base64 -A
 */
export const OPENSSL_V1 = 'nhkuMAhp40BYpjjQteS3/6KWtJbE83Jz4UdFVCngvUfpTT8e4lrS9Qv6U3tCvzdyFz/6wYPasuTa5/5JtoGFf1xG2BdurfdOCbVjF/Sq7BfePJUMDQpAqlCo28/zzOhw';

export function expectInvalid(body: string, key = secret) {
  let thrown: unknown;
  try {
    decryptDsInfo(body, key);
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toBeInstanceOf(SmlError);
  expect(thrown).toMatchObject({ code: 'INVALID_ENCRYPTED_PAYLOAD', status: 400, message: 'Invalid encrypted payload' });
}

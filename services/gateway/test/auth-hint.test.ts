import { formatSymDate } from '@sml/core';
import { signatureHint, SIGNATURE_HINT } from '../src/auth';

describe("a 401 'Invalid Signature' says what to check", () => {
  it('measures the skew of the Sym-date against the server clock, in whole seconds', () => {
    const now = Date.UTC(2026, 10, 29, 10, 0, 0);
    expect(signatureHint(formatSymDate(new Date(now - 90_000)), now)).toEqual({ serverTime: '2026-11-29T10:00:00.000Z', clockSkewSeconds: -90, hint: SIGNATURE_HINT });
    expect(signatureHint(formatSymDate(new Date(now + 2_000)), now).clockSkewSeconds).toBe(2);
  });

  it("names the canonical string's lines and never a secret", () => {
    expect(SIGNATURE_HINT).toMatch(/METHOD, Content-MD5, your secret \(shown as SECRETKEY; never sent\), Sym-date, Customer-ID/);
    expect(SIGNATURE_HINT).not.toMatch(/\.ts\b/);
  });
});

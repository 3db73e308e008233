import fc from 'fast-check';
import {
  bareSignature, contentMd5, formatSymDate, generateSecret, parseSymDate, redactedStringToSign, signature, stringToSign, verifySignature,
  type SignedParts,
} from '@sml/core';

// The test vectors of API.md §2.
const secret = 'VLmAm+WkpnA5zp2wXiSYkw==';
const symDate = '2024-01-02 03:04:05;123456789';
const learnBody = '{"attributeNames":["x"],"data":[["1"]],"attributeTypes":["C"]}';

const getJob: SignedParts = { method: 'GET', contentMd5: '', secret, symDate, customerId: 'c1', resource: '/symetry/rest/c1/jobs/7' };
const postLearn: SignedParts = {
  method: 'POST', contentMd5: contentMd5(learnBody), secret, symDate, customerId: 'c1', body: learnBody,
  resource: '/symetry/rest/c1/projects/p1/learn', query: 'async=true',
};

describe('request signing (API.md §2)', () => {
  it('signs the GET test vector (no body, no query)', () => {
    expect(stringToSign(getJob)).toBe(`GET\n\n${secret}\n${symDate}\nc1\n/symetry/rest/c1/jobs/7\n`);
    expect(signature(secret, stringToSign(getJob))).toBe('0/v4OZ6WrCw279D7D7KduJEa/WNWdzXyH4UhG/uPvWU=');
  });

  it('signs the POST test vector (body and query lines, Content-MD5)', () => {
    expect(postLearn.contentMd5).toBe('7ux2/3yPjNIF+2nSR2hXJQ==');
    expect(stringToSign(postLearn)).toBe(
      `POST\n7ux2/3yPjNIF+2nSR2hXJQ==\n${secret}\n${symDate}\nc1\n${learnBody}\n/symetry/rest/c1/projects/p1/learn\nasync=true\n`,
    );
    expect(signature(secret, stringToSign(postLearn))).toBe('LJ6gQhsqPv4vkMve3xrQznoYgz39bOxProhBCh+Udjg=');
  });

  it('a Buffer body signs the same as its UTF-8 text', () => {
    const fromBuffer = { ...postLearn, body: Buffer.from(learnBody, 'utf8') };
    expect(stringToSign(fromBuffer)).toBe(stringToSign(postLearn));
    expect(contentMd5(Buffer.from(learnBody))).toBe('7ux2/3yPjNIF+2nSR2hXJQ==');
  });

  it('an empty body and an empty query are omitted like absent ones', () => {
    expect(contentMd5('')).toBe('');
    expect(contentMd5(undefined)).toBe('');
    expect(stringToSign({ ...getJob, body: '', query: '' })).toBe(stringToSign(getJob));
  });

  it('a full-URL resource is signed as given and verifies only against the same URL', () => {
    const full = { ...getJob, resource: 'http://localhost:8080/symetry/rest/c1/jobs/7' };
    const sig = signature(secret, stringToSign(full));
    expect(stringToSign(full)).toContain('\nhttp://localhost:8080/symetry/rest/c1/jobs/7\n');
    expect(verifySignature(signature(secret, stringToSign(full)), sig)).toBe(true);
    expect(verifySignature(signature(secret, stringToSign(getJob)), sig)).toBe(false);
  });

  it('the redacted string replaces only the secret by SECRETKEY', () => {
    const { secret: _omitted, ...parts } = postLearn;
    const redacted = redactedStringToSign(parts);
    expect(redacted).not.toContain(secret);
    expect(redacted).toBe(stringToSign(postLearn).replace(secret, 'SECRETKEY'));
  });

  it('every signed part changes the signature', () => {
    const base = signature(secret, stringToSign(postLearn));
    const variants: Partial<SignedParts>[] = [
      { method: 'PUT' }, { contentMd5: 'x' }, { symDate: '2024-01-02 03:04:05;1' }, { customerId: 'c2' },
      { body: `${learnBody} ` }, { resource: '/symetry/rest/c1/projects/p2/learn' }, { query: 'async=false' },
    ];
    for (const v of variants) expect(signature(secret, stringToSign({ ...postLearn, ...v }))).not.toBe(base);
    expect(signature(generateSecret(), stringToSign(postLearn))).not.toBe(base);
  });
});

describe('signature verification', () => {
  const expected = 'LJ6gQhsqPv4vkMve3xrQznoYgz39bOxProhBCh+Udjg=';

  it.each([expected, `Bearer ${expected}`, `bearer  ${expected}`])('accepts %j', (header) => {
    expect(verifySignature(expected, header)).toBe(true);
  });

  it.each(['', 'Bearer', expected.slice(1), `${expected}x`, expected.replace('L', 'M'), `Basic ${expected}`])('rejects %j', (header) => {
    expect(verifySignature(expected, header)).toBe(false);
  });

  it('bareSignature strips the Bearer scheme only', () => {
    expect(bareSignature(`Bearer ${expected}`)).toBe(expected);
    expect(bareSignature(expected)).toBe(expected);
  });
});

describe('Sym-date', () => {
  it('formats UTC with unpadded nanoseconds', () => {
    const d = new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 123));
    expect(formatSymDate(d, 123456789)).toBe('2024-01-02 03:04:05;123456789');
    expect(formatSymDate(d, 7)).toBe('2024-01-02 03:04:05;7');
    expect(formatSymDate(d)).toBe('2024-01-02 03:04:05;123000000');
  });

  it.each([-1, 1e9, 1.5])('refuses nanos %p outside [0, 1e9) integers', (n) => {
    expect(() => formatSymDate(new Date(), n)).toThrow(RangeError);
  });

  it('parses with and without the ;N part to epoch milliseconds', () => {
    expect(parseSymDate('2024-01-02 03:04:05;123456789')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5, 123));
    expect(parseSymDate('2024-01-02 03:04:05')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5));
    expect(parseSymDate('2024-01-02 03:04:05;7')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5));
    expect(parseSymDate('2024-02-29 23:59:59;999999999')).toBe(Date.UTC(2024, 1, 29, 23, 59, 59, 999));
    expect(parseSymDate('0024-01-01 00:00:00')).toBe(new Date('0024-01-01T00:00:00Z').getTime());
  });

  it.each([
    '', '2024-01-02', '2024-01-02T03:04:05', '2024-01-02 03:04:05Z', '2024-01-02 03:04:05;', '2024-01-02 03:04:05;1234567890',
    '2024-01-02 03:04:05;-1', '2024-1-02 03:04:05', ' 2024-01-02 03:04:05', '2024-01-02 03:04:05.123', '2024-13-01 00:00:00',
    '2023-02-29 00:00:00', '2024-01-32 00:00:00', '2024-01-02 24:00:00', '2024-01-02 03:60:05', '2024-01-02 03:04:60',
    'Tue, 02 Jan 2024 03:04:05 GMT',
  ])('rejects malformed %j', (s) => expect(parseSymDate(s)).toBeUndefined());

  it('format then parse returns the instant to the millisecond', () => {
    fc.assert(fc.property(
      fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2999-12-31T23:59:59Z'), noInvalidDate: true }),
      fc.integer({ min: 0, max: 999_999 }),
      (d, subMs) => {
        expect(parseSymDate(formatSymDate(d))).toBe(d.getTime());
        expect(parseSymDate(formatSymDate(d, d.getUTCMilliseconds() * 1e6 + subMs))).toBe(d.getTime());
      },
    ));
  });
});

describe('generateSecret', () => {
  it('is base64 of 16 random bytes', () => {
    const s = generateSecret();
    expect(s).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(Buffer.from(s, 'base64')).toHaveLength(16);
    expect(generateSecret()).not.toBe(s);
  });
});

describe('signParts', () => {
  it('equals signature(stringToSign(...)) for text and Buffer bodies, with and without query', async () => {
    const { signParts, signature, stringToSign } = await import('@sml/core');
    const secret = 'VLmAm+WkpnA5zp2wXiSYkw==';
    for (const body of [undefined, '', '{"a":"é"}', Buffer.from('{"attributeNames":["x"]}')]) {
      for (const query of [undefined, 'async=true']) {
        const parts = { method: 'post', contentMd5: 'md5', secret, symDate: '2024-01-02 03:04:05;1', customerId: 'c1', body, resource: '/symetry/rest/c1/x', query };
        expect(signParts(parts)).toBe(signature(secret, stringToSign(parts)));
      }
    }
  });
});

describe('restSignatures', () => {
  it('is signParts for each resource form, the body read once', async () => {
    const { restSignatures, signParts, signature, stringToSign } = await import('@sml/core');
    const secret = 'VLmAm+WkpnA5zp2wXiSYkw==';
    const resources = ['/symetry/rest/c1/projects/p1/learn', 'http://127.0.0.1:8080/symetry/rest/c1/projects/p1/learn'];
    for (const body of [undefined, '', '{"a":"é"}', Buffer.from('{"attributeNames":["x"]}')]) {
      for (const query of [undefined, 'async=true']) {
        const parts = { method: 'post', contentMd5: 'md5', secret, symDate: '2024-01-02 03:04:05;1', customerId: 'c1', body, query };
        const got = restSignatures(parts, resources);
        expect(got).toEqual(resources.map((resource) => signature(secret, stringToSign({ ...parts, resource }))));
        expect(got).toEqual(resources.map((resource) => signParts({ ...parts, resource })));
      }
    }
  });

  it('gives the API.md §2 test vector', async () => {
    const { restSignatures } = await import('@sml/core');
    const body = '{"attributeNames":["x"],"data":[["1"]],"attributeTypes":["C"]}';
    const [path] = restSignatures({ method: 'POST', contentMd5: '7ux2/3yPjNIF+2nSR2hXJQ==', secret: 'VLmAm+WkpnA5zp2wXiSYkw==', symDate: '2024-01-02 03:04:05;123456789', customerId: 'c1', body, query: 'async=true' }, ['/symetry/rest/c1/projects/p1/learn']);
    expect(path).toBe('LJ6gQhsqPv4vkMve3xrQznoYgz39bOxProhBCh+Udjg=');
  });
});

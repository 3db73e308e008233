import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { SmlError } from '@sml/core';
import { inflateBody } from '../src/inflate';

const failure = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    if (err instanceof SmlError) return { status: err.status, code: err.code, message: err.message };
    throw err;
  }
  throw new Error('expected a failure');
};

describe('inflateBody', () => {
  const text = Buffer.from(JSON.stringify({ data: Array.from({ length: 100 }, (_, i) => [String(i)]) }));

  it('returns identity bodies as sent and inflates gzip, x-gzip, deflate and br (any case, spaces)', async () => {
    expect(await inflateBody(text, undefined, { limit: 1e6, maxRatio: 100 })).toBe(text);
    expect(await inflateBody(text, 'identity', { limit: 1e6, maxRatio: 100 })).toBe(text);
    for (const [encoding, sent] of [['gzip', gzipSync(text)], [' X-Gzip ', gzipSync(text)], ['deflate', deflateSync(text)], ['BR', brotliCompressSync(text)]] as const) {
      expect((await inflateBody(sent, encoding, { limit: 1e6, maxRatio: 100 })).equals(text)).toBe(true);
    }
  });

  it('an inflated size of exactly the limit passes; one byte more → 413 naming the limit', async () => {
    const sent = gzipSync(Buffer.alloc(1000, 0x20));
    expect((await inflateBody(sent, 'gzip', { limit: 1000, maxRatio: 1000 })).length).toBe(1000);
    expect(await failure(inflateBody(sent, 'gzip', { limit: 999, maxRatio: 1000 }))).toEqual({
      status: 413, code: 'INFLATED_TOO_LARGE', message: 'Request body larger than the limit of 999 bytes once inflated (Content-Encoding gzip)',
    });
  });

  it('a body inflating past maxRatio × its size → 413 naming the ratio, even under the limit', async () => {
    const sent = gzipSync(Buffer.alloc(100_000));
    expect(await failure(inflateBody(sent, 'gzip', { limit: 1e9, maxRatio: 10 }))).toEqual({
      status: 413, code: 'INFLATE_RATIO', message: `Compressed request body inflates to more than 10 times its ${sent.length} bytes (Content-Encoding gzip)`,
    });
  });

  it('bytes that are not of the encoding → 400; an unknown encoding → 415', async () => {
    expect(await failure(inflateBody(Buffer.from('plain'), 'deflate', { limit: 1e6, maxRatio: 100 }))).toEqual(expect.objectContaining({ status: 400, code: 'BAD_CONTENT_ENCODING' }));
    // A gzip member cut short is not silently taken as what it inflated so far.
    const cut = gzipSync(text).subarray(0, 30);
    expect(await failure(inflateBody(cut, 'gzip', { limit: 1e6, maxRatio: 100 }))).toEqual(expect.objectContaining({ status: 400, code: 'BAD_CONTENT_ENCODING' }));
    expect(await failure(inflateBody(text, 'gzip, deflate', { limit: 1e6, maxRatio: 100 }))).toEqual(expect.objectContaining({ status: 415, code: 'UNSUPPORTED_CONTENT_ENCODING' }));
  });
});

import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { smlError } from '@sml/core';

type Inflater = (sent: Buffer, options: zlib.ZlibOptions | zlib.BrotliOptions) => Promise<Buffer>;

/** The Content-Encodings the gateway inflates (those express's body parser inflated before). */
const INFLATERS: Record<string, Inflater> = {
  gzip: promisify(zlib.gunzip),
  'x-gzip': promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress),
};

export interface InflateLimits {
  /** Largest inflated body (SML_MAX_BODY_BYTES). */
  limit: number;
  /** Largest inflated size as a multiple of the bytes sent (SML_MAX_INFLATE_RATIO). */
  maxRatio: number;
}

/**
 * The body a request means: the bytes as sent, or, for Content-Encoding gzip, deflate or
 * br, those bytes inflated. Called only once the request is authenticated (the signature and
 * Content-MD5 cover the bytes as sent). zlib stops as soon as the output passes
 * min(limit, maxRatio × bytes sent), so a small compressed body never costs more memory than
 * that: 413 naming which bound it passed; 400 when the bytes are not valid for the encoding.
 */
export async function inflateBody(sent: Buffer, contentEncoding: string | undefined, limits: InflateLimits): Promise<Buffer> {
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return sent;
  const inflate = INFLATERS[encoding];
  if (inflate === undefined) throw smlError('UNSUPPORTED_CONTENT_ENCODING', { encoding: contentEncoding });
  if (sent.length === 0) return sent;
  const byRatio = sent.length * limits.maxRatio;
  const cap = Math.min(limits.limit, byRatio);
  try {
    return await inflate(sent, { maxOutputLength: cap });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw byRatio < limits.limit
        ? smlError('INFLATE_RATIO', { ratio: limits.maxRatio, size: sent.length, encoding })
        : smlError('INFLATED_TOO_LARGE', { limit: limits.limit, encoding });
    }
    throw smlError('BAD_CONTENT_ENCODING', { encoding, detail: (err as Error).message }, err);
  }
}

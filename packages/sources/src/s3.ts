/**
 * `s3`: one object of an S3 bucket, or of an S3-compatible store at `s3endpoint`
 * (path-style addressing). info: `path` (the object key, without the bucket), `s3bucket`,
 * `s3accessKey`, `s3secretKey`, optional `s3endpoint` and `s3region` (default us-east-1).
 * The SDK's sockets resolve through the SSRF guard (ssrf.ts): the client's own agents have a
 * `lookup` that checks every address it answers, so the address connected to is the address
 * checked; an IP-literal endpoint (which Node connects to without a lookup) is checked before
 * each request.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Readable } from 'node:stream';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import type { DirectoryListing } from './localfile';
import { checkLiteral, guardedLookup } from './ssrf';
import { SourceError, type ByteSource, type SourceContext, type SourceFactory, type SourceInfo } from './types';

const DEFAULT_REGION = 'us-east-1';

export interface S3Target {
  client: S3Client;
  bucket: string;
  /** Refuses a private IP-literal endpoint (SourceError 'denied'); call before each request. */
  guard: () => void;
  /** `s3://bucket/key`: what messages name (never the keys). */
  describe: (key: string) => string;
}

function required(info: SourceInfo, key: string): string {
  const value = info[key];
  if (value === undefined || value.trim() === '') throw new SourceError('invalid', `s3 data source: info.${key} is required`);
  return value;
}

/** The client and bucket of an s3 DSInfo (reader and sink alike). */
export function s3Target(info: SourceInfo, ctx: SourceContext): S3Target {
  const bucket = required(info, 's3bucket');
  const accessKeyId = required(info, 's3accessKey');
  const secretAccessKey = required(info, 's3secretKey');
  const endpoint = info.s3endpoint?.trim() || undefined;
  let endpointHost: string | undefined;
  if (endpoint !== undefined) {
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      throw new SourceError('invalid', 's3 data source: info.s3endpoint is not a URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SourceError('invalid', 's3 data source: info.s3endpoint must be an http or https URL');
    endpointHost = url.hostname;
  }
  const what = endpointHost === undefined ? `s3://${bucket}` : `s3 endpoint ${endpointHost}`;
  const lookup = guardedLookup(ctx, what);
  const client = new S3Client({
    region: info.s3region?.trim() || DEFAULT_REGION,
    credentials: { accessKeyId, secretAccessKey },
    endpoint,
    forcePathStyle: endpoint !== undefined,
    // Only what S3 requires: many S3-compatible stores reject the aws-chunked checksum
    // trailers and checksum headers the SDK would add by default.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: {
      connectionTimeout: ctx.timeoutMs, requestTimeout: ctx.timeoutMs,
      // The SDK's own agents, plus the guarded lookup.
      httpAgent: new HttpAgent({ keepAlive: true, maxSockets: 50, lookup }), httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets: 50, lookup }),
    },
  });
  const guard = () => {
    if (endpointHost !== undefined) checkLiteral(ctx, what, endpointHost);
  };
  return { client, bucket, guard, describe: (key) => `s3://${bucket}/${key}` };
}

/** The object a DSInfo names (`path`, without the bucket). */
export function s3ObjectKey(info: SourceInfo): string {
  const key = required(info, 'path').replace(/^\/+/, '');
  if (key === '' || key.endsWith('/')) throw new SourceError('invalid', 's3 data source: info.path must name an object, not a folder');
  return key;
}

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE']);

/** The customer's reason for an SDK failure; the SDK's own message never carries the secret. */
export function s3Failure(error: unknown, what: string): SourceError {
  if (error instanceof SourceError) return error;
  if (error instanceof S3ServiceException) {
    const status = error.$metadata.httpStatusCode;
    if (error.name === 'NoSuchKey' || error.name === 'NotFound' || status === 404) {
      const missing = error.name === 'NoSuchBucket' ? 'bucket' : 'object';
      return new SourceError('not-found', `${what}: no such ${missing}`, { cause: error });
    }
    if (status === 401 || status === 403) return new SourceError('denied', `${what}: access denied (${error.name})`, { cause: error });
    return new SourceError('unreachable', `${what}: S3 answered ${status ?? '?'} ${error.name}`, { cause: error });
  }
  // Duck-typed: socket errors may come from another realm (jest's), where instanceof fails.
  const { code, name, message } = (error ?? {}) as { code?: unknown; name?: unknown; message?: unknown };
  if ((typeof code === 'string' && UNREACHABLE_CODES.has(code)) || name === 'TimeoutError' || name === 'RequestTimeout') {
    return new SourceError('unreachable', `${what}: S3 endpoint unreachable (${typeof code === 'string' ? code : String(name)})`, { cause: error });
  }
  return new SourceError('unreachable', `${what}: ${typeof message === 'string' ? message : String(error)}`, { cause: error });
}

export function rethrowS3(error: unknown, what: string, signal: AbortSignal | undefined): never {
  if (signal?.aborted) throw signal.reason;
  throw s3Failure(error, what);
}

export const s3Source: SourceFactory = (info, ctx): ByteSource => {
  const key = s3ObjectKey(info);
  const { client, bucket, guard, describe } = s3Target(info, ctx);
  const what = describe(key);
  return {
    kind: 'bytes',
    describe: () => what,
    async size() {
      try {
        guard();
        const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }), { abortSignal: ctx.signal });
        return head.ContentLength;
      } catch (error) {
        rethrowS3(error, what, ctx.signal);
      }
    },
    async *open() {
      ctx.signal?.throwIfAborted();
      let body: Readable;
      try {
        guard();
        const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }), { abortSignal: ctx.signal });
        body = got.Body as Readable;
      } catch (error) {
        rethrowS3(error, what, ctx.signal);
      }
      // The SDK's signal covers the request; once the body streams, aborting is ours.
      const onAbort = () => body.destroy(ctx.signal?.reason instanceof Error ? ctx.signal.reason : new Error('aborted'));
      ctx.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        for await (const chunk of body) yield chunk as Uint8Array;
      } catch (error) {
        rethrowS3(error, what, ctx.signal);
      } finally {
        ctx.signal?.removeEventListener('abort', onAbort);
        body.destroy();
      }
    },
  };
};

const MAX_LISTED = 10_000;

/**
 * dsbrowse of an s3 source: the folders and objects right under `prefix` of its bucket, as
 * for localfile (names only, sorted, at most 10 000 entries; `path` without a trailing `/`).
 */
export async function browseS3(info: SourceInfo, ctx: SourceContext, prefix: string): Promise<DirectoryListing> {
  const { client, bucket, guard, describe } = s3Target(info, ctx);
  const path = prefix.replace(/^\/+|\/+$/g, '');
  const keyPrefix = path === '' ? '' : `${path}/`;
  const dirs: string[] = [];
  const files: string[] = [];
  let token: string | undefined;
  do {
    try {
      guard();
      const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: keyPrefix, Delimiter: '/', ContinuationToken: token }), { abortSignal: ctx.signal });
      for (const dir of page.CommonPrefixes ?? []) if (dir.Prefix !== undefined) dirs.push(dir.Prefix.slice(keyPrefix.length, -1));
      for (const object of page.Contents ?? []) if (object.Key !== undefined && object.Key !== keyPrefix) files.push(object.Key.slice(keyPrefix.length));
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } catch (error) {
      rethrowS3(error, describe(keyPrefix), ctx.signal);
    }
  } while (token !== undefined && dirs.length + files.length < MAX_LISTED);
  return { ok: true, dirs: dirs.slice(0, MAX_LISTED).sort(), files: files.slice(0, Math.max(0, MAX_LISTED - dirs.length)).sort(), path };
}

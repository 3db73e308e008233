/**
 * `http`: a file at an http:// or https:// URL (info `path`), read by a streamed GET
 * (node:http, not fetch: fetch refuses the ports of its "bad ports" list, e.g. 6000).
 * Credentials in the URL (`https://user:pass@host/…`) are sent as Basic authorization, to
 * the URL's own origin only. Redirects are followed up to MAX_REDIRECTS, to http(s) only.
 * `ctx.timeoutMs` (SML_SOURCE_TIMEOUT_MS) bounds the wait for the answer and every wait for the next chunk.
 * Every hop connects through the SSRF guard (ssrf.ts): a fresh connection (no pooled socket
 * checked for another request) whose address is checked as it is resolved.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { checkLiteral, guardedLookup } from './ssrf';
import { SourceError, type ByteSource, type SourceContext, type SourceFactory, type SourceInfo } from './types';

const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'ERR_TLS_CERT_ALTNAME_INVALID']);

function isHttp(url: URL): boolean {
  return url.protocol === 'http:' || url.protocol === 'https:';
}

function parse(info: SourceInfo): { url: URL; authorization?: string } {
  const raw = info.path?.trim();
  if (!raw) throw new SourceError('invalid', 'http data source: info.path (an http or https URL) is required');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SourceError('invalid', 'http data source: info.path is not a URL');
  }
  if (!isHttp(url)) throw new SourceError('invalid', `http data source: info.path must be an http or https URL, not ${url.protocol.slice(0, 20)}`);
  let authorization: string | undefined;
  if (url.username !== '' || url.password !== '') {
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  return { url, authorization };
}

/** A URL as messages show it: no credentials, no query (signed URLs carry tokens there). */
function shown(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

function statusFailure(status: number, what: string): SourceError {
  if (status === 404 || status === 410) return new SourceError('not-found', `${what}: not found (HTTP ${status})`);
  if (status === 401 || status === 403) return new SourceError('denied', `${what}: access denied (HTTP ${status})`);
  return new SourceError('unreachable', `${what}: the server answered HTTP ${status}`);
}

function networkFailure(error: unknown, what: string): SourceError {
  if (error instanceof SourceError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const message = (error as { message?: unknown } | null)?.message;
  const detail = typeof code === 'string' && UNREACHABLE_CODES.has(code) ? code : typeof message === 'string' ? message : String(error);
  return new SourceError('unreachable', `${what}: server unreachable (${detail})`, { cause: error });
}

function send(target: URL, method: 'GET' | 'HEAD', headers: Record<string, string>, signal: AbortSignal, ctx: SourceContext, what: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    checkLiteral(ctx, what, target.hostname);
    const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
    request(target, { method, headers, signal, agent: false, lookup: guardedLookup(ctx, what) }, resolve).once('error', reject).end();
  });
}

export const httpSource: SourceFactory = (info, ctx): ByteSource => {
  const { url, authorization } = parse(info);
  const what = shown(url);

  /**
   * The answer to `method` after redirects. A timer aborts it, body included, when the
   * server stays silent for ctx.timeoutMs: `alive()` restarts it, `idle()` stops it while
   * the consumer holds a chunk, `done()` ends the request, `fail()` names why it failed.
   */
  async function request(method: 'GET' | 'HEAD') {
    ctx.signal?.throwIfAborted();
    const controller = new AbortController();
    const onAbort = () => controller.abort(ctx.signal?.reason);
    ctx.signal?.addEventListener('abort', onAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    let response: IncomingMessage | undefined;
    const alive = () => {
      clearTimeout(timer);
      timer = setTimeout(() => controller.abort(new SourceError('unreachable', `${what}: no answer within ${ctx.timeoutMs} ms (SML_SOURCE_TIMEOUT_MS)`)), ctx.timeoutMs);
    };
    const idle = () => clearTimeout(timer);
    const done = () => {
      clearTimeout(timer);
      ctx.signal?.removeEventListener('abort', onAbort);
      response?.destroy();
    };
    const fail = (error: unknown): unknown => {
      done();
      if (ctx.signal?.aborted) return ctx.signal.reason;
      if (controller.signal.reason instanceof SourceError) return controller.signal.reason;
      return networkFailure(error, what);
    };
    try {
      alive();
      let target = url;
      for (let hop = 0; ; hop++) {
        const headers: Record<string, string> = { 'accept-encoding': 'identity' };
        if (authorization !== undefined && target.origin === url.origin) headers.authorization = authorization;
        response = await send(target, method, headers, controller.signal, ctx, target === url ? what : `${what} (redirected to ${shown(target)})`);
        const status = response.statusCode ?? 0;
        const location = response.headers.location;
        if (!REDIRECTS.has(status) || location === undefined) {
          alive();
          return { response, status, alive, idle, done, fail };
        }
        response.destroy();
        if (hop === MAX_REDIRECTS) throw new SourceError('unreachable', `${what}: more than ${MAX_REDIRECTS} redirects`);
        let next: URL;
        try {
          next = new URL(location, target);
        } catch {
          throw new SourceError('unreachable', `${what}: redirected to an invalid URL`);
        }
        if (!isHttp(next)) throw new SourceError('invalid', `${what}: redirected to a ${next.protocol.slice(0, 20)} URL, only http and https are read`);
        target = next;
      }
    } catch (error) {
      throw fail(error);
    }
  }

  return {
    kind: 'bytes',
    describe: () => what,
    async size() {
      const { response, status, done } = await request('HEAD');
      done();
      // A server that does not answer HEAD may still serve GET: the size is then unknown.
      if (status === 405 || status === 501) return undefined;
      if (status < 200 || status > 299) throw statusFailure(status, what);
      const length = response.headers['content-length'];
      const encoded = (response.headers['content-encoding'] ?? 'identity') !== 'identity';
      return length === undefined || encoded || !/^\d+$/.test(length) ? undefined : Number(length);
    },
    async *open() {
      const { response, status, alive, idle, done, fail } = await request('GET');
      try {
        if (status < 200 || status > 299) throw statusFailure(status, what);
        for await (const chunk of response) {
          // The timer measures the server, not a slow consumer.
          idle();
          yield chunk as Uint8Array;
          alive();
        }
        // A body cut short (the server closed early) ends iteration without an error.
        if (!response.complete) throw new SourceError('unreachable', `${what}: the connection closed before the end of the body`);
      } catch (error) {
        throw fail(error);
      } finally {
        done();
      }
    },
  };
};

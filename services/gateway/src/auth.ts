import type { Request } from 'express';
import { bareSignature, contentMd5, parseSymDate, redactedStringToSign, restSignatures, verifySignature, smlError, type Config } from '@sml/core';
import type { BodyThreads, FrameOnly } from './body-threads';
import type { ReplayCache } from './replay';
import type { UserDirectory } from './users';

export interface AuthOptions {
  basePath: string;
  pastWindowMs: number;
  futureWindowMs: number;
}

/** The signed-request checks' options, from the configuration (REST and WebSocket alike). */
export function authOptions(config: Pick<Config, 'SML_BASE_PATH' | 'SML_AUTH_PAST_WINDOW_MS' | 'SML_AUTH_FUTURE_WINDOW_MS'>): AuthOptions {
  return { basePath: config.SML_BASE_PATH, pastWindowMs: config.SML_AUTH_PAST_WINDOW_MS, futureWindowMs: config.SML_AUTH_FUTURE_WINDOW_MS };
}

export interface Authenticated {
  user: string;
  root: boolean;
  /** The customer's secret: the key of its encrypted DSInfo bodies (API.md §2.4). Never logged. */
  secretKey: string;
}

/**
 * What a signed message carries, whatever it travels in (REST headers, a WebSocket message's
 * header, API.md §12), and how its signature is checked.
 */
export interface SignedMessage {
  authorization?: string;
  symDate?: string;
  customerId?: string;
  /** The customer the resource names (`{user}` of a REST path); undefined when it names none (WebSocket). */
  pathUser?: string;
  /** The Content-MD5 the client sent ('' when none). */
  contentMd5: string;
  body?: Buffer;
  /** Whether `authorization` is a valid signature of the message with this secret, for every accepted form of the resource. */
  verify(secret: string, md5: string, authorization: string): boolean;
  /**
   * The body's MD5 and whether `authorization` signs the message (meaningful when the MD5 is the
   * claimed one), in place of hashing here with `verify`: REST hashes large bodies on a thread.
   */
  digest?(secret: string): Promise<{ md5: string; signed: boolean }>;
  /** The server's string to sign, secret redacted, answered with a 401 'Invalid Signature'. */
  redacted(md5: string): string;
}

/**
 * HMAC authentication exactly as API.md §2: the checks run in the seed's order and the first
 * failure answers. REST and WebSocket messages go through this one function.
 */
export async function authenticateMessage(m: SignedMessage, users: UserDirectory, replay: ReplayCache, opts: AuthOptions): Promise<Authenticated> {
  const { authorization, customerId, record } = await checkHeaders(m, users, opts);
  const { md5, signed } = m.digest ? await m.digest(record.secretKey) : digestHere(m, record.secretKey);
  if (m.contentMd5 !== md5) throw smlError('MD5_MISMATCH');
  if (!signed) {
    throw smlError('INVALID_SIGNATURE').withValues({ stringToSign: m.redacted(md5), ...signatureHint(m.symDate!, Date.now()) });
  }
  if (!(await replay.remember(bareSignature(authorization)))) throw smlError('REPLAYED_REQUEST');
  return { user: customerId, root: record.root, secretKey: record.secretKey };
}

/** What the values of a 401 'Invalid Signature' say to check, besides the string to sign. */
export const SIGNATURE_HINT =
  'Compare stringToSign with the string your client signed, line by line: METHOD, Content-MD5, your secret (shown as SECRETKEY; ' +
  'never sent), Sym-date, Customer-ID, the body (if any), the resource (the path, or the full URL), the query (if any), each ended by a newline. ' +
  'Then check the secret itself (a rotated key?) and that nothing changed the body or the path after signing. ' +
  'clockSkewSeconds is your Sym-date minus this server\'s clock: within the window it does not cause this error.';

/**
 * The measured clock skew (the message's Sym-date against this server's clock at `now`) and
 * what to check. Status and code stay 401 INVALID_SIGNATURE; the secret is never included.
 */
export function signatureHint(symDate: string, now: number): { serverTime: string; clockSkewSeconds: number; hint: string } {
  const sent = parseSymDate(symDate) ?? now; // checkHeaders parsed it already
  return { serverTime: new Date(now).toISOString(), clockSkewSeconds: Math.round((sent - now) / 1000), hint: SIGNATURE_HINT };
}

/**
 * The checks of authenticateMessage that need no body, in the seed's order (authorization, date,
 * window, customer, path): a request whose body will not be read is answered from them.
 */
export async function checkHeaders(m: Pick<SignedMessage, 'authorization' | 'symDate' | 'customerId' | 'pathUser'>, users: UserDirectory, opts: AuthOptions) {
  if (!m.authorization) throw smlError('AUTH_HEADER_NULL');
  if (!m.symDate) throw smlError('SYM_DATE_NULL');
  const when = parseSymDate(m.symDate);
  if (when === undefined) throw smlError('INVALID_DATE_FORMAT');
  const now = Date.now();
  if (when < now - opts.pastWindowMs || when > now + opts.futureWindowMs) throw smlError('CLOCK_SKEW');
  // Named after its header until it is checked against the path: then it is the caller's `user`.
  const customerId = m.customerId ?? '';
  const record = await users.get(customerId);
  if (!record) throw smlError('INVALID_USER');
  if (m.pathUser !== undefined && customerId !== m.pathUser) throw smlError('CUSTOMER_ID_MISMATCH', { header: customerId, user: m.pathUser });
  return { authorization: m.authorization, customerId, record };
}

/** The body-free checks of a REST request (checkHeaders), for the customer its path names. */
export function checkRequestHeaders(req: Request, pathUser: string, users: UserDirectory, opts: AuthOptions) {
  return checkHeaders({ authorization: header(req, 'authorization'), symDate: header(req, 'sym-date'), customerId: header(req, 'customer-id'), pathUser }, users, opts);
}

function digestHere(m: SignedMessage, secret: string): { md5: string; signed: boolean } {
  const md5 = contentMd5(m.body !== undefined && m.body.length > 0 ? m.body : undefined);
  return { md5, signed: md5 === m.contentMd5 && m.verify(secret, md5, m.authorization!) };
}

function header(req: Request, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * A REST request (API.md §2). The resource may have been signed as the path or as the full URL.
 * With `threads`, a large body is hashed on one of them; the body answered is the request's
 * (the view `req.body` had may then be detached). With `frame` (a learn body), the thread
 * that hashes it also reads it once the signature holds, and the frame read is answered too.
 */
export async function authenticate(
  req: Request, pathUser: string, users: UserDirectory, replay: ReplayCache, opts: AuthOptions, threads?: BodyThreads, frame?: { recipe?: string },
): Promise<Authenticated & { body: Buffer; frame?: FrameOnly }> {
  let body: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  let frameRead: FrameOnly | undefined;
  const cut = req.originalUrl.indexOf('?');
  const path = cut < 0 ? req.originalUrl : req.originalUrl.slice(0, cut);
  const query = cut < 0 ? undefined : req.originalUrl.slice(cut + 1) || undefined;
  const authorization = header(req, 'authorization');
  const symDate = header(req, 'sym-date');
  const customerId = header(req, 'customer-id');
  const claimedMd5 = header(req, 'content-md5') ?? '';
  const signed = { method: req.method, symDate: symDate ?? '', customerId: customerId ?? '', query };
  const fields = (md5: string) => ({ ...signed, contentMd5: md5, body: body.length > 0 ? body : undefined });
  const resources = [path, `${req.protocol}://${header(req, 'host') ?? ''}${path}`];
  const who = await authenticateMessage({
    authorization, symDate, customerId, pathUser,
    contentMd5: claimedMd5, body: body.length > 0 ? body : undefined,
    verify: (secret, md5, auth) => restSignatures({ ...fields(md5), secret }, resources).some((expected) => verifySignature(expected, auth)),
    ...(threads ? {
      digest: async (secret: string) => {
        const read = frame && authorization ? { frame: { authorization, ...frame } } : {};
        const out = await threads.digest({ ...signed, body, claimedMd5, secret, resources, ...read });
        body = out.body;
        frameRead = out.frame;
        return { md5: out.md5, signed: out.signatures.some((expected) => verifySignature(expected, authorization ?? '')) };
      },
    } : {}),
    redacted: (md5) => redactedStringToSign({ ...fields(md5), resource: path }),
  }, users, replay, opts);
  return { ...who, body, ...(frameRead ? { frame: frameRead } : {}) };
}

import type { Request } from 'express';
import { bareSignature, contentMd5, parseSymDate, redactedStringToSign, signParts, verifySignature, smlError } from '@sml/core';
import type { ReplayCache } from './replay';
import type { UserDirectory } from './users';

export interface AuthOptions {
  basePath: string;
  pastWindowMs: number;
  futureWindowMs: number;
}

export interface Authenticated {
  user: string;
  root: boolean;
  /** The customer's secret: the key of its encrypted DSInfo bodies (API.md §2.4). Never logged. */
  secretKey: string;
}

function header(req: Request, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * HMAC authentication exactly as API.md §2: the checks run in the seed's order and the first
 * failure answers. The resource may have been signed as the path or as the full URL.
 */
export async function authenticate(req: Request, pathUser: string, users: UserDirectory, replay: ReplayCache, opts: AuthOptions): Promise<Authenticated> {
  const authorization = header(req, 'authorization');
  if (!authorization) throw smlError('AUTH_HEADER_NULL');
  const symDate = header(req, 'sym-date');
  if (!symDate) throw smlError('SYM_DATE_NULL');
  const when = parseSymDate(symDate);
  if (when === undefined) throw smlError('INVALID_DATE_FORMAT');
  const now = Date.now();
  if (when < now - opts.pastWindowMs || when > now + opts.futureWindowMs) throw smlError('CLOCK_SKEW');
  // Named after its header until it is checked against the path: then it is the caller's `user`.
  const customerId = header(req, 'customer-id') ?? '';
  const record = await users.get(customerId);
  if (!record) throw smlError('INVALID_USER');
  if (customerId !== pathUser) throw smlError('CUSTOMER_ID_MISMATCH', { header: customerId, user: pathUser });

  const raw: Buffer | undefined = Buffer.isBuffer(req.body) && req.body.length > 0 ? req.body : undefined;
  const md5 = contentMd5(raw);
  if ((header(req, 'content-md5') ?? '') !== md5) throw smlError('MD5_MISMATCH');

  const cut = req.originalUrl.indexOf('?');
  const path = cut < 0 ? req.originalUrl : req.originalUrl.slice(0, cut);
  const query = cut < 0 ? undefined : req.originalUrl.slice(cut + 1) || undefined;
  const fields = { method: req.method, contentMd5: md5, symDate, customerId, body: raw, query };
  const candidates = [path, `${req.protocol}://${header(req, 'host') ?? ''}${path}`];
  const valid = candidates.some((resource) => verifySignature(signParts({ ...fields, secret: record.secretKey, resource }), authorization));
  if (!valid) {
    throw smlError('INVALID_SIGNATURE').withValues({ stringToSign: redactedStringToSign({ ...fields, resource: path }) });
  }
  if (!(await replay.remember(bareSignature(authorization)))) throw smlError('REPLAYED_REQUEST');
  return { user: customerId, root: record.root, secretKey: record.secretKey };
}

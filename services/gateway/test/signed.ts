import { contentMd5, formatSymDate, signature, stringToSign } from '@sml/core';

export interface RawCall {
  method: string;
  path: string;
  query?: string;
  body?: string;
  user: string;
  secret: string;
  /** Override or drop (null) individual headers after signing. */
  headers?: Record<string, string | null>;
  dateOffsetMs?: number;
  /** Sign a different body than the one sent. */
  signedBody?: string;
  /** Sign this resource instead of the path (e.g. the full URL). */
  signedResource?: string;
}

/** A hand-made signed request, so tests can break each part of API.md §2 on purpose. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert envelopes of every shape
export async function rawCall(base: string, c: RawCall): Promise<{ status: number; headers: Headers; body: any }> {
  const date = formatSymDate(new Date(Date.now() + (c.dateOffsetMs ?? 0)), Math.floor(Math.random() * 1e9));
  const signedBody = c.signedBody ?? c.body;
  const md5 = contentMd5(signedBody);
  const url = new URL(base);
  const sts = stringToSign({ method: c.method, contentMd5: md5, secret: c.secret, symDate: date, customerId: c.user, body: signedBody, resource: c.signedResource ?? c.path, query: c.query });
  const headers: Record<string, string> = { 'Customer-ID': c.user, 'Sym-date': date, 'Content-MD5': md5, Authorization: signature(c.secret, sts), 'sym-version': '6.3' };
  if (c.body !== undefined) headers['Content-Type'] = 'application/json';
  for (const [k, v] of Object.entries(c.headers ?? {})) {
    if (v === null) delete headers[k];
    else headers[k] = v;
  }
  const res = await fetch(`${url.origin}${c.path}${c.query ? `?${c.query}` : ''}`, { method: c.method, headers, body: c.body });
  const text = await res.text();
  let body: unknown;
  try { body = JSON.parse(text); } catch { body = { raw: text }; }
  return { status: res.status, headers: res.headers, body };
}

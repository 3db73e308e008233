import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { contentMd5, signParts, verifySignature } from '@sml/core';

export interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
}

export interface Reply {
  status: number;
  statusString: string;
  values?: unknown;
  headers?: Record<string, string>;
}

export type Answer = (seen: Seen, index: number) => Reply;

export const ok: Answer = () => ({ status: 200, statusString: 'OK' });

const SECRET = 'VLmAm+WkpnA5zp2wXiSYkw==';

/**
 * A stand-in gateway for command tests: it checks each request's Content-MD5 and signature
 * as the gateway does (API.md §2; a bad one answers 401 and is not recorded), records the
 * request and answers the envelope that `answer` returns.
 */
export class StandInGateway {
  seen: Seen[] = [];
  answer: Answer = ok;
  env: NodeJS.ProcessEnv = {};
  readonly #server: Server;

  private constructor() {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        const url = new URL(req.url ?? '/', 'http://x');
        const header = (name: string) => String(req.headers[name] ?? '');
        const expected = signParts({
          method: req.method!, contentMd5: header('content-md5'), secret: SECRET, symDate: header('sym-date'),
          customerId: header('customer-id'), body: raw, resource: url.pathname, query: url.search.slice(1),
        });
        let reply: Reply;
        if (header('content-md5') !== contentMd5(raw)) reply = { status: 400, statusString: 'Md5 do not match' };
        else if (!verifySignature(expected, header('authorization'))) reply = { status: 401, statusString: 'Invalid Signature' };
        else {
          const text = raw.toString('utf8');
          // A JSON body parsed; a text/plain one (an encrypted DSInfo) as the text.
          const body = !text ? undefined : header('content-type').startsWith('application/json') ? JSON.parse(text) : text;
          const seen = { method: req.method!, path: url.pathname, query: url.searchParams, body };
          this.seen.push(seen);
          reply = this.answer(seen, this.seen.length - 1);
        }
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        res.end(JSON.stringify({ statusCode: reply.status, statusString: reply.statusString, values: reply.values ?? {} }));
      });
    });
  }

  static async start(): Promise<StandInGateway> {
    const gw = new StandInGateway();
    await new Promise<void>((resolve) => gw.#server.listen(0, '127.0.0.1', resolve));
    gw.env = { SML_URL: `http://127.0.0.1:${(gw.#server.address() as AddressInfo).port}`, SML_USER: 'c1', SML_SECRET: SECRET };
    return gw;
  }

  /** Forgets the recorded requests and answers 200 'OK' again. */
  reset(): void {
    this.seen = [];
    this.answer = ok;
  }

  close(): Promise<void> {
    return new Promise((resolve, reject) => this.#server.close((err) => (err ? reject(err) : resolve())));
  }
}

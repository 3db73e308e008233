import { randomInt } from 'node:crypto';
import WebSocket from 'ws';
import { contentMd5, formatSymDate, signature, wsStringToSign } from '@sml/core';

export interface WsSigner {
  user: string;
  secret: string;
}

export interface WsMessageOptions {
  /** What the client signs as the service path: the path (the docs' form) by default, or the full ws:// URL (the Rust client's). */
  servicePath?: string;
  /** A newline after the last extra key (the Rust client's form). */
  trailingNewline?: boolean;
  /** Sign with this secret instead (a forged signature). */
  signWith?: string;
  dateOffsetMs?: number;
}

/** `<header length>,<header JSON><body>` signed as API.md §12 says. */
export function wsMessage(who: WsSigner, op: string, body: string, extraKeys: string[], opts: WsMessageOptions = {}): string {
  const now = new Date(Date.now() + (opts.dateOffsetMs ?? 0));
  const date = formatSymDate(now, now.getUTCMilliseconds() * 1_000_000 + randomInt(1_000_000));
  const md5 = contentMd5(body);
  const sts = wsStringToSign({
    contentMd5: md5, secret: opts.signWith ?? who.secret, symDate: date, customerId: who.user, body,
    servicePath: opts.servicePath ?? `/symetry/ws/${op}`, extraKeys, trailingNewline: opts.trailingNewline,
  });
  const header = JSON.stringify({ headers: [date, md5, signature(opts.signWith ?? who.secret, sts), who.user], extraKeys });
  return `${Buffer.byteLength(header)},${header}${body}`;
}

/** A WebSocket whose replies are read in order with next(). */
export class WsClient {
  private readonly received: string[] = [];
  private waiting: Array<(text: string) => void> = [];
  closed?: { code: number; reason: string };

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      const text = data.toString('utf8');
      const w = this.waiting.shift();
      if (w) w(text);
      else this.received.push(text);
    });
    ws.on('close', (code, reason) => (this.closed = { code, reason: reason.toString() }));
  }

  static open(url: string): Promise<WsClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.once('open', () => resolve(new WsClient(ws)));
      ws.once('error', reject);
    });
  }

  send(text: string): void {
    this.ws.send(text);
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert envelopes of every shape
  next(): Promise<any> {
    const parse = (t: string) => JSON.parse(t) as unknown;
    const ready = this.received.shift();
    if (ready !== undefined) return Promise.resolve(parse(ready));
    return new Promise((resolve) => this.waiting.push((t) => resolve(parse(t))));
  }

  /** Waits for the close frame (or the socket's end). */
  whenClosed(): Promise<{ code: number; reason: string }> {
    if (this.closed) return Promise.resolve(this.closed);
    return new Promise((resolve) => this.ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  close(): void {
    this.ws.close();
  }
}

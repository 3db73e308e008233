import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { NextFunction, Request, Response } from 'express';
import { smlError, toJson, type SmlError } from '@sml/core';
import { sendError } from './envelope';
import type { GatewayConfig } from './main';

/** How long a connection answered from clientError keeps being read (and what it sends dropped) before it is closed. */
const LINGER_MS = 2_000;

/**
 * The envelope for a request node's HTTP parser refused before express saw it (`clientError`):
 * request line and headers over SML_MAX_HEADER_BYTES (431), a request that is not HTTP or is
 * ambiguous (Transfer-Encoding with Content-Length, a bad chunk: 400), one not received in time
 * (408). Node's own answers to these had an empty body.
 */
export function clientErrorOf(err: Error & { code?: string; reason?: string }, config: GatewayConfig, server: Pick<Server, 'headersTimeout' | 'requestTimeout'>): SmlError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW': return smlError('HEADERS_TOO_LARGE', { limit: config.SML_MAX_HEADER_BYTES });
    case 'ERR_HTTP_REQUEST_TIMEOUT': return smlError('HTTP_REQUEST_TIMEOUT', { headersMs: server.headersTimeout, requestMs: server.requestTimeout });
    default: return smlError('MALFORMED_HTTP', { detail: (err.reason ?? err.message).replace(/[^\x20-\x7e]/g, '?').slice(0, 200) });
  }
}

/** A whole HTTP/1.1 response carrying the error's envelope, closing the connection. */
export function rawErrorResponse(err: SmlError): string {
  const body = toJson({ statusCode: err.status, statusString: err.message, values: {} });
  return `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\n`
    + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/**
 * Answers node's parser errors with the envelope (clientErrorOf) instead of node's empty
 * answers and resets. The connection is half-closed after the answer and what the client still
 * sends (the rest of a 1 MB request line) is read and dropped for LINGER_MS: closing at once
 * made the client's kernel discard the answer (a reset instead of the 431).
 */
export function answerClientErrors(server: Server, config: GatewayConfig): void {
  server.on('clientError', (err: Error & { code?: string }, socket: Duplex & { _httpMessage?: { headersSent?: boolean } }) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    // A response already under way on this connection cannot be followed by another.
    if (socket._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    socket.on('error', () => undefined);
    socket.end(rawErrorResponse(clientErrorOf(err, config, server)));
    socket.on('data', () => undefined);
    socket.resume();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  });
}

/**
 * The request target's bounds, before anything parses it: its length (SML_MAX_URL_BYTES, 414)
 * and its query parameters (SML_MAX_QUERY_PARAMETERS, 400; the query parser would otherwise
 * keep the first 1000 and drop the others unsaid).
 */
export function requestTargetBounds(config: GatewayConfig) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const target = req.originalUrl;
    const bytes = Buffer.byteLength(target);
    if (bytes > config.SML_MAX_URL_BYTES) return sendError(res, smlError('URL_TOO_LONG', { bytes, limit: config.SML_MAX_URL_BYTES }));
    const cut = target.indexOf('?');
    if (cut >= 0) {
      let count = 0;
      for (const part of target.slice(cut + 1).split('&')) if (part !== '') count++;
      if (count > config.SML_MAX_QUERY_PARAMETERS) return sendError(res, smlError('TOO_MANY_QUERY_PARAMETERS', { count, limit: config.SML_MAX_QUERY_PARAMETERS }));
    }
    next();
  };
}

import type { NextFunction, Request, Response } from 'express';
import { smlError } from '@sml/core';
import { sendError } from './envelope';

/**
 * The memory all request bodies may hold at once in this gateway (SML_MAX_IN_FLIGHT_BODY_BYTES):
 * each body is bounded by SML_MAX_BODY_BYTES, but many at once are not, and bodies are read before
 * anyone knows who sent them. A request reserves its Content-Length before its body is read
 * (the whole body limit when it declares none), and its inflated size before it is inflated;
 * what it holds is released when its response ends. A request that does not fit answers 503
 * (retryable) at once, without reading its body.
 */
export class BodyBudget {
  private used = 0;

  constructor(readonly limit: number, private readonly observe: { inFlight(bytes: number): void; refused(): void } = { inFlight: () => undefined, refused: () => undefined }) {}

  get inFlight(): number {
    return this.used;
  }

  /** Reserves `bytes`; false (and nothing reserved) when they do not fit. */
  tryReserve(bytes: number): boolean {
    if (this.used + bytes > this.limit) {
      this.observe.refused();
      return false;
    }
    this.used += bytes;
    this.observe.inFlight(this.used);
    return true;
  }

  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
    this.observe.inFlight(this.used);
  }

  /** Express middleware: reserves the body as declared before it is read, releases it when the response ends. */
  middleware(bodyLimit: number) {
    return (req: Request, res: Response, next: NextFunction): void => {
      const declared = Number(req.headers['content-length']);
      const hasBody = Number.isFinite(declared) ? declared > 0 : req.headers['transfer-encoding'] !== undefined;
      if (!hasBody) return next();
      // Over the body limit the body parser answers 413 without reading: reserve no more than that.
      const bytes = Number.isFinite(declared) ? Math.min(declared, bodyLimit + 1) : bodyLimit;
      if (!this.tryReserve(bytes)) {
        res.setHeader('Connection', 'close');
        return sendError(res, smlError('BODY_BUDGET', { inFlight: this.used, limit: this.limit }));
      }
      holdUntilResponseEnds(this, res, bytes);
      next();
    };
  }

  /** Reserves `bytes` more for this response (an inflated body) until it ends; throws 503 when they do not fit. */
  reserveFor(res: Response, bytes: number): void {
    if (!this.tryReserve(bytes)) throw smlError('BODY_BUDGET', { inFlight: this.used, limit: this.limit });
    holdUntilResponseEnds(this, res, bytes);
  }
}

function holdUntilResponseEnds(budget: BodyBudget, res: Response, bytes: number): void {
  let held = true;
  const release = () => {
    if (held) budget.release(bytes);
    held = false;
  };
  res.once('finish', release);
  res.once('close', release);
}

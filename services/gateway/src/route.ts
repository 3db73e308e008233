import type { z } from 'zod';
import type { Contract, WithCaller, WithStatus } from '@sml/bus';
import type { ErrorCode } from '@sml/core';
import type { sml } from '@sml/proto';
import type { FrameColumnsData } from '@sml/stats/frames';
import type { SummaryRecipes } from './summary-recipes';

export interface RouteContext {
  caller: sml.v1.ICaller;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  /** The caller's secret, for decrypting DSInfo bodies (API.md §2.4); never logged nor forwarded. */
  secretKey?: string;
  /** Lower-cased request headers. */
  headers: Record<string, string | string[] | undefined>;
  limits: RouteLimits;
  /**
   * readFrameColumns of a learn or predict body, on a body thread when it is large
   * (body-threads.ts); null columns when the fast reader does not take the frame. With a
   * `recipe`, the frame's own summary instead of its columns when it is worth sending
   * (summarizeBatch). The body comes back with the columns: a route that keeps it must keep
   * this one.
   */
  readFrame(body: Buffer, recipe?: string): Promise<FrameRead>;
  /** The batch-summary recipes of projects (absent: batches always go as frames). */
  summaryRecipes?: SummaryRecipes;
}

/** What a route decides an early frame read from: the request as it came, not yet validated. */
export interface EarlyFrameInput {
  user: string;
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  summaryRecipes?: SummaryRecipes;
}

/** A body read by the frame reader: its columns or its summary (or neither: read it as JSON), and the body. */
export interface FrameRead {
  columns: FrameColumnsData | null;
  batchSummary?: Uint8Array;
  body: Buffer;
}

/** The gateway's bounds a route checks on its request before the bus (README "Resource limits"). */
export interface RouteLimits {
  /** SML_MAX_PREDICT_CELLS: cells of a frame to predict. */
  maxPredictCells: number;
  /** SML_MAX_JSON_BODY_BYTES: a body parsed as JSON (not a rawBody route's). */
  maxJsonBodyBytes: number;
}

/** What a route answers with when it does not simply forward the reply's status and fields. */
export interface Presentation {
  status: sml.v1.IStatus;
  values: Record<string, unknown>;
  /** The JSON text of `values`, answered as it is in place of `values` (a predict's answer, built as JSON by the service). */
  rawValues?: Uint8Array;
}

/**
 * One REST operation = one bus request, the operation of its contract (service, subject,
 * messages, errors; @sml/bus contracts). The zod schemas validate the request and are the
 * single source of the OpenAPI document; `toRequest` builds the protobuf request.
 */
export interface Route<Req extends WithCaller = WithCaller, Rep extends WithStatus = WithStatus> {
  method: 'get' | 'post' | 'put' | 'delete';
  /** Express path relative to the base path; always starts with `/:user`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  contract: Contract<Req, Rep>;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /**
   * ctx.body is the raw body (a Buffer), not validated JSON: for large learn batches, which
   * toRequest reads once with the fast frame reader. `body` then only documents it.
   */
  rawBody?: boolean;
  /**
   * The body may be as large as SML_MAX_BODY_BYTES (learn and forget frames, read by the frame
   * reader; project and model imports). Every other body is refused over SML_MAX_JSON_BODY_BYTES
   * before it is read as JSON (or decrypted, then read as JSON), on the event loop all
   * customers share.
   */
  largeBody?: boolean;
  /** Schema of `values` on success, for the OpenAPI document. */
  values?: z.ZodType;
  /** Success status and its meaning, for the OpenAPI document. */
  success: { status: number; description: string };
  /** Error catalogue codes of this route's own edge (decryption, body bounds), besides its contract's and the common ones. */
  errors?: ErrorCode[];
  /** A non-2xx reply still answers its `values` (POST /streams/poll of a kafka-poll body, API.md §9). */
  valuesOnError?: boolean;
  /** A 202 reply created a job: set `sym-job-id`, `Job-Id` and `Location`. */
  createsJob?: boolean;
  timeoutMs?: number;
  /**
   * The bus request may be sent again when the projects replica it went to dies or hands its
   * shard over before answering (BusClient, Failover): it only reads, or it is applied once
   * however often it is sent (a learn with an Idempotency-Key). Otherwise such a request
   * answers 503 (retryable) within seconds instead of waiting for its timeout.
   */
  resend?: boolean | ((ctx: RouteContext) => boolean);
  toRequest(ctx: RouteContext): Req | Promise<Req>;
  /**
   * For a route that reads its body as a learn frame: whether to read it on the thread that
   * hashes it, in the same trip, and with which batch-summary recipe (undefined: do not).
   * Decided before authentication (the read happens only once the signature holds); the
   * route's readFrame then answers that read when it asks for the same recipe.
   */
  earlyFrame?(input: EarlyFrameInput): { recipe?: string } | undefined;
  /** Called with the first reply before anything else: what the gateway keeps from it (a project's batch-summary recipe). */
  observe?(reply: Rep, ctx: RouteContext): void;
  /** A second request to send when the first reply asks for one (undefined: none). */
  retry?(reply: Rep, ctx: RouteContext): Req | undefined;
  /** The reply as REST answers it; `ctx` for what depends on the request (a reply encrypted with the caller's secret). */
  present?(reply: Rep, ctx: RouteContext): Presentation;
}

/**
 * A route of whatever messages, as the app keeps them all in one list: the message types
 * only matter inside each route (its toRequest, retry and present agree with them).
 */
export type AnyRoute = Route<WithCaller, WithStatus>;

export function defineRoute<Req extends WithCaller, Rep extends WithStatus>(route: Route<Req, Rep>): Route<Req, Rep> {
  return route;
}

import type { z } from 'zod';
import { invalidUtf8At, parseJsonBody, smlError, toSmlError } from '@sml/core';
import { shardProbe, type BusClient, type CallOptions } from '@sml/bus';
import { routeSubject } from './routes/shard';
import type { sml } from '@sml/proto';
import { readFrameHere, type BodyThreads, type FrameOnly } from './body-threads';
import type { SummaryRecipes } from './summary-recipes';
import { replyValues } from './envelope';
import type { AnyRoute, Presentation, RouteContext, RouteLimits } from './route';
import type { GatewayConfig } from './main';

function validate<T extends z.ZodType>(schema: T | undefined, value: unknown, where: string): z.infer<T> | Record<string, unknown> {
  if (!schema) return {};
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const detail = parsed.error.issues.map((i) => `${where}${i.path.length ? '.' + i.path.join('.') : ''}: ${i.message}`).join('; ');
  throw smlError('INVALID_REQUEST', { detail });
}

function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return parseJsonBody(raw);
  } catch (err) {
    throw toSmlError(err);
  }
}

/** A rawBody route's body read as JSON and validated against `schema`, with the errors a JSON route answers. */
export function jsonBody<T extends z.ZodType>(schema: T, raw: Buffer): z.infer<T> {
  return validate(schema, parseJson(raw), 'body') as z.infer<T>;
}

/** A body a route reads itself (learn frames, read by the frame reader): it must be UTF-8 text, as every body of this API. */
function utf8Body(raw: Buffer): Buffer {
  const bad = invalidUtf8At(raw);
  if (bad >= 0) throw smlError('MALFORMED_JSON', { detail: `invalid UTF-8 at byte ${bad}` });
  return raw;
}

/** What a route is called with, before validation: REST requests and WebSocket messages alike. */
export interface RouteInput {
  caller: sml.v1.ICaller;
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: Buffer;
  headers: Record<string, string | string[] | undefined>;
  secretKey?: string;
  limits: RouteLimits;
  /** Where large learn frames are read (absent: on the event loop). */
  bodyThreads?: BodyThreads;
  /** Batch-summary recipes of projects (absent: learn batches always go as frames). */
  summaryRecipes?: SummaryRecipes;
  /** The body already read as a frame (with `recipe`) on the thread that hashed it (Route.earlyFrame). */
  preread?: { recipe?: string; frame: FrameOnly };
}

/** The bounds routes check before the bus, from the gateway's configuration. */
export function routeLimits(config: GatewayConfig): RouteLimits {
  return { maxPredictCells: config.SML_MAX_PREDICT_CELLS, maxJsonBodyBytes: config.SML_MAX_JSON_BODY_BYTES };
}

/** Validates path, query and body against the route's schemas (400 naming what is wrong). */
export function routeContext(route: AnyRoute, input: RouteInput): RouteContext {
  // Before JSON.parse (or decryption), which would hold the event loop of every customer's requests.
  if (!route.largeBody && input.body.length > input.limits.maxJsonBodyBytes) throw smlError('JSON_BODY_TOO_LARGE', { limit: input.limits.maxJsonBodyBytes });
  let preread = input.preread;
  return {
    caller: input.caller,
    params: validate(route.params, input.params, 'path') as Record<string, string>,
    query: validate(route.query, input.query, 'query'),
    body: route.rawBody ? utf8Body(input.body) : route.body ? validate(route.body, parseJson(input.body), 'body') : undefined,
    headers: input.headers,
    secretKey: input.secretKey,
    limits: input.limits,
    readFrame: (body, recipe) => {
      const early = preread;
      preread = undefined; // answers once: a later read is of another body or recipe
      if (early !== undefined && early.recipe === recipe) return Promise.resolve({ ...early.frame, body });
      return input.bodyThreads ? input.bodyThreads.readFrame(body, recipe) : Promise.resolve(readFrameHere(body, recipe));
    },
    ...(input.summaryRecipes ? { summaryRecipes: input.summaryRecipes } : {}),
  };
}

/** The one bus request of a route (and its retry when the reply asks for one), as status and REST values. */
export async function dispatch(route: AnyRoute, ctx: RouteContext, client: BusClient): Promise<Presentation> {
  const { service, request, reply: replyType } = route.contract;
  const subject = routeSubject(route.contract, ctx);
  // A projects request whose shard's holder dies or hands the shard over is sent again to the
  // next holder when that is safe (Route.resend), else answered 503 soon (BusClient, Failover).
  const probe = shardProbe(subject);
  const resend = typeof route.resend === 'function' ? route.resend(ctx) : route.resend === true;
  const opts: CallOptions = { requestId: ctx.caller.requestId ?? undefined, timeoutMs: route.timeoutMs, ...(probe ? { failover: { probe, resend } } : {}) };
  let reply = await client.request(service, subject, request, await route.toRequest(ctx), replyType, opts);
  route.observe?.(reply, ctx);
  const again = route.retry?.(reply, ctx);
  if (again !== undefined) reply = await client.request(service, subject, request, again, replyType, opts);
  return route.present ? route.present(reply, ctx) : { status: reply.status ?? { code: 200, message: 'OK' }, values: replyValues(replyType, reply) };
}

import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { RequestStrategy, type NatsConnection } from 'nats';
import { parameterBounds, smlError, type Logger } from '@sml/core';
import { BusHealth, errorFromStatus, isOk, type BusClient } from '@sml/bus';
import { authenticate, authOptions, checkRequestHeaders } from './auth';
import { BodyBudget } from './body-budget';
import type { BodyThreads } from './body-threads';
import type { SummaryRecipes } from './summary-recipes';
import { inflateBody } from './inflate';
import { dispatch, routeContext, routeLimits } from './dispatch';
import { envelopeWithRawValues, failureAnswer, sendEnvelope, sendError, type FailureDeps } from './envelope';
import { requestTargetBounds } from './http-edge';
import type { GatewayMetrics } from './metrics';
import { docsRouter } from './docs-page';
import { openApiDocument } from './openapi';
import type { ReplayCache } from './replay';
import type { AnyRoute, Presentation } from './route';
import type { UserDirectory } from './users';
import type { GatewayConfig } from './main';

export interface GatewayDeps {
  config: GatewayConfig;
  nc: NatsConnection;
  client: BusClient;
  users: UserDirectory;
  log: Logger;
  metrics: GatewayMetrics;
  routes: AnyRoute[];
  replay: ReplayCache;
  /** Request bodies held at once (SML_MAX_IN_FLIGHT_BODY_BYTES); shared with the WebSocket API. Made here when absent. */
  bodies?: BodyBudget;
  /** Threads that hash large bodies and read learn frames; absent: all of it on the event loop. */
  bodyThreads?: BodyThreads;
  /** Batch-summary recipes of projects; absent: learn batches always go as frames. */
  summaryRecipes?: SummaryRecipes;
}

/** The gateway's budget of request bodies held at once, observed by its metrics. */
export function bodyBudget(config: GatewayConfig, metrics: GatewayMetrics): BodyBudget {
  return new BodyBudget(config.SML_MAX_IN_FLIGHT_BODY_BYTES, {
    inFlight: (bytes) => metrics.bodyBytesInFlight.set(bytes),
    refused: () => metrics.bodyBudgetRefusals.inc(),
  });
}

/** Lists which of the required services answer a `$SRV.PING` within `maxWait` ms. */
export async function missingServices(nc: NatsConnection, required: string[], maxWait = 500): Promise<string[]> {
  const seen = new Set<string>();
  const pings = await nc.services.client({ strategy: RequestStrategy.Timer, maxWait }).ping();
  for await (const p of pings) seen.add(p.name);
  return required.filter((s) => !seen.has(s));
}

/**
 * The express app: no business logic. Each route authenticates, validates, sends one bus
 * request and turns the reply into the envelope.
 */
export function createApp(deps: GatewayDeps): express.Express {
  const { config, log } = deps;
  const bus = BusHealth.of(deps.nc, log);
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.SML_TRUST_PROXY);
  app.use(requestTargetBounds(config));
  serveOperations(app, deps, bus);
  app.use(config.SML_BASE_PATH, apiRouter(deps, bus));

  app.use((req: Request, res: Response) => sendError(res, smlError('UNKNOWN_ROUTE', { method: req.method, path: req.path })));
  // Body-parser failures (size limit, bad encoding) and anything else express surfaces.
  app.use((err: Error & { type?: string; status?: number }, req: Request, res: Response, _next: NextFunction) => {
    if (err.type === 'entity.too.large') return sendError(res, smlError('BODY_TOO_LARGE', { limit: config.SML_MAX_BODY_BYTES }));
    if (err.status && err.status >= 400 && err.status < 500) return sendError(res, smlError('INVALID_REQUEST', { detail: err.message }));
    log.error({ err, path: req.path }, 'unhandled error');
    sendError(res, smlError('INTERNAL', { requestId: res.getHeader('X-Request-Id') ?? '-' }));
  });
  return app;
}

/** What operators and tools read, unsigned: `/livez`, `/readyz`, `/metrics`, `/openapi.json`, `/docs` (docs-page.ts). */
function serveOperations(app: express.Express, deps: GatewayDeps, bus: BusHealth): void {
  const { config, metrics, routes, nc } = deps;
  const required = config.SML_REQUIRED_SERVICES.split(',').map((s) => s.trim()).filter(Boolean);
  const openapi = openApiDocument(routes, config.SML_BASE_PATH, parameterBounds(config));
  app.get('/livez', (_req, res) => void res.type('text/plain').send('ok'));
  // Ready = connected to NATS, every required service answers, and every JetStream resource
  // the gateway uses (sml_users, sml_replay …) exists. `missing` lists services, `resources`
  // JetStream resources (all of them while NATS is disconnected).
  app.get('/readyz', async (_req, res) => {
    const connected = bus.connected;
    const [missing, resources] = connected
      ? await Promise.all([missingServices(nc, required).catch(() => required), bus.missing()])
      : [required, bus.labels()];
    const ready = connected && missing.length === 0 && resources.length === 0;
    res.status(ready ? 200 : 503).json({ ready, missing, nats: connected ? 'connected' : 'disconnected', resources });
  });
  app.get('/metrics', async (_req, res) => void res.type(metrics.registry.contentType).send(await metrics.registry.metrics()));
  app.get('/openapi.json', (_req, res) => void res.json(openapi));
  app.use('/docs', docsRouter());
}

/** The REST API under SML_BASE_PATH: the body's bounds, then one handler per route. */
function apiRouter(deps: GatewayDeps, bus: BusHealth): express.Router {
  const { config, metrics, users } = deps;
  const failures: FailureDeps = { bus, metrics, log: deps.log };
  const authOpts = authOptions(config);
  const api = express.Router();
  // The body is read as sent: the signature and Content-MD5 cover the bytes on the wire
  // (README, Decisions). The body parser would inflate a compressed body before anyone knows
  // who sent it, so the Content-Encoding is taken away from it here and the handler inflates
  // the body once the request is authenticated (inflate.ts).
  api.use((req: Request, res: Response, next: NextFunction) => {
    res.locals.contentEncoding = req.headers['content-encoding'];
    delete req.headers['content-encoding'];
    next();
  });
  // A body declared over SML_MAX_BODY_BYTES is never read: the body parser would read all of it
  // only to throw it away (a declared 8 GiB held the connection with no answer). The request
  // is answered from its headers, the checks that need no body first (an unknown customer:
  // 401, as if the body had been read), then 413, and the connection closed.
  api.use(async (req: Request, res: Response, next: NextFunction) => {
    const declared = Number(req.headers['content-length']);
    if (!(declared > config.SML_MAX_BODY_BYTES)) return next();
    try {
      bus.assertConnected();
      await checkRequestHeaders(req, firstSegment(req.path), users, authOpts);
      sendError(res, smlError('BODY_TOO_LARGE', { limit: config.SML_MAX_BODY_BYTES }));
    } catch (thrown) {
      sendError(res, failureAnswer(thrown, failures, { path: req.path }));
    }
  });
  const bodies = deps.bodies ?? bodyBudget(config, metrics);
  api.use(bodies.middleware(config.SML_MAX_BODY_BYTES));
  api.use(express.raw({ type: () => true, limit: config.SML_MAX_BODY_BYTES }));
  const serve = routeHandler(deps, failures, bodies);
  for (const route of deps.routes) api[route.method](route.path, (req: Request, res: Response) => serve(route, req, res));
  return api;
}

/** One REST request of a route: authenticate, inflate, validate, the bus request, the envelope. */
function routeHandler(deps: GatewayDeps, failures: FailureDeps, bodies: BodyBudget): (route: AnyRoute, req: Request, res: Response) => Promise<void> {
  const { config, client, users, log, metrics, replay } = deps;
  const limits = routeLimits(config);
  const authOpts = authOptions(config);
  const inflateLimits = { limit: config.SML_MAX_BODY_BYTES, maxRatio: config.SML_MAX_INFLATE_RATIO };
  return async (route, req, res) => {
    const requestId = randomUUID();
    res.setHeader('X-Request-Id', requestId);
    const end = metrics.requestDuration.startTimer({ method: route.method, route: route.path });
    try {
      failures.bus.assertConnected(); // NATS down: 503 at once (authentication needs it too)
      const t0 = performance.now();
      // A learn body is read on the thread that hashes it (not for an encoded body: it is inflated first).
      const early = res.locals.contentEncoding ? undefined : route.earlyFrame?.({
        user: String(req.params.user), params: req.params, query: req.query ?? {}, headers: req.headers, summaryRecipes: deps.summaryRecipes,
      });
      const who = await authenticate(req, String(req.params.user), users, replay, authOpts, deps.bodyThreads, early);
      const sent = who.body;
      const encoding = res.locals.contentEncoding as string | undefined;
      if (encoding) bodies.reserveFor(res, Math.min(config.SML_MAX_BODY_BYTES, sent.length * config.SML_MAX_INFLATE_RATIO));
      const body = await inflateBody(sent, encoding, inflateLimits);
      const t1 = performance.now();
      const caller = { user: who.user, root: who.root, requestId };
      const ctx = routeContext(route, {
        caller, params: req.params, query: req.query ?? {}, body, headers: req.headers, secretKey: who.secretKey, limits,
        bodyThreads: deps.bodyThreads, summaryRecipes: deps.summaryRecipes,
        ...(who.frame && early ? { preread: { recipe: early.recipe, frame: who.frame } } : {}),
      });
      const t2 = performance.now();
      const presentation = await dispatch(route, ctx, client);
      log.debug({ requestId, route: route.path, authMs: t1 - t0, validateMs: t2 - t1, busMs: performance.now() - t2 }, 'request timing');
      sendPresentation(res, route, presentation, `${config.SML_BASE_PATH}/${caller.user}/jobs/`);
    } catch (thrown) {
      sendError(res, failureAnswer(thrown, failures, { route: route.path }, requestId));
    } finally {
      end({ status: res.statusCode });
    }
  };
}

/** A route's answer: its error, or its envelope (a job's headers `sym-job-id`, `Job-Id`, `Location` on a 202). */
function sendPresentation(res: Response, route: AnyRoute, { status, values, rawValues }: Presentation, jobsPath: string): void {
  if (!isOk(status)) return sendError(res, route.valuesOnError ? errorFromStatus(status).withValues(values) : errorFromStatus(status));
  if (route.createsJob && status.code === 202 && values.jobId) {
    const id = String(Number(values.jobId));
    res.setHeader('sym-job-id', id);
    res.setHeader('Job-Id', id);
    res.setHeader('Location', `${jobsPath}${id}`);
  }
  if (rawValues) res.status(status.code ?? 200).type('application/json').send(envelopeWithRawValues(status.code ?? 200, status.message ?? '', rawValues));
  else sendEnvelope(res, status.code ?? 200, status.message ?? '', values);
}

/** The first segment of a path, decoded as express decodes `:user` (as it is when it is not valid percent-encoding). */
function firstSegment(path: string): string {
  const segment = path.split('/')[1] ?? '';
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { NatsConnection } from 'nats';
import { redactedWsStringToSign, smlError, verifySignature, wsSignatures, type Logger } from '@sml/core';
import { BusHealth, errorFromStatus, isOk, type BusClient } from '@sml/bus';
import { authenticateMessage, authOptions, type AuthOptions, type Authenticated } from './auth';
import { BodyBudget } from './body-budget';
import { dispatch, routeContext, routeLimits } from './dispatch';
import { envelopeText, envelopeWithRawValues, errorEnvelopeText, failureAnswer, type FailureDeps } from './envelope';
import type { GatewayMetrics } from './metrics';
import type { ReplayCache } from './replay';
import type { AnyRoute } from './route';
import type { UserDirectory } from './users';
import { assertFrameGateSupported, gateFrames, type FrameVerdict } from './ws-frames';
import type { GatewayConfig } from './main';

/**
 * The WebSocket API (API.md §12, SymetryML's websocket-api.md): `<ws path>/learn`, `/forget`,
 * `/predict`. Each message is `<header length>,<header JSON><DataFrame JSON>` and is answered,
 * in order, with the REST envelope of the equivalent call. A message runs the very route the
 * REST call runs (same validation, same bus request, so a learn is answered only once its
 * batch is in the project's log), after the same authentication (auth.ts: date window,
 * Content-MD5, signature, replay).
 */
const OPERATIONS = {
  learn: { operationId: 'learnProject', keys: ['pid'] },
  forget: { operationId: 'forgetProject', keys: ['pid'] },
  predict: { operationId: 'predict', keys: ['pid', 'm'] },
} as const;
type Operation = keyof typeof OPERATIONS;

/** Room for the header beside a body of SML_MAX_BODY_BYTES bytes: a message over both is closed (1009) at its frame header. */
const HEADER_ALLOWANCE = 64 * 1024;
/** Close codes (RFC 6455 §7.4.1, IANA registry): a message too big; try again later (the body budget is full). */
const MESSAGE_TOO_BIG = 1009;
const TRY_AGAIN_LATER = 1013;
/**
 * What a message of a connection that has not authenticated may hold outside the pool of
 * SML_WS_UNAUTHENTICATED_BYTES_IN_FLIGHT: a header and a small body (a client that opens
 * with a short signed message never waits for the pool that others may have filled).
 */
const UNPOOLED_BYTES = 64 * 1024;
/** The longest header length prefix read (digits). */
const MAX_PREFIX_DIGITS = 10;

export interface WsDeps {
  config: GatewayConfig;
  nc: NatsConnection;
  client: BusClient;
  users: UserDirectory;
  replay: ReplayCache;
  log: Logger;
  metrics: GatewayMetrics;
  routes: AnyRoute[];
  bodies: BodyBudget;
}

interface MessageHeader {
  headers: string[];
  extraKeys: string[];
}

/** Who a connection's messages come from: set by its first authenticated message. */
interface Identity {
  who: Authenticated;
  extraKeys: string[];
}

/** Splits `<header length>,<header JSON><body>`; a message without header is `0,<body>` or the body alone. */
export function parseWsMessage(data: Buffer): { header?: MessageHeader; body: Buffer } {
  if (data[0] === 0x7b /* { */) return { body: data };
  const comma = data.subarray(0, MAX_PREFIX_DIGITS + 1).indexOf(0x2c /* , */);
  const prefix = comma > 0 ? data.subarray(0, comma).toString('latin1') : '';
  if (!/^\d+$/.test(prefix)) throw smlError('INVALID_REQUEST', { detail: 'a WebSocket message is <header length>,<header JSON><DataFrame JSON>' });
  const length = Number(prefix);
  const start = comma + 1;
  if (start + length > data.length) throw smlError('INVALID_REQUEST', { detail: `header length ${length} is longer than the message (${data.length - start} bytes after the comma)` });
  const body = data.subarray(start + length);
  if (length === 0) return { body };
  let header: unknown;
  try {
    header = JSON.parse(data.subarray(start, start + length).toString('utf8'));
  } catch (err) {
    throw smlError('INVALID_REQUEST', { detail: `the message header is not JSON: ${(err as Error).message}` });
  }
  const h = header as Partial<MessageHeader> | null;
  const strings = (v: unknown) => Array.isArray(v) && v.every((s) => typeof s === 'string');
  if (typeof h !== 'object' || h === null || !strings(h.headers) || (h.extraKeys !== undefined && !strings(h.extraKeys))) {
    throw smlError('INVALID_REQUEST', { detail: 'the message header is {"headers":[date, md5, authorization, customer id],"extraKeys":[…]} (arrays of strings)' });
  }
  return { header: { headers: h.headers, extraKeys: h.extraKeys ?? [] }, body };
}

/** What every connection of a WsGateway shares. */
interface Shared {
  deps: WsDeps;
  bus: BusHealth;
  failures: FailureDeps;
  /** Open authenticated connections per customer (SML_WS_MAX_CONNECTIONS_PER_CUSTOMER). */
  perCustomer: Map<string, number>;
  authOpts: AuthOptions;
  routeOf: Record<Operation, AnyRoute>;
  /** Bytes of the large messages of connections that have not authenticated, all connections together. */
  unauthenticated: BodyBudget;
}

export class WsGateway {
  private readonly wss: WebSocketServer;
  private readonly shared: Shared;

  constructor(private readonly deps: WsDeps) {
    const { config } = deps;
    assertFrameGateSupported();
    this.wss = new WebSocketServer({ noServer: true, maxPayload: config.SML_MAX_BODY_BYTES + HEADER_ALLOWANCE });
    const bus = BusHealth.of(deps.nc, deps.log);
    const route = (operationId: string) => {
      const found = deps.routes.find((r) => r.operationId === operationId);
      if (!found) throw new Error(`WebSocket API: no REST route ${operationId}`);
      return found;
    };
    this.shared = {
      deps, bus, failures: { bus, metrics: deps.metrics, log: deps.log }, perCustomer: new Map(), authOpts: authOptions(config),
      routeOf: { learn: route(OPERATIONS.learn.operationId), forget: route(OPERATIONS.forget.operationId), predict: route(OPERATIONS.predict.operationId) },
      unauthenticated: new BodyBudget(config.SML_WS_UNAUTHENTICATED_BYTES_IN_FLIGHT),
    };
  }

  /** Serves upgrades of `<SML_WS_PATH>/<op>` on the REST server; any other upgrade is answered 404. */
  attach(server: Server): void {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const path = (req.url ?? '').split('?')[0];
      const base = this.deps.config.SML_WS_PATH.replace(/\/$/, '');
      const op = path.startsWith(`${base}/`) ? path.slice(base.length + 1) : '';
      if (!Object.hasOwn(OPERATIONS, op)) {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => new WsConnection(this.shared, ws, op as Operation, req, path).start());
    });
  }

  /** Closes every connection (1001 going away). */
  close(): void {
    for (const ws of this.wss.clients) ws.close(1001, 'server stopping');
    this.wss.close();
  }
}

/** One WebSocket connection: its frames gated, its messages authenticated and answered in order. */
class WsConnection {
  private readonly config: GatewayConfig;
  /** The forms a client may have signed the service path in (API.md §12). */
  private readonly servicePaths: string[];
  private identity: Promise<Identity | undefined> = Promise.resolve(undefined);
  /** The customer of the connection's first authenticated message. */
  private bound: string | undefined;
  private inFlight = 0;
  private replies: Promise<void> = Promise.resolve();
  private closeAfterReply = false;
  /** A connection that has not authenticated a message within the request timeout is closed. */
  private readonly unauthenticatedTimer: NodeJS.Timeout;
  /** Messages with a header whose authentication is under way, and who waits for them to end. */
  private authenticating = 0;
  private authSettled: Array<() => void> = [];
  /**
   * Bytes of the message being received, reserved in the body budget as its frame headers
   * announced them; handed to the message when it is complete, released when it is answered.
   * `pooled`: the part of them also reserved in the pool of unauthenticated messages.
   */
  private receiving = 0;
  private pooled = 0;

  constructor(private readonly shared: Shared, private readonly ws: WebSocket, private readonly op: Operation, req: IncomingMessage, private readonly path: string) {
    this.config = shared.deps.config;
    const host = req.headers.host ?? '';
    this.servicePaths = [path, `ws://${host}${path}`, `wss://${host}${path}`];
    this.unauthenticatedTimer = setTimeout(() => ws.close(1008, 'no authenticated message'), this.config.SML_REQUEST_TIMEOUT_MS);
    this.unauthenticatedTimer.unref();
  }

  start(): void {
    const { ws } = this;
    try {
      gateFrames(ws, (length) => this.decide(length));
    } catch (err) {
      // Never a connection whose messages would be buffered unbounded (checked at start too).
      this.shared.deps.log.error({ err }, 'WebSocket connection refused: its frames cannot be gated');
      ws.terminate();
      return;
    }
    ws.on('message', (raw: RawData) => this.message(Array.isArray(raw) ? Buffer.concat(raw) : Buffer.isBuffer(raw) ? raw : Buffer.from(raw)));
    ws.on('close', () => this.closed());
    ws.on('error', (err) => this.shared.deps.log.debug({ err, op: this.op }, 'WebSocket connection error'));
  }

  // Each data frame is decided on from its header, before its payload is read (ws-frames.ts):
  // - until a message of the connection has authenticated, a message may be at most
  //   SML_WS_UNAUTHENTICATED_MAX_BYTES: a larger one closes the connection (1009) unread,
  //   unless a message is being authenticated just then (a client that pipelines): the
  //   frame then waits, unread, for that authentication; a message over SML_MAX_BODY_BYTES +
  //   64 KiB is closed 1009 likewise;
  // - such a message over 64 KiB (UNPOOLED_BYTES) also reserves its frames in the gateway's
  //   pool for unauthenticated messages (SML_WS_UNAUTHENTICATED_BYTES_IN_FLIGHT): what
  //   anonymous connections can make the gateway hold is that pool, whatever their number;
  //   one that does not fit closes its connection with 1013 (try again later);
  // - every frame reserves its length in the body budget the REST bodies share
  //   (SML_MAX_IN_FLIGHT_BODY_BYTES) before it is read; one that does not fit closes the
  //   connection with 1013 (try again later).
  // A refused frame waits, unread, for the replies owed on the connection, then closes it.
  // A message's header cannot authenticate it before its body is read: its Content-MD5 and
  // signature cover the body.
  private decide(length: number): FrameVerdict | Promise<FrameVerdict> {
    const { config } = this;
    const limit = config.SML_MAX_BODY_BYTES + HEADER_ALLOWANCE;
    const refuse = (code: number, reason: string) => this.replies.then((): FrameVerdict => ({ code, reason }));
    const total = this.receiving + length;
    if (total > limit) return refuse(MESSAGE_TOO_BIG, `message over ${limit} bytes (SML_BODY_LIMIT + 64 KiB)`);
    const anonymous = this.bound === undefined && total > UNPOOLED_BYTES;
    if (anonymous && this.authenticating > 0) return new Promise<void>((resolve) => this.authSettled.push(resolve)).then(() => this.decide(length));
    if (anonymous && total > config.SML_WS_UNAUTHENTICATED_MAX_BYTES) {
      return refuse(MESSAGE_TOO_BIG, `message over ${config.SML_WS_UNAUTHENTICATED_MAX_BYTES} bytes before the connection authenticated (SML_WS_UNAUTHENTICATED_MAX_BYTES)`);
    }
    const reserve = () => this.reserve(length, total, anonymous);
    // Once this connection's own messages are answered (and their bytes released), once more.
    return reserve() === undefined ? undefined : this.replies.then(reserve);
  }

  /** Reserves a frame's `length` in the body budget (and, `anonymous`, in the pool of unauthenticated messages). */
  private reserve(length: number, total: number, anonymous: boolean): FrameVerdict {
    const { bodies } = this.shared.deps;
    const { unauthenticated } = this.shared;
    if (anonymous && !unauthenticated.tryReserve(length)) {
      return { code: TRY_AGAIN_LATER, reason: `unauthenticated messages fill SML_WS_UNAUTHENTICATED_BYTES_IN_FLIGHT (${unauthenticated.limit}); retry later` };
    }
    if (!bodies.tryReserve(length)) {
      if (anonymous) unauthenticated.release(length);
      return { code: TRY_AGAIN_LATER, reason: `the gateway's body budget is full (SML_MAX_BODY_BYTES_IN_FLIGHT = ${bodies.limit}); retry later` };
    }
    this.receiving = total;
    if (anonymous) this.pooled += length;
    return undefined;
  }

  private async authenticate(header: MessageHeader, body: Buffer): Promise<Identity> {
    const { config, path, servicePaths } = this;
    const [symDate, md5, authorization, customerId] = header.headers;
    const who = await authenticateMessage({
      authorization, symDate, customerId, contentMd5: md5 ?? '', body,
      verify: (secret, expectedMd5, signature) =>
        wsSignatures({ contentMd5: expectedMd5, secret, symDate: symDate ?? '', customerId: customerId ?? '', body, extraKeys: header.extraKeys }, servicePaths)
          .some((s) => verifySignature(s, signature)),
      redacted: (expectedMd5) => redactedWsStringToSign({ contentMd5: expectedMd5, symDate: symDate ?? '', customerId: customerId ?? '', body, servicePath: path, extraKeys: header.extraKeys }),
    }, this.shared.deps.users, this.shared.deps.replay, this.shared.authOpts);
    const { perCustomer } = this.shared;
    if (this.bound === undefined) {
      const open = perCustomer.get(who.user) ?? 0;
      if (open >= config.SML_WS_MAX_CONNECTIONS_PER_CUSTOMER) {
        this.closeAfterReply = true;
        throw smlError('WS_CONNECTION_LIMIT', { user: who.user, count: open, variable: `SML_WS_MAX_CONNECTIONS_PER_CUSTOMER = ${config.SML_WS_MAX_CONNECTIONS_PER_CUSTOMER}` });
      }
      this.bound = who.user;
      perCustomer.set(who.user, open + 1);
      clearTimeout(this.unauthenticatedTimer);
    } else if (who.user !== this.bound) {
      // One customer per connection: its tenancy never changes midway.
      throw smlError('CUSTOMER_ID_MISMATCH', { header: who.user, user: this.bound });
    }
    return { who, extraKeys: header.extraKeys };
  }

  /** Who a message speaks as: its header authenticated, or, without one, the last authenticated message's identity. */
  private async speaker(header: MessageHeader | undefined, body: Buffer): Promise<Identity> {
    if (!header) {
      const id = await this.identity;
      if (!id) throw smlError('WS_NO_HEADER');
      return id;
    }
    const mine = this.authenticate(header, body);
    this.authenticating++;
    void mine.catch(() => undefined).finally(() => {
      if (--this.authenticating > 0) return;
      const waiting = this.authSettled;
      this.authSettled = [];
      for (const resume of waiting) resume();
    });
    // A later message without header speaks as the last authenticated one.
    const previous = this.identity;
    this.identity = mine.catch(() => previous);
    return mine;
  }

  /** One message: the envelope of the REST call it stands for. */
  private async handle(data: Buffer): Promise<string> {
    const { config, op } = this;
    this.shared.bus.assertConnected();
    const { header, body } = parseWsMessage(data);
    if (body.length > config.SML_MAX_BODY_BYTES) throw smlError('BODY_TOO_LARGE', { limit: config.SML_MAX_BODY_BYTES });
    const id = await this.speaker(header, body);
    const keys = OPERATIONS[op].keys;
    if (id.extraKeys.length < keys.length) throw smlError('WS_EXTRA_KEYS', { op, expected: keys.join(', '), count: id.extraKeys.length });
    const route = this.shared.routeOf[op];
    const caller = { user: id.who.user, root: id.who.root, requestId: randomUUID() };
    const params: Record<string, string> = { user: id.who.user };
    keys.forEach((k, i) => (params[k] = id.extraKeys[i]!));
    const ctx = routeContext(route, { caller, params, query: {}, body, headers: {}, secretKey: id.who.secretKey, limits: routeLimits(config) });
    const { status, values, rawValues } = await dispatch(route, ctx, this.shared.deps.client);
    if (!isOk(status)) throw errorFromStatus(status);
    if (rawValues) return envelopeWithRawValues(status.code ?? 200, status.message ?? '', rawValues).toString('utf8');
    return envelopeText(status.code ?? 200, status.message ?? '', values);
  }

  private message(data: Buffer): void {
    const { ws } = this;
    const { bodies, metrics } = this.shared.deps;
    const end = metrics.requestDuration.startTimer({ method: 'ws', route: this.op });
    // Messages beyond the bound wait in the socket: reading stops until a reply goes out.
    if (++this.inFlight >= this.config.SML_WS_MAX_IN_FLIGHT) ws.pause();
    // Reserved frame by frame as it arrived (decide).
    const reserved = this.receiving;
    const reservedPooled = this.pooled;
    this.receiving = 0;
    this.pooled = 0;
    const answer = this.handle(data).catch((thrown) => errorEnvelopeText(failureAnswer(thrown, this.shared.failures, { op: this.op, ws: true })));
    // Replies leave in the order the messages came, whatever order they finish in.
    this.replies = this.replies.then(async () => {
      const text = await answer;
      bodies.release(reserved);
      this.shared.unauthenticated.release(reservedPooled);
      if (ws.readyState === ws.OPEN) ws.send(text);
      if (this.closeAfterReply) ws.close(1008, 'too many connections');
      end({ status: Number(/^\{"statusCode":(\d+)/.exec(text)?.[1] ?? 0) });
      if (--this.inFlight < this.config.SML_WS_MAX_IN_FLIGHT && ws.isPaused) ws.resume();
    });
  }

  private closed(): void {
    clearTimeout(this.unauthenticatedTimer);
    // A message cut off midway.
    this.shared.deps.bodies.release(this.receiving);
    this.shared.unauthenticated.release(this.pooled);
    this.receiving = 0;
    this.pooled = 0;
    const { bound } = this;
    if (bound !== undefined) {
      const { perCustomer } = this.shared;
      const left = (perCustomer.get(bound) ?? 1) - 1;
      if (left > 0) perCustomer.set(bound, left);
      else perCustomer.delete(bound);
    }
  }
}

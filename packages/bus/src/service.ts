import { randomUUID } from 'node:crypto';
import { headers as natsHeaders, type NatsConnection, type Service, type ServiceGroup, type ServiceMsg } from 'nats';
import { SmlError, smlError, type Logger } from '@sml/core';
import type { sml } from '@sml/proto';
import { BusHealth } from './health';
import { connectionId, INSTANCE_HEADER, REQUEST_ID_HEADER } from './headers';
import { subjectOf, type Contract } from './contracts';
import { Spill } from './spill';
import { errorStatus, okStatus } from './status';
import type { HandlerContext, MessageType, WithCaller, WithStatus } from './types';

export type Handler<Req, Rep> = (req: Req, ctx: HandlerContext) => Promise<Rep> | Rep;

/** Per-endpoint counters, reported as the `data` of each endpoint in `$SRV.STATS`. */
export interface EndpointCounters {
  /** Replies with a non-2xx status (bad input, not found …). */
  errorReplies: number;
  /** Handlers that threw something other than an SmlError (answered 500). */
  crashes: number;
}

export interface BusServiceOptions {
  name: string;
  version?: string;
  description?: string;
  log: Logger;
  /**
   * Endpoints registered under the subject prefix `from` are served under `to` instead: one
   * instance per shard of the projects (`sml.projects.0.` → `sml.projects.<shard>.`), each
   * registered by the same code and suspended or resumed on its own.
   */
  shard?: { from: string; to: string };
}

/**
 * A service registered through the NATS services ("micro") API, so `$SRV.PING/INFO/STATS`
 * discover it. Endpoints decode protobuf, run the handler and always answer with a reply
 * carrying a `Status`: an SmlError becomes its status, anything else a 500 that is logged and
 * counted as a service error — the process never dies from a handler.
 */
export class BusService {
  private readonly spill: Spill;
  private groups = new Map<string, ServiceGroup>();
  private readonly counters = new Map<string, EndpointCounters>();
  private readonly extraStats = new Map<string, () => Record<string, number>>();
  /** Every endpoint registered, so that resume() can subscribe them again. */
  private readonly registered: Array<(s: BusService) => void> = [];
  private suspended = false;
  /** Says which holding answered (INSTANCE_HEADER): new at each resume. */
  private instance = randomUUID();

  private constructor(private readonly nc: NatsConnection, public service: Service, readonly name: string, private readonly log: Logger, private readonly opts: BusServiceOptions) {
    this.spill = new Spill(nc);
  }

  static async start(nc: NatsConnection, opts: BusServiceOptions): Promise<BusService> {
    const holder: { self?: BusService } = {};
    const self = new BusService(nc, await BusService.micro(nc, opts, holder), opts.name, opts.log, opts);
    holder.self = self;
    return self;
  }

  private static micro(nc: NatsConnection, opts: BusServiceOptions, holder: { self?: BusService }): Promise<Service> {
    // The micro API counts only synchronous throws; our handlers are async, so we count ourselves.
    return nc.services.add({
      name: opts.name,
      version: opts.version ?? '0.1.0',
      description: opts.description ?? `SML ${opts.name} service`,
      queue: opts.name,
      statsHandler: (endpoint) => {
        const counters = holder.self?.counters.get(endpoint.subject);
        const extra = holder.self?.extraStats.get(endpoint.subject);
        return Promise.resolve(counters && extra ? { ...counters, ...extra() } : counters ?? null);
      },
    });
  }

  /** `subject` is the full subject, e.g. `sml.jobs.get`; its last token names the endpoint. */
  endpoint<Req extends WithCaller, Rep extends WithStatus>(
    subject: string,
    reqType: MessageType<Req>,
    repType: MessageType<Rep>,
    handler: Handler<Req, Rep>,
  ): void {
    subject = this.served(subject);
    this.counters.set(subject, { errorReplies: 0, crashes: 0 });
    const add = (self: BusService) => {
      const cut = subject.lastIndexOf('.');
      const prefix = subject.slice(0, cut);
      let group = self.groups.get(prefix);
      if (!group) {
        group = self.service.addGroup(prefix);
        self.groups.set(prefix, group);
      }
      group.addEndpoint(subject.slice(cut + 1), {
        handler: (err, msg) => {
          if (err) {
            self.log.error({ err, subject }, 'endpoint subscription failed');
            return;
          }
          void self.dispatch(msg, subject, reqType, repType, handler);
        },
        metadata: { subject },
      });
    };
    this.registered.push(add);
    if (!this.suspended) add(this);
  }

  /** The handler of a bus operation: its subject and messages come from the contract. */
  handle<Req extends WithCaller, Rep extends WithStatus>(contract: Contract<Req, Rep>, handler: Handler<Req, Rep>): void {
    this.endpoint(subjectOf(contract), contract.request, contract.reply, handler);
  }

  /**
   * Stops answering: every endpoint is unsubscribed and the service leaves discovery
   * (`$SRV.PING`), so requests go to the replicas that serve. Handlers already running finish
   * and answer. Endpoints registered while suspended are subscribed by resume().
   */
  async suspend(): Promise<void> {
    if (this.suspended) return;
    this.suspended = true;
    await this.service.stop().catch(() => undefined);
  }

  /** Answers again: a new micro-service instance with every endpoint registered so far. */
  async resume(): Promise<void> {
    if (!this.suspended) return;
    const holder: { self?: BusService } = { self: this };
    this.service = await BusService.micro(this.nc, this.opts, holder);
    this.groups = new Map();
    this.instance = randomUUID();
    this.suspended = false;
    for (const add of this.registered) add(this);
    // Subscribed once the server has seen the flush: only then can another connection reach them.
    await this.nc.flush();
  }

  get serving(): boolean {
    return !this.suspended;
  }

  private async dispatch<Req extends WithCaller, Rep extends WithStatus>(
    msg: ServiceMsg,
    subject: string,
    reqType: MessageType<Req>,
    repType: MessageType<Rep>,
    handler: Handler<Req, Rep>,
  ): Promise<void> {
    const requestId = msg.headers?.get(REQUEST_ID_HEADER) || randomUUID();
    // The holding and the connection the request came in on (INSTANCE_HEADER).
    const instance = `${this.instance}.${connectionId(this.nc)}`;
    const log = this.log.child({ requestId, subject });
    let reply: Rep;
    let crashed = false;
    try {
      const req = decodeRequest(reqType, await this.spill.unpack(msg));
      const caller: sml.v1.ICaller = { user: req.caller?.user ?? '', root: req.caller?.root ?? false, requestId };
      reply = await handler(req, { caller, requestId, log });
      reply.status ??= okStatus();
    } catch (thrown) {
      const counters = this.counters.get(subject)!;
      // NATS unreachable or a JetStream resource missing: a retryable 503, not a crash.
      const err = BusHealth.of(this.nc).failure(thrown) ?? thrown;
      if (err instanceof SmlError) {
        counters.errorReplies++;
        reply = { status: errorStatus(err) } as Rep;
      } else {
        counters.crashes++;
        crashed = true;
        log.error({ err }, 'handler failed');
        reply = { status: errorStatus(smlError('INTERNAL', { requestId })) } as Rep;
      }
    }
    try {
      const h = natsHeaders();
      h.set(REQUEST_ID_HEADER, requestId);
      h.set(INSTANCE_HEADER, instance);
      const packed = await this.spill.pack(repType.encode(reply).finish(), h);
      // respondError counts the failure in $SRV.STATS; the body still carries our Status.
      if (crashed) msg.respondError(500, 'handler failed', packed.data, { headers: packed.headers });
      else msg.respond(packed.data, { headers: packed.headers });
    } catch (err) {
      log.error({ err }, 'could not send reply');
    }
  }

  /** Adds figures of the service's own (e.g. batches quarantined) to an endpoint's `$SRV.STATS` data. */
  reportStats(subject: string, figures: () => Record<string, number>): void {
    this.extraStats.set(this.served(subject), figures);
  }

  /** The subject an endpoint registered as `subject` is served under (BusServiceOptions.shard). */
  private served(subject: string): string {
    const shard = this.opts.shard;
    return shard && subject.startsWith(shard.from) ? shard.to + subject.slice(shard.from.length) : subject;
  }

  async stop(): Promise<void> {
    this.suspended = true;
    await this.service.stop();
  }
}

/**
 * Decodes a request; bytes that do not decode (a string that is not UTF-8, such as an
 * unpaired surrogate a client escaped into its JSON) are the sender's bad input: 400, not a
 * crash of the handler.
 */
function decodeRequest<Req>(type: MessageType<Req>, bytes: Uint8Array): Req {
  try {
    return type.decode(bytes);
  } catch (err) {
    throw smlError('INVALID_REQUEST', { detail: `the request could not be decoded (${(err as Error).message}); text must be valid Unicode (no unpaired surrogates)` }, err);
  }
}

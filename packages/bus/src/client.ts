import { randomUUID } from 'node:crypto';
import { ErrorCode as NatsErrorCode, headers as natsHeaders, type NatsConnection } from 'nats';
import { smlError, type SmlError } from '@sml/core';
import { Breakers } from './breaker';
import { BusHealth } from './health';
import { REQUEST_ID_HEADER } from './headers';
import { Spill } from './spill';
import type { MessageType, WithCaller, WithStatus } from './types';

export interface CallOptions {
  requestId?: string;
  timeoutMs?: number;
}

export interface BusClientOptions {
  timeoutMs: number;
  resetMs: number;
  /**
   * How long a request that meets "no responders" (nobody subscribed to its subject: a shard
   * being handed over, a replica restarting) is sent again before it answers 503
   * (SML_NO_RESPONDERS_RETRY_MS; 0: at once). Always safe: such a request reached nobody.
   */
  noRespondersRetryMs?: number;
}

/** Default of BusClientOptions.noRespondersRetryMs (SML_NO_RESPONDERS_RETRY_MS). */
export const NO_RESPONDERS_RETRY_MS = 2000;
/** First and longest pause between two sends of a request that met no responders. */
const RETRY_FIRST_MS = 25;
const RETRY_MAX_MS = 250;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const natsCode = (err: unknown) => (err as { code?: string }).code;

/**
 * Typed request/reply over protobuf, through a circuit breaker per subject (Breakers).
 * Transport failures become 503 SmlErrors naming the service; replies are returned as
 * decoded, their Status included (use `unwrap` to turn an error status into an exception).
 */
export class BusClient {
  private readonly breakers: Breakers;
  private readonly spill: Spill;
  private readonly noRespondersRetryMs: number;

  constructor(readonly nc: NatsConnection, private readonly opts: BusClientOptions) {
    this.breakers = new Breakers({ resetMs: opts.resetMs });
    this.spill = new Spill(nc);
    this.noRespondersRetryMs = opts.noRespondersRetryMs ?? NO_RESPONDERS_RETRY_MS;
  }

  async request<Req extends WithCaller, Rep extends WithStatus>(
    service: string,
    subject: string,
    reqType: MessageType<Req>,
    req: Req,
    repType: MessageType<Rep>,
    opts: CallOptions = {},
  ): Promise<Rep> {
    const timeout = opts.timeoutMs ?? this.opts.timeoutMs;
    // NATS unreachable: answer 503 now (naming NATS, not the service) rather than after the
    // timeout, and leave the service's breaker alone.
    const health = BusHealth.of(this.nc);
    health.assertConnected();
    const h = natsHeaders();
    h.set(REQUEST_ID_HEADER, opts.requestId ?? req.caller?.requestId ?? randomUUID());
    const packed = await this.spill.pack(reqType.encode(req).finish(), h).catch((err) => {
      throw health.failure(err) ?? err;
    });
    const started = Date.now();
    const retryUntil = started + Math.min(this.noRespondersRetryMs, timeout);
    for (let pause = RETRY_FIRST_MS; ; pause = Math.min(2 * pause, RETRY_MAX_MS)) {
      if (this.breakers.admit(subject) === 'refused') {
        throw smlError('SERVICE_UNAVAILABLE', { service }, Object.assign(new Error(`circuit breaker of ${subject} open`), { code: 'EOPENBREAKER' }));
      }
      try {
        const msg = await this.nc.request(subject, packed.data, { timeout: Math.max(1, started + timeout - Date.now()), headers: packed.headers });
        this.breakers.answered(subject);
        return repType.decode(await this.spill.unpack(msg));
      } catch (err) {
        if (!health.connected) {
          this.breakers.released(subject);
          throw smlError('NATS_UNAVAILABLE', { cause: 'connection lost' }, err);
        }
        if (natsCode(err) === NatsErrorCode.Timeout) {
          this.breakers.timedOut(subject);
          throw transportError(err, service, timeout);
        }
        this.breakers.released(subject);
        // Nobody subscribed: the request reached no one, so sending it again is safe whatever it does.
        if (natsCode(err) !== NatsErrorCode.NoResponders || Date.now() + pause > retryUntil) throw transportError(err, service, timeout);
        await sleep(pause);
      }
    }
  }

  /** Whether the breaker of `subject` is open: its requests fail at once, but one trial every resetMs. */
  breakerOpen(subject: string): boolean {
    return this.breakers.isOpen(subject);
  }

  close(): void {
    // Nothing to stop: the breakers keep no timers.
  }
}

function transportError(err: unknown, service: string, timeoutMs: number): SmlError {
  if (natsCode(err) === NatsErrorCode.Timeout) return smlError('SERVICE_TIMEOUT', { service, timeoutMs }, err);
  return smlError('SERVICE_UNAVAILABLE', { service }, err);
}

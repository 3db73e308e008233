import { randomUUID } from 'node:crypto';
import { ErrorCode as NatsErrorCode, headers as natsHeaders, type Msg, type NatsConnection } from 'nats';
import { smlError, type SmlError } from '@sml/core';
import { Breakers } from './breaker';
import { subjectOf, type Contract } from './contracts';
import { BusHealth } from './health';
import { connectionId, INSTANCE_HEADER, REQUEST_ID_HEADER } from './headers';
import { Spill } from './spill';
import type { MessageType, WithCaller, WithStatus } from './types';

/**
 * How a request notices that whoever received it is gone (a projects replica SIGKILLed, a
 * shard handed over), instead of waiting for its timeout: `probe` is a cheap endpoint
 * subscribed exactly when the request's subject is (a shard's `alive`), whose answers name
 * the holding that answered (INSTANCE_HEADER).
 */
export interface Failover {
  probe: string;
  /**
   * The request may be sent again to the subject's next holder: it reads, or it is a learn
   * with an Idempotency-Key (applied once however often it is sent). Otherwise it answers 503
   * once the holder is gone and has not answered within FAILOVER_GRACE_MS.
   */
  resend: boolean;
}

export interface CallOptions {
  requestId?: string;
  timeoutMs?: number;
  failover?: Failover;
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
/**
 * A request with a Failover unanswered this long is watched: its probe is sent every
 * PROBE_EVERY_MS. Shorter than two thirds of the shortest lease (SML_PROJECT_LEASE_MS ≥ 1 s),
 * the least time between a holder's death and another replica serving its shard, so the
 * probes see the gap ("no responders") rather than only the next holder.
 */
export const PROBE_AFTER_MS = 500;
const PROBE_EVERY_MS = 500;
const PROBE_TIMEOUT_MS = 1000;
/** A holder gone (handed over, not dead) still answers what it was running: this long. */
export const FAILOVER_GRACE_MS = 1500;

/** What a probe tells: the holding that answered, nobody subscribed, or nothing (slow, NATS away). */
type Probe = { instance: string } | 'none' | 'unknown';

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
  /** Probe subject → the probe in flight, shared by every request watching that subject. */
  private readonly probes = new Map<string, Promise<Probe>>();

  constructor(readonly nc: NatsConnection, private readonly opts: BusClientOptions) {
    this.breakers = new Breakers({ resetMs: opts.resetMs });
    this.spill = new Spill(nc);
    this.noRespondersRetryMs = opts.noRespondersRetryMs ?? NO_RESPONDERS_RETRY_MS;
  }

  /**
   * The request of an operation, its service, subject and messages from its contract; a
   * projects operation on `shard` (projectSubject's for a project: pass it to `request`).
   */
  call<Req extends WithCaller, Rep extends WithStatus>(contract: Contract<Req, Rep>, req: Req, opts: CallOptions & { shard?: number } = {}): Promise<Rep> {
    return this.request(contract.service, subjectOf(contract, opts.shard), contract.request, req, contract.reply, opts);
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
    const deadline = started + timeout;
    let retryUntil = started + Math.min(this.noRespondersRetryMs, timeout);
    for (let pause = RETRY_FIRST_MS; ; pause = Math.min(2 * pause, RETRY_MAX_MS)) {
      if (this.breakers.admit(subject) === 'refused') {
        throw smlError('SERVICE_UNAVAILABLE', { service }, Object.assign(new Error(`circuit breaker of ${subject} open`), { code: 'EOPENBREAKER' }));
      }
      try {
        const sent = this.nc.request(subject, packed.data, { timeout: Math.max(1, deadline - Date.now()), headers: packed.headers });
        const msg = opts.failover ? await this.watched(sent, opts.failover) : await sent;
        if (msg === 'gone') {
          // Its holder is gone: sent again to the next one, which may take until the old
          // holder's lease has run out (SML_PROJECT_LEASE_MS): "no responders" until then.
          this.breakers.released(subject);
          retryUntil = deadline;
          pause = RETRY_FIRST_MS / 2; // the loop doubles it: the first pause again
          continue;
        }
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

  /**
   * A request's answer, or `gone` when its subject's holder went away meanwhile and the
   * request may be sent again (Failover.resend); one that may not is answered 503 unless the
   * old holder answers within FAILOVER_GRACE_MS. The holder is gone when a probe finds nobody
   * subscribed, or another holding (or the holder on another NATS connection) than an earlier
   * probe of this request found; the request is lost too when this client reconnected.
   */
  private async watched(sent: Promise<Msg>, failover: Failover): Promise<Msg | 'gone'> {
    let answered = false;
    let wake: () => void = () => undefined;
    const settled = sent.then(() => undefined, () => undefined).finally(() => {
      answered = true;
      wake();
    });
    const pauseOrAnswer = (ms: number) => new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    const connection = connectionId(this.nc);
    const gone = (async (): Promise<boolean> => {
      let known: string | undefined;
      for (await pauseOrAnswer(PROBE_AFTER_MS); !answered; await pauseOrAnswer(PROBE_EVERY_MS)) {
        // This client reconnected meanwhile (its NATS server died): the answer may have been lost with it.
        if (connectionId(this.nc) !== connection && BusHealth.of(this.nc).connected) return true;
        const probe = await this.probe(failover.probe);
        if (answered) return false;
        if (probe === 'none' || (typeof probe === 'object' && known !== undefined && probe.instance !== known)) return true;
        if (typeof probe === 'object') known = probe.instance;
      }
      return false;
    })();
    const holderGone = gone.then(async (g): Promise<Msg | 'gone'> => (g ? 'gone' : await sent));
    const first = await Promise.race([sent, holderGone]);
    if (first !== 'gone') return first;
    if (failover.resend) {
      void settled; // its late answer or timeout is nobody's any more
      return 'gone';
    }
    const late = await Promise.race([sent.then((m) => m, () => undefined), sleep(FAILOVER_GRACE_MS).then(() => undefined)]);
    if (late) return late;
    throw Object.assign(new Error('the holder of the subject went away before answering'), { code: 'EHOLDERGONE' });
  }

  /** One probe of `subject`, shared by every request that asks while it is in flight. */
  private probe(subject: string): Promise<Probe> {
    let p = this.probes.get(subject);
    if (!p) {
      // Through a then: a request the connection refuses at once (closed) is an 'unknown', not a throw.
      p = Promise.resolve().then(() => this.nc.request(subject, new Uint8Array(0), { timeout: PROBE_TIMEOUT_MS })).then(
        (m): Probe => {
          const instance = m.headers?.get(INSTANCE_HEADER);
          return instance ? { instance } : 'unknown';
        },
        (err: unknown): Probe => (natsCode(err) === NatsErrorCode.NoResponders ? 'none' : 'unknown'),
      ).finally(() => this.probes.delete(subject));
      this.probes.set(subject, p);
    }
    return p;
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

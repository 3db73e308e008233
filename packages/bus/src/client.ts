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

/**
 * Typed request/reply over protobuf, through a per-service circuit breaker. Transport
 * failures become 503 SmlErrors naming the service; replies are returned as decoded, their
 * Status included (use `unwrap` to turn an error status into an exception).
 */
export class BusClient {
  private readonly breakers: Breakers;
  private readonly spill: Spill;

  constructor(readonly nc: NatsConnection, private readonly opts: { timeoutMs: number; resetMs: number }) {
    this.breakers = new Breakers({ resetMs: opts.resetMs });
    this.spill = new Spill(nc);
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
    try {
      const msg = await this.breakers.fire(service, () => this.nc.request(subject, packed.data, { timeout, headers: packed.headers }));
      return repType.decode(await this.spill.unpack(msg));
    } catch (err) {
      if (!health.connected) throw smlError('NATS_UNAVAILABLE', { cause: 'connection lost' }, err);
      throw transportError(err, service, timeout);
    }
  }

  breakerOpen(service: string): boolean {
    return this.breakers.isOpen(service);
  }

  close(): void {
    this.breakers.shutdown();
  }
}

function transportError(err: unknown, service: string, timeoutMs: number): SmlError {
  const code = (err as { code?: string }).code;
  if (code === NatsErrorCode.Timeout) return smlError('SERVICE_TIMEOUT', { service, timeoutMs }, err);
  return smlError('SERVICE_UNAVAILABLE', { service }, err);
}

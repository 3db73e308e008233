/** Header carrying the request id from the gateway through every service hop and log line. */
export const REQUEST_ID_HEADER = 'Sml-Request-Id';
/** Header naming an object-store entry that holds a payload too large for one NATS message. */
export const SPILL_HEADER = 'Sml-Spill';
/**
 * Header on every reply of a BusService: which instance answered — a new id each time a
 * suspended service resumes, so a projects shard's holding — and over which NATS connection
 * (server and client id: a reconnect loses the replies of what was in flight). BusClient's
 * failover probes compare it.
 */
export const INSTANCE_HEADER = 'Sml-Instance';
/**
 * Prefix of the Idempotency-Key the gateway gives a learn or forget the customer sent without
 * one (so that sending it again to another projects replica applies it once). Such a batch
 * still travels as its summary: the gateway sends the very same request again, never another
 * form of it, so its fingerprint cannot change.
 */
export const GATEWAY_IDEMPOTENCY_PREFIX = 'sml-gateway.';

/** The NATS connection a process has now (server and client id): changes when it reconnects. */
export function connectionId(nc: { info?: { server_id?: string; client_id?: number } }): string {
  return `${nc.info?.server_id ?? ''}.${nc.info?.client_id ?? ''}`;
}

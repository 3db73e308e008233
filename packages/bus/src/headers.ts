/** Header carrying the request id from the gateway through every service hop and log line. */
export const REQUEST_ID_HEADER = 'Sml-Request-Id';
/** Header naming an object-store entry that holds a payload too large for one NATS message. */
export const SPILL_HEADER = 'Sml-Spill';
/**
 * Header on every reply of a BusService: which instance answered — a new id each time a
 * suspended service resumes, so a projects shard's holding (BusClient's failover probes).
 */
export const INSTANCE_HEADER = 'Sml-Instance';

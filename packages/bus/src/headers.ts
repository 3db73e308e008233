/** Header carrying the request id from the gateway through every service hop and log line. */
export const REQUEST_ID_HEADER = 'Sml-Request-Id';
/** Header naming an object-store entry that holds a payload too large for one NATS message. */
export const SPILL_HEADER = 'Sml-Spill';

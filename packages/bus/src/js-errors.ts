/**
 * JetStream API error codes (nats-server's JSErr* codes) that SML tells apart. Code that
 * expects one failure matches its code and lets every other error through: a timeout or a
 * permission violation must never read as "already exists" or "not found".
 */
export const JS_ERR = {
  CONSUMER_NOT_FOUND: 10014,
  NO_MESSAGE_FOUND: 10037,
  STREAM_NOT_FOUND: 10059,
  WRONG_LAST_SEQUENCE: 10071,
} as const;

/** The JetStream API error code of a failed JetStream call, if it is one. */
export function jsErrorCode(err: unknown): number | undefined {
  const code = (err as { api_error?: { err_code?: unknown } } | null)?.api_error?.err_code;
  return typeof code === 'number' ? code : undefined;
}

/** A KV `create` refused because the key exists (the bucket's last sequence for it was not 0). */
export function isKeyExists(err: unknown): boolean {
  return jsErrorCode(err) === JS_ERR.WRONG_LAST_SEQUENCE;
}

/**
 * Idempotency-Key records (idempotency.ts): record name → fingerprint of the batch the key
 * first carried, remembered for the log's duplicate window (IDEMPOTENCY_WINDOW_MS).
 */
export interface IdempotencyKeys {
  /** The fingerprint remembered under `name`; undefined when none is (never put, or forgotten). */
  get(name: string): Promise<string | undefined>;
  put(name: string, fingerprint: string): Promise<void>;
}

/** One record of a source: its position in its partition and its value. */
export interface SourceRecord {
  offset: number;
  value: Buffer | null;
}

/** Consecutive records of one source partition, in order. */
export interface SourceBatch {
  /** kafka `<topic>:<partition>`, nats `<stream name>`: what the project's stream marks are kept per. */
  partition: string;
  records: SourceRecord[];
  /** Records of the partition (kafka) or consumer (nats) after this batch, when known. */
  lag?: number;
}

/** Sizes a batch (README "Streams"): records, bytes of values, and how long to wait for more. */
export interface BatchLimits {
  records: number;
  bytes: number;
  waitMs: number;
}

/**
 * A consumer of a Kafka topic or a JetStream subject. `run` hands batches, one at a time and in
 * order per partition, to `handle`, and commits a batch's position (Kafka offset, JetStream ack)
 * only once `handle` resolved: whatever was not committed is delivered again after a restart.
 */
export interface StreamSource {
  run(handle: (batch: SourceBatch) => Promise<void>, onError: (err: Error) => void): Promise<void>;
  stop(): Promise<void>;
}

/** Splits records into runs of at most `limits.records` records and `limits.bytes` bytes (at least one record each). */
export function chunks(records: SourceRecord[], limits: BatchLimits): SourceRecord[][] {
  const out: SourceRecord[][] = [];
  let current: SourceRecord[] = [];
  let bytes = 0;
  for (const r of records) {
    const size = r.value?.length ?? 0;
    if (current.length > 0 && (current.length >= limits.records || bytes + size > limits.bytes)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(r);
    bytes += size;
  }
  if (current.length > 0) out.push(current);
  return out;
}

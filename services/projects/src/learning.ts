import { createHash } from 'node:crypto';
import type { KV } from 'nats';
import { clip, smlError, type Logger } from '@sml/core';
import { sml } from '@sml/proto';
import type { ProjectEncoders } from './encoding';
import { batchOf, type ProjectState } from './project';
import type { ProjectRegistry } from './registry';
import { ProjectStore } from './store';

export type LearnOp = 'learn' | 'forget';

/** How long an Idempotency-Key is remembered: the log stream's duplicate window. */
export const IDEMPOTENCY_WINDOW_MS = 2 * 60_000;

/** The log entry of a batch: the frame in the form the request carried it. */
export function logEntry(op: LearnOp, req: sml.v1.ILearnRequest): sml.v1.IProjectLogEntry {
  return req.columns ? { op, columns: req.columns } : req.frameJson?.length ? { op, frameJson: req.frameJson } : { op, frame: req.frame };
}

/** Where an Idempotency-Key is remembered, and the fingerprint of the batch it carried. */
export interface IdempotencyRecord {
  /** The KV key: customer, project and a hash of the Idempotency-Key (KV keys have a restricted alphabet). */
  name: string;
  /** SHA-256 of the log entry: operation and encoded frame. */
  fingerprint: string;
}

export function idempotencyRecord(user: string, pid: string, idempotencyKey: string, entry: sml.v1.IProjectLogEntry): IdempotencyRecord {
  return {
    name: `${ProjectStore.key(user, pid)}.${createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 32)}`,
    fingerprint: createHash('sha256').update(sml.v1.ProjectLogEntry.encode(entry).finish()).digest('hex'),
  };
}

/**
 * Whether a batch is the retry of one already logged under its Idempotency-Key (`stored`:
 * the fingerprint the key first carried, if it is still remembered): then it is answered as
 * the first time and learns nothing. The same key with another batch is refused (422).
 */
export function isRetry(stored: string | undefined, record: IdempotencyRecord, idempotencyKey: string): boolean {
  if (stored === undefined) return false;
  if (stored !== record.fingerprint) throw smlError('IDEMPOTENCY_KEY_REUSED', { key: clip(idempotencyKey) });
  return true;
}

/** Whether the project must be sent the batch's JSON: it reads the rows' cells (or encodes S/L columns), and the gateway sent columns. */
export function needsJson(p: ProjectState, req: sml.v1.ILearnRequest): boolean {
  return Boolean(req.columns) && (p.summary.needsCells || Boolean(p.meta.encoder));
}

/**
 * Learn and forget (API.md §4): one batch at a time per project, under its lock. A batch is
 * validated (nothing changes on a 400), then sent to the log and added to the summary while
 * it travels; 200 only once the log has it. If the log refuses it, or already had it (a
 * retried Idempotency-Key), the project is reloaded from its durable state, so memory never
 * holds a batch the log does not (or holds it twice).
 */
export class Learning {
  constructor(
    private readonly registry: ProjectRegistry,
    private readonly store: ProjectStore,
    /** Idempotency-Key → fingerprint of the batch it first carried, for the log's duplicate window. */
    private readonly idempotency: KV,
    private readonly log: Logger,
    /** Encodes the S/L columns of a project with an encoder (encoderAssign). */
    private readonly encoders?: ProjectEncoders,
  ) {}

  /** Whether an `async` batch must be sent again as JSON before its job is created (400 now for an unknown project). */
  needsJson(user: string, pid: string, req: sml.v1.ILearnRequest): Promise<boolean> {
    return this.registry.with(user, pid, (p) => needsJson(p, req));
  }

  batch(user: string, pid: string, req: sml.v1.ILearnRequest, op: LearnOp): Promise<sml.v1.ILearnReply> {
    return this.registry.with(user, pid, async (p) => {
      if (p.meta.frozen) throw smlError('PROJECT_FROZEN', { pid });
      const streamMark = p.streamMarks.covering(req.streamPosition);
      if (streamMark !== undefined) return { alreadyLearned: true, streamMark };
      if (needsJson(p, req)) return { needsJson: true };
      // The log keeps the encoded rows: replay never depends on the encoder's later state.
      const input = p.meta.encoder && this.encoders ? await this.encoders.encodeRequest(user, p.meta.encoder, req) : req;
      const t0 = performance.now();
      const change = p.prepare(op, batchOf(input));
      const t1 = performance.now();
      const reply = change.lenient ? { learnReport: change.report } : {};
      if (p.memoryOnly) {
        change.commit();
        p.logged(0);
        p.streamMarks.advance(req.streamPosition);
        return reply;
      }
      const entry = { ...logEntry(op, input), ...(req.streamPosition ? { streamPosition: req.streamPosition } : {}) };
      // The fingerprint is the batch as sent, whatever the encoder made of it.
      const key = req.idempotencyKey ? idempotencyRecord(user, pid, req.idempotencyKey, input === req ? entry : logEntry(op, req)) : undefined;
      if (key) {
        const first = await this.idempotency.get(key.name).catch(() => null);
        // A retry gets the first answer: that batch is in the log already.
        if (isRetry(first && first.operation === 'PUT' ? first.string() : undefined, key, req.idempotencyKey!)) return reply;
      }
      // The log keeps the batch as it came. The message id names key and content, so the
      // stream's own de-duplication can never drop a different batch under a reused key.
      const appended = this.store.append(user, pid, entry, key ? `${key.name}.${key.fingerprint}` : undefined);
      appended.catch(() => undefined); // awaited below; the summary is updated meanwhile
      // One turn of the event loop, so the batch is on its way to NATS before the CPU-bound commit.
      await new Promise((resolve) => setImmediate(resolve));
      try {
        change.commit();
      } catch (err) {
        // Not expected (commit does not validate): memory may be half-changed, so reload what is durable.
        this.registry.evict(user, pid);
        throw err;
      }
      const t2 = performance.now();
      let ack: { seq: number; duplicate: boolean };
      try {
        ack = await appended;
      } catch (err) {
        this.registry.evict(user, pid);
        throw smlError('NOT_PERSISTED', { detail: (err as Error).message }, err);
      }
      if (ack.duplicate) {
        // Already logged by an earlier attempt: reload the durable state, which has it once.
        this.registry.evict(user, pid);
        return reply;
      }
      p.logged(ack.seq);
      p.streamMarks.advance(req.streamPosition);
      if (key) await this.idempotency.put(key.name, key.fingerprint).catch((err) => this.log.warn({ err, pid }, 'idempotency record not kept'));
      const t3 = performance.now();
      await this.registry.afterBatch(p);
      this.log.debug({ pid, op, rows: change.report.rowsLearned, prepareMs: t1 - t0, commitMs: t2 - t1, logWaitMs: t3 - t2, snapshotMs: performance.now() - t3 }, 'batch learned');
      return reply;
    });
  }
}

import { smlError, type Logger } from '@sml/core';
import { GATEWAY_IDEMPOTENCY_PREFIX, jsErrorCode, JS_ERR } from '@sml/bus';
import { sml } from '@sml/proto';
import type { ProjectEncoders } from './encoding';
import type { PreparedChange } from '@sml/stats';
import { batchOf, type ProjectState } from '../lifecycle/project';
import { idempotencyRecord, isRetry, messageId, type IdempotencyRecord } from './idempotency';
import type { ProjectRegistry } from '../lifecycle/registry';
import type { Appended, IdempotencyKeys, ProjectLog } from '../ports';
import { ONLINE_BACKLOG } from '../predict/online-updates';
import { DROP_MARKS } from './stream-marks';

export type LearnOp = 'learn' | 'forget';

/** The log entry of a batch: the frame (or its summary) in the form the request carried it. */
export function logEntry(op: LearnOp, req: sml.v1.ILearnRequest): sml.v1.IProjectLogEntry {
  if (req.batchSummary?.length) return { op, batchSummary: req.batchSummary };
  return req.columns ? { op, columns: req.columns } : req.frameJson?.length ? { op, frameJson: req.frameJson } : { op, frame: req.frame };
}

/** Whether the project must be sent the batch's JSON: it reads the rows' cells (or encodes S/L columns), and the gateway sent columns. */
export function needsJson(p: ProjectState, req: sml.v1.ILearnRequest): boolean {
  return Boolean(req.columns) && (p.summary.needsCells || Boolean(p.meta.encoder));
}

/**
 * Whether a batch summary must be sent again as the frame: the project's recipe is not the
 * one it was built with (the project was deleted and created again otherwise, or became one
 * that needs rows), or the batch is one that must stay a frame (a job's, or one the customer
 * keyed: its retry's fingerprint must not depend on the form it came in; the gateway's own key
 * is sent again only with the very same request, GATEWAY_IDEMPOTENCY_PREFIX).
 */
export function refusesSummary(p: ProjectState, req: sml.v1.ILearnRequest): boolean {
  const keyed = Boolean(req.idempotencyKey) && !req.idempotencyKey!.startsWith(GATEWAY_IDEMPOTENCY_PREFIX);
  return Boolean(req.batchSummary?.length) && (req.async || keyed || Boolean(req.streamPosition) || req.summaryRecipe !== p.batchRecipe);
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
    private readonly store: ProjectLog,
    /** Idempotency-Key → fingerprint of the batch it first carried, for the log's duplicate window. */
    private readonly idempotency: IdempotencyKeys,
    private readonly log: Logger,
    /** Encodes the S/L columns of a project with an encoder (encoderAssign). */
    private readonly encoders?: ProjectEncoders,
  ) {}

  /** Whether an `async` batch must be sent again as JSON before its job is created (400 now for an unknown project). */
  needsJson(user: string, pid: string, req: sml.v1.ILearnRequest): Promise<boolean> {
    return this.registry.with(user, pid, (p) => needsJson(p, req), { pendingOnline: true });
  }

  batch(user: string, pid: string, req: sml.v1.ILearnRequest, op: LearnOp): Promise<sml.v1.ILearnReply> {
    // The online models (forest, micro-clusters) learn each batch on their threads after it is
    // committed: this batch neither waits for the previous one's update nor reads the models.
    return this.registry.with(user, pid, async (p) => {
      if (p.meta.frozen) throw smlError('PROJECT_FROZEN', { pid });
      const streamMark = p.streamMarks.covering(req.streamPosition);
      if (streamMark !== undefined) return { alreadyLearned: true, streamMark };
      if (needsJson(p, req)) return { needsJson: true };
      if (refusesSummary(p, req)) return { needsColumns: true };
      // Before it is logged: a customer whose batches come faster than their forest learns them
      // waits here (this project only), and at most ONLINE_BACKLOG batches' columns wait in memory.
      await p.onlineBelow(ONLINE_BACKLOG);
      // The log keeps the encoded rows: replay never depends on the encoder's later state.
      const input = p.meta.encoder && this.encoders ? await this.encoders.encodeRequest(user, p.meta.encoder, req) : req;
      const entry = { ...logEntry(op, input), ...(req.streamPosition ? { streamPosition: req.streamPosition } : {}) };
      // prevSeq chains the entry to the state it was applied to (not part of the fingerprint: a
      // retry is the same batch). Encoded before the batch is read: one too large for the log is refused first.
      const logged = p.memoryOnly ? undefined : this.store.encodeEntry({ ...entry, prevSeq: p.logSeq });
      const t0 = performance.now();
      let change: PreparedChange;
      try {
        change = p.prepare(op, batchOf(input));
      } catch (err) {
        // Refused as a summary: the frame, sent again, is refused in the frame's words (row, column).
        if (req.batchSummary?.length) return { needsColumns: true };
        throw err;
      }
      const prepareMs = performance.now() - t0;
      const recipe = req.askSummaryRecipe ? p.batchRecipe : null;
      const reply: sml.v1.ILearnReply = { ...(change.lenient ? { learnReport: change.report } : {}), ...(recipe !== null ? { summaryRecipe: recipe } : {}) };
      if (p.memoryOnly) {
        change.commit();
        p.logged(0);
        p.streamMarks.advance(req.streamPosition);
        return reply;
      }
      // The fingerprint is the batch as sent, whatever the encoder made of it.
      const key = req.idempotencyKey ? idempotencyRecord(user, pid, req.idempotencyKey, input === req ? entry : logEntry(op, req)) : undefined;
      if (key) {
        const first = p.replayedKeys.get(key.name) ?? (await this.idempotency.get(key.name).catch(() => undefined));
        // A retry gets the first answer: that batch is in the log already.
        if (isRetry(first, key, req.idempotencyKey!)) return reply;
      }
      await this.logAndCommit(p, { op, req, logged: logged!, key, change, prepareMs });
      return reply;
    }, { pendingOnline: true });
  }

  /**
   * Sends a validated batch to the log and commits it to the summary while it travels; resolves
   * once the log has it. Memory is evicted (the durable state reloaded) whenever it could
   * differ from the log: a refused append, a duplicate, a commit that threw.
   */
  private async logAndCommit(p: ProjectState, batch: { op: LearnOp; req: sml.v1.ILearnRequest; logged: Uint8Array; key?: IdempotencyRecord; change: PreparedChange; prepareMs: number }): Promise<void> {
    const { user, pid } = p.meta;
    const { key, change } = batch;
    // Only this replica may write the project now (its shard's lease, not about to expire).
    if (!this.registry.writable(user, pid)) {
      this.registry.evict(user, pid);
      throw smlError('SERVICE_UNAVAILABLE', { service: 'projects' });
    }
    // The log keeps the batch as it came.
    const appended = this.store.append(user, pid, batch.logged, p.fenced ? undefined : p.logTail, key ? messageId(key) : undefined);
    appended.catch(() => undefined); // awaited below; the summary is updated meanwhile
    // One turn of the event loop, so the batch is on its way to NATS before the CPU-bound commit.
    await new Promise((resolve) => setImmediate(resolve));
    const t1 = performance.now();
    try {
      change.commit();
    } catch (err) {
      // Not expected (commit does not validate): memory may be half-changed, so reload what is durable.
      this.registry.evict(user, pid);
      throw err;
    }
    const t2 = performance.now();
    let ack: Appended;
    try {
      ack = await appended;
    } catch (err) {
      this.registry.evict(user, pid);
      // The log has an entry this state does not (an append whose answer was lost, stored
      // after all): the reload on the retry learns it, and its Idempotency-Key with it.
      const detail = jsErrorCode(err) === JS_ERR.WRONG_LAST_SEQUENCE ? 'the project log has a batch this process had not seen; reloaded' : (err as Error).message;
      throw smlError('NOT_PERSISTED', { detail }, err);
    }
    if (ack.duplicate) {
      // Already logged by an earlier attempt: reload the durable state, which has it once.
      this.registry.evict(user, pid);
      return;
    }
    p.logged(ack.seq);
    p.streamMarks.advance(batch.req.streamPosition);
    if (key) await this.idempotency.put(key.name, key.fingerprint).catch((err) => this.log.warn({ err, pid }, 'idempotency record not kept'));
    const t3 = performance.now();
    await this.registry.afterBatch(p);
    this.log.debug({ pid, op: batch.op, seq: ack.seq, rows: change.report.rowsLearned, prepareMs: batch.prepareMs, commitMs: t2 - t1, logWaitMs: t3 - t2, snapshotMs: performance.now() - t3 }, 'batch learned');
  }

  /**
   * A deleted stream's marks leave the project, through the log like a batch (a load replays
   * the drop), so the marks a project keeps are those of its streams, not of every stream it
   * ever had. Nothing to do when it has none of that stream's.
   */
  dropStreamMarks(user: string, pid: string, stream: string): Promise<void> {
    return this.registry.with(user, pid, async (p) => {
      if (!stream || !p.streamMarks.list().some((m) => m.stream === stream)) return;
      if (p.memoryOnly) {
        p.streamMarks.drop(stream);
        return;
      }
      if (!this.registry.writable(user, pid)) {
        this.registry.evict(user, pid);
        throw smlError('SERVICE_UNAVAILABLE', { service: 'projects' });
      }
      let ack: Appended;
      try {
        ack = await this.store.append(user, pid, { op: DROP_MARKS, streamPosition: { stream }, prevSeq: p.logSeq }, p.fenced ? undefined : p.logTail);
      } catch (err) {
        this.registry.evict(user, pid);
        throw smlError('NOT_PERSISTED', { detail: (err as Error).message }, err);
      }
      p.logged(ack.seq);
      p.streamMarks.drop(stream);
      await this.registry.afterBatch(p);
    }, { pendingOnline: true });
  }
}

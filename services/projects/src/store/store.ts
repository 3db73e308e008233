import { DeliverPolicy, type KV, type NatsConnection, type ObjectStore } from 'nats';
import { nameToken, smlError } from '@sml/core';
import { sml } from '@sml/proto';
import { ensureStream, isKeyExists, JS_ERR, jsErrorCode, kvBucket, nextWithin, objectStore } from '@sml/bus';
import type { SerializedChunks } from '@sml/stats';
import type { Appended, ProjectStorage, ReplayedEntry, StoredSnapshot } from '../ports';

export const PROJECT_LOG_STREAM = 'SML_PROJECT_LOG';
/** A replay or snapshot read that receives nothing this long fails (503, retryable) instead of holding the project. */
const STALL_MS = 15_000;

/**
 * A snapshot object: "SMLP", u32 version, u32 header length (little-endian), the header (a
 * ProjectSnapshot without its summary: logSeq, streamMarks), then the serialized summary.
 * A ProjectSnapshot message (the format before) never starts with "S" (0x53 would be field
 * 10 as a group), so both read.
 */
/** Room left under the server's max_payload for a log entry's headers (message id, expected sequence: ≈ 200 bytes). */
const ENTRY_HEADROOM = 4 * 1024;

const SNAPSHOT_MAGIC = new Uint8Array([0x53, 0x4d, 0x4c, 0x50]);
const SNAPSHOT_VERSION = 1;
/** Object-store pieces of a snapshot (the client's default) and how many may await their acks. */
const SNAPSHOT_PIECE_BYTES = 128 * 1024;
const SNAPSHOT_AHEAD_PIECES = 64;

/** The chunks one at a time, each dropped from `chunks` as it is taken. */
function released(chunks: Array<Uint8Array | null>): SerializedChunks {
  let next = 0;
  const total = chunks.reduce((n, c) => n + (c?.length ?? 0), 0);
  return {
    total,
    chunks: {
      next: () => {
        if (next >= chunks.length) return { done: true, value: undefined };
        const value = chunks[next]!;
        chunks[next++] = null;
        return { done: false, value };
      },
    },
  };
}

/** The first `n` bytes across chunks (copied), or null when there are fewer. */
function leading(chunks: readonly Uint8Array[], n: number): Uint8Array | null {
  const out = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) {
    if (at === n) break;
    const k = Math.min(n - at, c.length);
    out.set(c.subarray(0, k), at);
    at += k;
  }
  return at === n ? out : null;
}

/** The chunks without their first `n` bytes (views, not copies). */
function skipBytes(chunks: readonly Uint8Array[], n: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let left = n;
  for (const c of chunks) {
    if (left >= c.length) {
      left -= c.length;
      continue;
    }
    out.push(left > 0 ? c.subarray(left) : c);
    left = 0;
  }
  return out;
}

export function readSnapshot(chunks: readonly Uint8Array[]): StoredSnapshot {
  const magic = leading(chunks, SNAPSHOT_MAGIC.length + 8);
  if (magic === null || !SNAPSHOT_MAGIC.every((b, k) => magic[k] === b)) {
    // Written before chunked snapshots: one ProjectSnapshot message.
    const old = sml.v1.ProjectSnapshot.decode(leading(chunks, chunks.reduce((n, c) => n + c.length, 0))!);
    return { logSeq: Number(old.logSeq ?? 0), summary: released([old.summary ?? new Uint8Array()]), streamMarks: old.streamMarks ?? [] };
  }
  const view = new DataView(magic.buffer);
  const version = view.getUint32(SNAPSHOT_MAGIC.length, true);
  if (version !== SNAPSHOT_VERSION) throw new Error(`unsupported snapshot format version ${version}`);
  const headerLength = view.getUint32(SNAPSHOT_MAGIC.length + 4, true);
  const header = leading(skipBytes(chunks, magic.length), headerLength);
  if (header === null) throw new Error('damaged snapshot: header cut short');
  const decoded = sml.v1.ProjectSnapshot.decode(header);
  return { logSeq: Number(decoded.logSeq ?? 0), summary: released(skipBytes(chunks, magic.length + headerLength)), streamMarks: decoded.streamMarks ?? [] };
}

/**
 * Durable state of projects (ARCHITECTURE.md §3): metadata in KV `sml_projects`, learn/forget
 * batches in the write-ahead stream SML_PROJECT_LOG (one subject per project), snapshots in
 * object store `sml_project_snapshots`. Keys are `<customer token>.<project token>`.
 */
export class ProjectStore implements ProjectStorage {
  private constructor(private readonly nc: NatsConnection, private readonly kv: KV, private readonly snapshots: ObjectStore, private readonly quarantine: ObjectStore) {}

  static async open(nc: NatsConnection): Promise<ProjectStore> {
    await ensureStream(nc, { name: PROJECT_LOG_STREAM, subjects: ['sml.plog.>'] });
    return new ProjectStore(nc, await kvBucket(nc, 'sml_projects'), await objectStore(nc, 'sml_project_snapshots'), await objectStore(nc, 'sml_project_quarantine'));
  }

  static key(user: string, pid: string): string {
    return `${nameToken(user)}.${nameToken(pid)}`;
  }

  private static subject(user: string, pid: string): string {
    return `sml.plog.${ProjectStore.key(user, pid)}`;
  }

  async createMeta(meta: sml.v1.IProjectMeta): Promise<void> {
    try {
      await this.kv.create(ProjectStore.key(meta.user!, meta.pid!), sml.v1.ProjectMeta.encode(meta).finish());
    } catch (err) {
      if (isKeyExists(err)) throw smlError('PROJECT_EXISTS', { user: meta.user, pid: meta.pid });
      throw err;
    }
  }

  async putMeta(meta: sml.v1.IProjectMeta): Promise<void> {
    await this.kv.put(ProjectStore.key(meta.user!, meta.pid!), sml.v1.ProjectMeta.encode(meta).finish());
  }

  async getMeta(user: string, pid: string): Promise<sml.v1.ProjectMeta | undefined> {
    const e = await this.kv.get(ProjectStore.key(user, pid));
    return e && e.operation === 'PUT' ? sml.v1.ProjectMeta.decode(e.value) : undefined;
  }

  async listPids(user: string): Promise<string[]> {
    const keys: string[] = [];
    for await (const k of await this.kv.keys(`${nameToken(user)}.*`)) keys.push(k);
    const pids: string[] = [];
    for (const k of keys) {
      const e = await this.kv.get(k);
      if (e && e.operation === 'PUT') pids.push(sml.v1.ProjectMeta.decode(e.value).pid);
    }
    return pids;
  }

  /**
   * Appends one batch to the project's log; resolves once JetStream has stored it. With `tail`
   * (the sequence of the project's last log entry as this process knows it; 0: none), JetStream
   * stores the batch only if that is still the log's end (Nats-Expected-Last-Subject-Sequence),
   * else throws WRONG_LAST_SEQUENCE. The check costs nats-server a read of the previous entry
   * (≈ as much CPU again as the append for a 10 000-row batch), so Learning asks for it on the
   * first append after a load only (ProjectState.fenced says why that suffices).
   */
  async append(user: string, pid: string, entry: sml.v1.IProjectLogEntry | Uint8Array, tail?: number, msgId?: string): Promise<Appended> {
    const bytes = entry instanceof Uint8Array ? entry : sml.v1.ProjectLogEntry.encode(entry).finish();
    const ack = await this.nc.jetstream().publish(ProjectStore.subject(user, pid), bytes, {
      ...(tail === undefined ? {} : { expect: { lastSubjectSequence: tail } }),
      ...(msgId ? { msgID: msgId } : {}),
    });
    return { seq: ack.seq, duplicate: ack.duplicate };
  }

  /**
   * A batch's log entry as append stores it, or 413 when it is larger than one JetStream message
   * may be (the server's max_payload, less room for headers): the log keeps a batch in one
   * message, so such a batch can never be made durable, and is refused before it is learned.
   */
  encodeEntry(entry: sml.v1.IProjectLogEntry): Uint8Array {
    const bytes = sml.v1.ProjectLogEntry.encode(entry).finish();
    const limit = (this.nc.info?.max_payload ?? 1024 * 1024) - ENTRY_HEADROOM;
    if (bytes.length > limit) throw smlError('BATCH_TOO_LARGE', { bytes: bytes.length, limit });
    return bytes;
  }

  /** Sequence of the project's last entry in the log (0: none). */
  async logTail(user: string, pid: string): Promise<number> {
    const jsm = await this.nc.jetstreamManager();
    try {
      return (await jsm.streams.getMessage(PROJECT_LOG_STREAM, { last_by_subj: ProjectStore.subject(user, pid) })).seq;
    } catch (err) {
      if (jsErrorCode(err) === JS_ERR.NO_MESSAGE_FOUND) return 0;
      throw err;
    }
  }

  /**
   * Log entries after `afterSeq` up to `last` (logTail), in order, with the message id an
   * Idempotency-Key gave the entry and when it was stored.
   */
  async *replay(user: string, pid: string, afterSeq: number, last: number): AsyncGenerator<ReplayedEntry> {
    const subject = ProjectStore.subject(user, pid);
    if (last <= afterSeq) return;
    const consumer = await this.nc.jetstream().consumers.get(PROJECT_LOG_STREAM, {
      // A string, not an array: nats-server 2.9 knows only the single filter_subject.
      filterSubjects: subject,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: afterSeq + 1,
    });
    // Short pulls: the consumer's heartbeats (half the expiry) notice a lost server within a
    // second or two and the ordered consumer is recreated on another (nats.js waits one expiry
    // between attempts; the 30 s default held a project's lock that long in a NATS cluster).
    // Creating it retries up to 30 times (a few minutes) while the stream has no leader: bounded
    // too, and a consumer created after this gave up is stopped.
    const consuming = consumer.consume({ max_messages: 256, expires: 2000 });
    const messages = await nextWithin(() => consuming, STALL_MS, 'the project log').catch((err: unknown) => {
      void consuming.then((m) => m.stop(), () => undefined);
      throw err;
    });
    const it = messages[Symbol.asyncIterator]();
    try {
      for (let seen = afterSeq; seen < last; ) {
        // Never wait forever under the project's lock: a replay that stalls fails retryably.
        const next = await nextWithin(() => it.next(), STALL_MS, 'the project log');
        // nats.js ends a consumer's messages without an error in some of its recoveries from a
        // lost server (seen in a NATS cluster losing the stream's leader): a replay that stops
        // short of the end it read would load the project without its last batches.
        if (next.done) throw smlError('NATS_UNAVAILABLE', { cause: `the project log ended at ${seen} while reading up to ${last}` });
        const m = next.value;
        seen = m.seq;
        yield { seq: m.seq, entry: sml.v1.ProjectLogEntry.decode(m.data), msgId: m.headers?.get('Nats-Msg-Id') || undefined, storedAt: m.info.timestampNanos / 1e6 };
      }
    } finally {
      messages.stop();
    }
  }

  /**
   * Stores a snapshot as of log sequence `logSeq`, then trims the log before it (the entry at
   * `logSeq` stays). The summary
   * (Summary.serializeChunks, or one buffer) is streamed to the object store chunk by chunk
   * behind a small header (see SNAPSHOT_MAGIC), never copied into one snapshot buffer.
   */
  async snapshot(user: string, pid: string, summary: Uint8Array | Iterable<Uint8Array>, logSeq: number, streamMarks: sml.v1.IStreamMark[] = []): Promise<void> {
    const header = sml.v1.ProjectSnapshot.encode({ logSeq, streamMarks }).finish();
    const prefix = new Uint8Array(SNAPSHOT_MAGIC.length + 8);
    prefix.set(SNAPSHOT_MAGIC);
    const view = new DataView(prefix.buffer);
    view.setUint32(SNAPSHOT_MAGIC.length, SNAPSHOT_VERSION, true);
    view.setUint32(SNAPSHOT_MAGIC.length + 4, header.length, true);
    // Pulled one chunk at a time as the object store sends them: the summary's chunks are made as they are taken.
    const parts = (function* () {
      yield prefix;
      yield header;
      if (summary instanceof Uint8Array) yield summary;
      else yield* summary;
    })();
    // The object store publishes each 128 KiB piece it reads without waiting for its ack, each
    // within the publish timeout: read ahead of the acks (this connection's incoming messages,
    // an upper bound on them) by at most SNAPSHOT_AHEAD_PIECES, so a 200 MB snapshot is neither
    // queued whole in this process nor timed out behind the server's writes.
    const nc = this.nc;
    const ackedAtStart = nc.stats().inMsgs;
    let pieces = 0;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        while (pieces - (nc.stats().inMsgs - ackedAtStart) > SNAPSHOT_AHEAD_PIECES) await new Promise((r) => setTimeout(r, 2));
        const next = parts.next();
        if (next.done) {
          controller.close();
          return;
        }
        pieces += next.value.length / SNAPSHOT_PIECE_BYTES;
        controller.enqueue(next.value);
      },
    }, { highWaterMark: 1 });
    await this.snapshots.put({ name: ProjectStore.key(user, pid), options: { max_chunk_size: SNAPSHOT_PIECE_BYTES } }, stream);
    if (logSeq > 0) await this.trim(user, pid, logSeq);
  }

  /**
   * Keeps the entry at `keepFrom`: the chain's anchor (ProjectLogEntry.prevSeq). A later read
   * of an older snapshot, or of none, then meets an entry that does not follow it.
   */
  async trim(user: string, pid: string, keepFrom: number): Promise<void> {
    const jsm = await this.nc.jetstreamManager();
    await jsm.streams.purge(PROJECT_LOG_STREAM, { filter: ProjectStore.subject(user, pid), seq: keepFrom });
  }

  /**
   * The project's snapshot, read chunk by chunk as the object store delivers them: the
   * summary stays in those chunks (Summary.deserialize reads them as they are). Snapshots
   * written before chunking (one ProjectSnapshot message) still read.
   */
  async loadSnapshot(user: string, pid: string): Promise<StoredSnapshot | undefined> {
    const result = await this.snapshots.get(ProjectStore.key(user, pid));
    if (!result) return undefined;
    const chunks: Uint8Array[] = [];
    const reader = result.data.getReader();
    for (;;) {
      // As the replay: a read whose consumer was lost with a NATS server fails retryably.
      const { done, value } = await nextWithin(() => reader.read(), STALL_MS, 'the snapshot').catch(async (err: unknown) => {
        await reader.cancel().catch(() => undefined);
        throw err;
      });
      if (done) break;
      if (value && value.length > 0) chunks.push(value);
    }
    const failed = await result.error;
    if (failed) throw failed;
    return readSnapshot(chunks);
  }

  /** Removes a snapshot alone (an import that did not get its project id). */
  async deleteSnapshot(user: string, pid: string): Promise<void> {
    await this.snapshots.delete(ProjectStore.key(user, pid)).catch(() => undefined);
  }

  /**
   * Keeps a logged batch that could not be replayed, with why, under
   * `<customer>.<project>.<seq>`: the log itself is trimmed at the next snapshot.
   */
  async putQuarantined(user: string, pid: string, seq: number, entry: sml.v1.IProjectLogEntry, reason: string): Promise<void> {
    const data = sml.v1.ProjectLogEntry.encode(entry).finish();
    const record: sml.v1.IQuarantinedBatch = { seq, op: entry.op ?? 'learn', reason: reason.slice(0, 1000), time: Date.now(), bytes: data.length };
    await this.quarantine.putBlob({ name: `${ProjectStore.key(user, pid)}.${seq}`, description: JSON.stringify(record) }, data);
  }

  /** The project's quarantined batches, oldest first. */
  async quarantined(user: string, pid: string): Promise<sml.v1.IQuarantinedBatch[]> {
    const prefix = `${ProjectStore.key(user, pid)}.`;
    const out: sml.v1.IQuarantinedBatch[] = [];
    for (const info of await this.quarantine.list()) {
      if (info.deleted || !info.name.startsWith(prefix) || info.name.slice(prefix.length).includes('.')) continue;
      out.push(JSON.parse(info.description ?? '{}') as sml.v1.IQuarantinedBatch);
    }
    return out.sort((a, b) => Number(a.seq) - Number(b.seq));
  }

  /** Removes metadata, log, snapshot and quarantined batches of a project (the metadata last: until then the project exists). */
  async delete(user: string, pid: string): Promise<void> {
    await this.removeData(user, pid);
    await this.kv.delete(ProjectStore.key(user, pid));
  }

  /**
   * Removes a project's log, snapshot and quarantined batches, not its metadata. Also what a
   * create does first: a delete or an import that died half way can leave them under an id
   * that has no project, and a new project of that id would load them as its own.
   */
  async removeData(user: string, pid: string): Promise<void> {
    const jsm = await this.nc.jetstreamManager();
    await jsm.streams.purge(PROJECT_LOG_STREAM, { filter: ProjectStore.subject(user, pid) });
    await this.snapshots.delete(ProjectStore.key(user, pid)).catch(() => undefined);
    for (const q of await this.quarantined(user, pid)) await this.quarantine.delete(`${ProjectStore.key(user, pid)}.${q.seq}`).catch(() => undefined);
  }
}

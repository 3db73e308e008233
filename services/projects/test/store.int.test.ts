import { connect, type NatsConnection } from 'nats';
import { JS_ERR, jsErrorCode } from '@sml/bus';
import { sml } from '@sml/proto';
import { Summary } from '@sml/stats';
import { startNatsServer, type NatsServer } from '@sml/testkit';
import { createLogger } from '@sml/core';
import { idempotencyRecord, messageId } from '../src/learning/idempotency';
import { ProjectRegistry } from '../src/lifecycle/registry';
import { ProjectStore } from '../src/store/store';

/** A summary of `p` C attributes: its co-moments alone are p(p+1)/2 · 104 bytes. */
function wide(p: number): Summary {
  const names = Array.from({ length: p }, (_, j) => `x${j}`);
  const s = new Summary();
  s.learn({ attributeNames: names, attributeTypes: names.map(() => 'C'), data: [0, 1, 2].map((r) => names.map((_, j) => String(r * p + j))) });
  return s;
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

const entry = (x: number): sml.v1.IProjectLogEntry => ({ op: 'learn', frame: { attributeNames: ['x'], attributeTypes: ['C'], data: [{ entries: [String(x)] }] } });
const xs = (entries: { entry: sml.v1.ProjectLogEntry }[]) => entries.map((e) => Number(e.entry.frame!.data![0].entries![0]));

describe('ProjectStore against a real JetStream', () => {
  let nats: NatsServer;
  let nc: NatsConnection;
  let store: ProjectStore;
  beforeAll(async () => {
    nats = await startNatsServer();
    nc = await connect({ servers: nats.url });
    store = await ProjectStore.open(nc);
  });
  afterAll(async () => {
    await nc.close();
    await nats.stop();
  });

  const replayAll = async (user: string, pid: string, after: number) => {
    const out: { seq: number; entry: sml.v1.ProjectLogEntry; msgId?: string }[] = [];
    for await (const e of store.replay(user, pid, after, await store.logTail(user, pid))) out.push(e);
    return out;
  };
  /** Appends at the log's current end, as the one writer of the project that knows it. */
  const append = async (user: string, pid: string, e: sml.v1.IProjectLogEntry, msgId?: string) => store.append(user, pid, e, await store.logTail(user, pid), msgId);

  it("replays only this project's entries after a sequence, in order", async () => {
    const seqs: number[] = [];
    for (let i = 1; i <= 5; i++) {
      seqs.push((await append('u', 'p', entry(i))).seq);
      await append('u', 'other', entry(100 + i));
      await append('v', 'p', entry(200 + i));
    }
    expect(xs(await replayAll('u', 'p', 0))).toEqual([1, 2, 3, 4, 5]);
    expect(xs(await replayAll('u', 'p', seqs[2]))).toEqual([4, 5]);
    expect(await replayAll('u', 'p', seqs[4])).toEqual([]);
    expect(await replayAll('u', 'nothing', 0)).toEqual([]);
  });

  it('a snapshot trims the log before its sequence; replay continues after it', async () => {
    const a = await append('w', 'p', entry(1));
    const b = await append('w', 'p', entry(2));
    await store.snapshot('w', 'p', new Uint8Array([1, 2, 3]), a.seq);
    const snap = await store.loadSnapshot('w', 'p');
    expect(Number(snap!.logSeq)).toBe(a.seq);
    expect(xs(await replayAll('w', 'p', a.seq))).toEqual([2]);
    await store.snapshot('w', 'p', new Uint8Array([4]), b.seq);
    expect(await replayAll('w', 'p', b.seq)).toEqual([]);
    // The entry the snapshot ends at stays (the chain's anchor, ProjectLogEntry.prevSeq); the one before is gone.
    expect(await store.logTail('w', 'p')).toBe(b.seq);
    expect(xs(await replayAll('w', 'p', 0))).toEqual([2]);
  });

  it('a summary spanning several chunks is streamed in and read back in chunks, equal to the original', async () => {
    const summary = wide(300);
    const chunks = [...summary.serializeChunks()];
    expect(chunks.length).toBeGreaterThanOrEqual(4);
    await store.snapshot('c', 'p', chunks, 7, [{ stream: 's', partition: '0', lastOffset: 12 }]);
    const back = (await store.loadSnapshot('c', 'p'))!;
    expect(back.logSeq).toBe(7);
    expect(back.streamMarks.map((m) => [m.stream, Number(m.lastOffset)])).toEqual([['s', 12]]);
    // Read as the object store delivered it (128 KiB chunks), never joined.
    const received: Uint8Array[] = [];
    for (let c = back.summary.chunks.next(); c.done !== true; c = back.summary.chunks.next()) received.push(c.value);
    expect(received.length).toBeGreaterThan(chunks.length);
    expect(received.reduce((n, c) => n + c.length, 0)).toBe(back.summary.total);
    expect(sameBytes(Summary.deserialize(received).serialize(), summary.serialize())).toBe(true);
    // As the registry reads it: chunk by chunk from the snapshot.
    expect(sameBytes(Summary.deserialize((await store.loadSnapshot('c', 'p'))!.summary).serialize(), summary.serialize())).toBe(true);
  });

  it('a snapshot written before chunking (one ProjectSnapshot message) still reads', async () => {
    const summary = wide(20);
    const old = sml.v1.ProjectSnapshot.encode({ logSeq: 3, summary: summary.serialize(), streamMarks: [{ stream: 't', partition: '0', lastOffset: 5 }] }).finish();
    await nc.jetstream().views.os('sml_project_snapshots').then((os) => os.putBlob({ name: ProjectStore.key('o', 'p') }, old));
    const back = (await store.loadSnapshot('o', 'p'))!;
    expect([back.logSeq, Number(back.streamMarks[0].lastOffset)]).toEqual([3, 5]);
    expect(sameBytes(Summary.deserialize(back.summary).serialize(), summary.serialize())).toBe(true);
  });

  it('a log entry at the limit (max_payload less 4 KiB) is encoded and stored, with a message id; one byte more is refused 413 before it is sent', async () => {
    const limit = nc.info!.max_payload - 4 * 1024;
    const withJson = (n: number): sml.v1.IProjectLogEntry => ({ op: 'learn', frameJson: new Uint8Array(n).fill(0x20), prevSeq: 123_456 });
    const overhead = sml.v1.ProjectLogEntry.encode(withJson(limit)).finish().length - limit;
    const atLimit = store.encodeEntry(withJson(limit - overhead));
    expect(atLimit.length).toBe(limit);
    expect((await store.append('big', 'p', atLimit, await store.logTail('big', 'p'), 'x'.repeat(200))).seq).toBeGreaterThan(0);
    expect(() => store.encodeEntry(withJson(limit - overhead + 1))).toThrow(expect.objectContaining({ code: 'BATCH_TOO_LARGE' }));
  });

  it('a retried batch with the same message id is stored once', async () => {
    const first = await store.append('d', 'p', entry(1), 0, 'key-1');
    const again = await store.append('d', 'p', entry(1), 0, 'key-1');
    expect(again).toEqual({ seq: first.seq, duplicate: true });
    expect(xs(await replayAll('d', 'p', 0))).toEqual([1]);
    expect((await replayAll('d', 'p', 0))[0].msgId).toBe('key-1');
  });

  it('an append is stored only at the end of the log its writer knows: a stale end is refused (WRONG_LAST_SEQUENCE), nothing stored', async () => {
    const first = await store.append('f', 'p', entry(1), 0);
    expect(await store.logTail('f', 'p')).toBe(first.seq);
    // Another entry of another project moves the stream's sequence, not this project's end.
    await append('f', 'q', entry(9));
    const second = await store.append('f', 'p', entry(2), first.seq);
    // A writer still at `first` (it missed `second`, e.g. an append whose answer was lost) and one at 0 are refused.
    for (const stale of [first.seq, 0]) {
      const err = await store.append('f', 'p', entry(3), stale).then(() => undefined, (e: unknown) => e);
      expect(jsErrorCode(err)).toBe(JS_ERR.WRONG_LAST_SEQUENCE);
    }
    expect(xs(await replayAll('f', 'p', 0))).toEqual([1, 2]);
    expect(await store.logTail('f', 'p')).toBe(second.seq);
  });

  it('a replay whose messages end before the end it was given fails (retryably) instead of returning the batches so far', async () => {
    // nats.js ends a consumer's messages without an error in some recoveries (a NATS cluster
    // losing the stream's leader; a connection draining, which is how this test provokes it).
    let tail = 0;
    for (let i = 1; i <= 600; i++) tail = (await store.append('e', 'p', entry(i), tail)).seq;
    const own = await connect({ servers: nats.url });
    const seen: number[] = [];
    const read = (async () => {
      for await (const e of await ProjectStore.open(own).then((s) => s.replay('e', 'p', 0, tail))) {
        seen.push(e.seq);
        if (seen.length === 1) void own.drain();
      }
    })();
    const err = await read.then(() => undefined, (e: unknown) => e);
    expect(seen.length).toBeLessThan(600);
    expect(err).toMatchObject({ code: 'NATS_UNAVAILABLE', retryable: true });
    expect(String((err as Error).message)).toMatch(/the project log ended at \d+ while reading up to \d+/);
  });

  it('a snapshot whose put failed but left its metadata stored (its pieces purged) is written again: the project still loads', async () => {
    // What an object-store put does when the answer to its metadata is lost in a NATS leader
    // election: the metadata is stored after all, nats.js purges the new pieces and throws.
    const brokenOnce = Object.create(store) as ProjectStore;
    let failures = 1;
    brokenOnce.snapshot = async (...args: Parameters<ProjectStore['snapshot']>) => {
      await store.snapshot(...args);
      if (failures-- <= 0) return;
      const info = await (await nc.jetstream().views.os('sml_project_snapshots')).info(ProjectStore.key(args[0], args[1]));
      await (await nc.jetstreamManager()).streams.purge('OBJ_sml_project_snapshots', { filter: `$O.sml_project_snapshots.C.${info!.nuid}` });
      throw new Error('timeout: the answer to the metadata was lost');
    };
    const registry = new ProjectRegistry(brokenOnce, createLogger('test', 'silent'), { snapshotEveryBatches: 1000, snapshotEveryMs: 60_000, limits: { maxAttributes: 100, state: {}, bounds: {} }, maxProjectsPerCustomer: 10 });
    await store.createMeta({ user: 's', pid: 'p', persist: true });
    await store.append('s', 'p', entry(1), 0);
    const p = await registry.with('s', 'p', (q) => q);
    p.summary.learn({ attributeNames: ['x'], attributeTypes: ['C'], data: [['2']] });
    p.logged(0);
    await registry.save(p);
    expect({ loaded: registry.isLoaded('s', 'p'), dirty: p.isDirty }).toEqual({ loaded: true, dirty: false });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('the snapshot cannot be read')), 5000)));
    const snapshot = await Promise.race([store.loadSnapshot('s', 'p'), timeout]).finally(() => clearTimeout(timer));
    expect(Summary.deserialize(snapshot!.summary).rowCount).toBe(2);
  });

  it('a load whose snapshot read is not the latest (here: none) fails retryably instead of loading the project without its first batches', async () => {
    const registry = () => new ProjectRegistry(store, createLogger('test', 'silent'), { snapshotEveryBatches: 1000, snapshotEveryMs: 60_000, limits: { maxAttributes: 100, state: {}, bounds: {} }, maxProjectsPerCustomer: 10 });
    await store.createMeta({ user: 'g', pid: 'p', persist: true });
    // Three batches chained as Learning appends them: each names the one before (prevSeq).
    let prev = 0;
    for (const x of [1, 2, 3]) prev = (await store.append('g', 'p', { ...entry(x), prevSeq: prev }, prev)).seq;
    const first = await registry().with('g', 'p', (q) => q);
    expect(first.summary.rowCount).toBe(3);
    // A snapshot as of the second batch trims the first; the second stays as the chain's anchor.
    const seqs = (await replayAll('g', 'p', 0)).map((e) => e.seq);
    const twoBatches = new Summary();
    twoBatches.learn({ attributeNames: ['x'], attributeTypes: ['C'], data: [['1'], ['2']] });
    await store.snapshot('g', 'p', twoBatches.serialize(), seqs[1]);
    expect((await registry().with('g', 'p', (q) => q)).summary.rowCount).toBe(3);
    // A read that does not see that snapshot (a stream leader catching up after an election, here
    // simulated by deleting it) would load batches 2 and 3 alone: the chain says batch 2 follows batch 1.
    await store.deleteSnapshot('g', 'p');
    const err = await registry().with('g', 'p', (q) => q).then(() => undefined, (e: unknown) => e);
    expect(err).toMatchObject({ code: 'NATS_UNAVAILABLE', retryable: true });
    expect((err as Error).message).toMatch(new RegExp(`the log entry ${seqs[1]} of project p follows ${seqs[0]}, not 0 as read`));
  });

  it('a loaded project knows the end of its log and the Idempotency-Keys of the batches it replayed', async () => {
    const registry = new ProjectRegistry(store, createLogger('test', 'silent'), { snapshotEveryBatches: 1000, snapshotEveryMs: 60_000, limits: { maxAttributes: 100, state: {}, bounds: {} }, maxProjectsPerCustomer: 10 });
    await store.createMeta({ user: 'r', pid: 'p', persist: true });
    const keyed = idempotencyRecord('r', 'p', 'key-1', entry(1));
    await store.append('r', 'p', entry(1), 0, messageId(keyed));
    const last = await store.append('r', 'p', entry(2), await store.logTail('r', 'p'), 'not-a-record-id');
    const p = await registry.with('r', 'p', (q) => q);
    expect({ tail: p.logTail, seq: p.logSeq, keys: [...p.replayedKeys] }).toEqual({ tail: last.seq, seq: last.seq, keys: [[keyed.name, keyed.fingerprint]] });
    // After a snapshot the log keeps the entry it ends at.
    await registry.save(p);
    expect({ tail: p.logTail, stored: await store.logTail('r', 'p') }).toEqual({ tail: last.seq, stored: last.seq });
  });
});

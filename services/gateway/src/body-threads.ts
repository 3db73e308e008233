import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { contentMd5, restSignatures } from '@sml/core';
import { summarizeBatch } from '@sml/stats/batch';
import { readFrameColumns, type FrameColumnsData } from '@sml/stats/frames';
import type { FrameRead } from './route';

/** A REST request's signed parts and body: what its Content-MD5 and signature are computed from. */
export interface DigestTask {
  body: Uint8Array;
  /** The Content-MD5 header: the string to sign carries it, so the HMAC is computed with it. */
  claimedMd5: string;
  secret: string;
  method: string;
  symDate: string;
  customerId: string;
  query?: string;
  /** Each form of the resource the client may have signed (path, full URL). */
  resources: string[];
  /**
   * A learn frame: once the body proves signed by `authorization` (and only then), read it
   * too, as readFrameHere with `frame.recipe`, in the same trip to the thread.
   */
  frame?: { authorization: string; recipe?: string };
}

export interface Digests {
  /** Base64 MD5 of the body ('' for none). */
  md5: string;
  /** The expected signature for each resource form; empty when `md5` is not the claimed one (the request fails on that first). */
  signatures: string[];
}

/** The body's MD5, then (only when it is the one claimed) the signature of each resource form. */
export function bodyDigests(task: DigestTask): Digests {
  const md5 = contentMd5(task.body.length > 0 ? task.body : undefined);
  if (md5 !== task.claimedMd5) return { md5, signatures: [] };
  const { body, method, symDate, customerId, query, secret } = task;
  return { md5, signatures: restSignatures({ method, contentMd5: md5, secret, symDate, customerId, body, query }, task.resources) };
}

/** What a thread is sent: hash a body (and maybe read it), or read a learn frame's columns. */
export type BodyTask = { id: number; digest: DigestTask } | { id: number; frame: Uint8Array; recipe?: string };

/** What a thread was asked to do with a body: hash it, hash it and read it as a frame (if signed), read it. */
export type BodyTaskKind = 'digest' | 'digest_frame' | 'frame';

/** A frame read on a thread (FrameRead without the body, which travels on its own). */
export type FrameOnly = Omit<FrameRead, 'body'>;

/** What a thread answers; the body always comes back. */
export type BodyReply = { id: number; body: Uint8Array } & ({ digests: Digests; frame?: FrameOnly } | FrameOnly | { error: string });

interface Thread {
  worker: Worker;
  pending: Map<number, { resolve: (r: BodyReply) => void; reject: (err: Error) => void }>;
}

/**
 * Threads for the gateway's passes over large request bodies (SML_GATEWAY_BODY_THREADS): the
 * Content-MD5 and HMAC-SHA256 the protocol computes over every body (≈ 2.5 ms a MB), and the
 * reading of a learn or predict frame into columns (≈ 1.4 ms a MB). On the event loop every
 * customer's requests share, each of these held the others (a 100 MB learn held another
 * customer's reads ≈ 1.1 s; on threads ≈ 0.4 s, bench/body-stall.mjs); on threads, two large
 * bodies are hashed and read at once while the event loop receives, forwards and answers.
 * A body travels to its thread and back by transfer (no copy): the caller's view of it is then
 * detached and the body answered replaces it. A body that does not own its memory (pooled
 * small Buffers), or is small (SML_GATEWAY_BODY_THREAD_MIN_BYTES), is handled here.
 */
export class BodyThreads {
  private readonly threads: (Thread | undefined)[];
  private readonly minBytes: number;
  private readonly script: string;
  private readonly onTask: (kind: BodyTaskKind) => void;
  private nextId = 1;

  constructor(opts: { threads: number; minBytes: number; script?: string; onTask?: (kind: BodyTaskKind) => void }) {
    this.threads = Array.from({ length: opts.threads }, () => undefined);
    this.minBytes = opts.minBytes;
    this.script = opts.script ?? join(__dirname, 'body-worker.js');
    this.onTask = opts.onTask ?? (() => undefined);
  }

  /**
   * The body's digests (bodyDigests), and the body; for a task with `frame`, its frame read
   * too when it was hashed on a thread and proved signed (else the route reads it later).
   */
  async digest(task: DigestTask): Promise<Digests & { body: Buffer; frame?: FrameOnly }> {
    if (!this.offloads(task.body)) return { ...bodyDigests(task), body: asBuffer(task.body) };
    this.onTask(task.frame ? 'digest_frame' : 'digest');
    const reply = await this.call((id) => ({ id, digest: task }), task.body);
    if (!('digests' in reply)) throw new Error(`body thread: ${'error' in reply ? reply.error : 'no digests'}`);
    return { ...reply.digests, body: asBuffer(reply.body), ...(reply.frame ? { frame: reply.frame } : {}) };
  }

  /**
   * readFrameHere on a thread: the frame's columns (or, with a recipe, its summary), and the
   * body. Null columns when the fast reader does not take the frame, or fails on it: the
   * caller then reads the JSON, which reports what is wrong.
   */
  async readFrame(body: Buffer, recipe?: string): Promise<FrameRead> {
    if (!this.offloads(body)) return readFrameHere(body, recipe);
    this.onTask('frame');
    const reply = await this.call((id) => ({ id, frame: body, ...(recipe !== undefined ? { recipe } : {}) }), body);
    if (!('columns' in reply)) return { columns: null, body: asBuffer(reply.body) };
    return { columns: reply.columns, ...(reply.batchSummary ? { batchSummary: reply.batchSummary } : {}), body: asBuffer(reply.body) };
  }

  async stop(): Promise<void> {
    const running = this.threads.filter((t): t is Thread => t !== undefined);
    this.threads.fill(undefined);
    for (const t of running) for (const waiting of t.pending.values()) waiting.reject(new Error('the gateway is stopping'));
    await Promise.all(running.map((t) => t.worker.terminate()));
  }

  private offloads(body: Uint8Array): boolean {
    return this.threads.length > 0 && body.length >= this.minBytes && ownsMemory(body);
  }

  private async call(task: (id: number) => BodyTask, body: Uint8Array): Promise<BodyReply> {
    const thread = this.leastBusy();
    const id = this.nextId++;
    const reply = await new Promise<BodyReply>((resolve, reject) => {
      thread.pending.set(id, { resolve, reject });
      thread.worker.postMessage(task(id), [body.buffer as ArrayBuffer]);
    });
    return reply;
  }

  private leastBusy(): Thread {
    let best = 0;
    for (let i = 0; i < this.threads.length; i++) {
      const t = this.threads[i];
      if (t === undefined) return this.start(i);
      if (t.pending.size < this.threads[best]!.pending.size) best = i;
    }
    return this.threads[best]!;
  }

  private start(slot: number): Thread {
    const worker = new Worker(this.script);
    worker.unref();
    const thread: Thread = { worker, pending: new Map() };
    worker.on('message', (reply: BodyReply) => {
      const waiting = thread.pending.get(reply.id);
      thread.pending.delete(reply.id);
      waiting?.resolve(reply);
    });
    // A thread that dies fails what it held (those bodies went with it) and is started again on demand.
    const fail = (err: Error) => {
      if (this.threads[slot] === thread) this.threads[slot] = undefined;
      for (const waiting of thread.pending.values()) waiting.reject(err);
      thread.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`body thread exited (${code})`)));
    this.threads[slot] = thread;
    return thread;
  }
}

/**
 * A frame read where this runs: its columns, or with a `recipe` its own summary instead when
 * summarizeBatch finds it worth sending (then columns is null).
 */
export function readFrameHere(body: Buffer, recipe?: string): FrameRead {
  const columns = readFrameColumnsOrNull(body);
  const batchSummary = columns !== null && recipe !== undefined ? summarizeBatch(recipe, columns) : null;
  return batchSummary !== null ? { columns: null, batchSummary, body } : { columns, body };
}

/** readFrameColumns, or null when it throws (on a frame it was not written for). */
export function readFrameColumnsOrNull(body: Uint8Array): FrameColumnsData | null {
  try {
    return readFrameColumns(body);
  } catch {
    return null;
  }
}

/** Whether the view covers its whole ArrayBuffer, so that transferring it moves nothing else (pooled small Buffers share theirs). */
function ownsMemory(bytes: Uint8Array): boolean {
  return bytes.buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

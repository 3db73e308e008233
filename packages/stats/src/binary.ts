import { SummaryError } from './errors';

/** Float64 arrays are copied as raw bytes only when the platform is little-endian (the wire order). */
const LITTLE_ENDIAN = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Little-endian binary writer for the summary's serialization format. With `chunkBytes` the
 * output is a sequence of chunks of at most that size: a large summary (≈ 200 MB at 2000
 * attributes) is then never one buffer, so a snapshot can be streamed as it is. An array of
 * doubles longer than a chunk is not copied when written: its chunks are copied from it only
 * as `chunks()` is iterated, so it must not change until then.
 */
export class ByteWriter {
  private buffer: Uint8Array;
  private view: DataView;
  private length = 0;
  /** Chunked mode: the chunks so far (a large array of doubles kept as itself) and the bytes they hold. */
  private readonly full: Array<Uint8Array | Float64Array> = [];
  private flushed = 0;

  /** `capacity`: the bytes expected, when known (a large state is then never copied to grow). */
  constructor(capacity = 1024, private readonly chunkBytes = 0) {
    this.buffer = new Uint8Array(chunkBytes > 0 ? chunkBytes : capacity);
    this.view = new DataView(this.buffer.buffer);
  }

  /** Bytes written so far. */
  get size(): number {
    return this.flushed + this.length;
  }

  private reserve(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    if (this.chunkBytes > 0) {
      this.flush();
      if (bytes <= this.buffer.length) return;
    }
    const next = new Uint8Array(Math.max(this.length + bytes, 2 * this.buffer.length));
    next.set(this.buffer.subarray(0, this.length));
    this.buffer = next;
    this.view = new DataView(next.buffer);
  }

  /** Chunked mode: closes the current chunk (if it holds anything) and starts a new one. */
  private flush(): void {
    if (this.length === 0) return;
    this.full.push(this.length === this.buffer.length ? this.buffer : this.buffer.slice(0, this.length));
    this.flushed += this.length;
    this.buffer = new Uint8Array(this.chunkBytes);
    this.view = new DataView(this.buffer.buffer);
    this.length = 0;
  }

  /** Raw bytes; in chunked mode split across chunks rather than growing one. */
  private put(bytes: Uint8Array): void {
    if (this.chunkBytes === 0) {
      this.reserve(bytes.length);
      this.buffer.set(bytes, this.length);
      this.length += bytes.length;
      return;
    }
    let at = 0;
    while (at < bytes.length) {
      if (this.length === this.buffer.length) this.flush();
      const n = Math.min(bytes.length - at, this.buffer.length - this.length);
      this.buffer.set(bytes.subarray(at, at + n), this.length);
      this.length += n;
      at += n;
    }
  }

  u8(v: number): void {
    this.reserve(1);
    this.view.setUint8(this.length, v);
    this.length += 1;
  }

  u32(v: number): void {
    this.reserve(4);
    this.view.setUint32(this.length, v, true);
    this.length += 4;
  }

  i32(v: number): void {
    this.reserve(4);
    this.view.setInt32(this.length, v, true);
    this.length += 4;
  }

  f64(v: number): void {
    this.reserve(8);
    this.view.setFloat64(this.length, v, true);
    this.length += 8;
  }

  /** A length-prefixed array of doubles, 8-byte aligned (in the whole output) so large arrays copy as bytes. */
  f64s(values: Float64Array): void {
    this.u32(values.length);
    if (this.chunkBytes === 0) this.reserve(7 + 8 * values.length);
    while (this.size % 8 !== 0) this.u8(0);
    if (LITTLE_ENDIAN && this.chunkBytes > 0 && values.byteLength > this.chunkBytes) {
      // Deferred: chunks() copies it a chunk at a time (the co-moments, ≈ 200 MB at 2000 attributes).
      this.flush();
      this.full.push(values);
      this.flushed += values.byteLength;
    } else if (LITTLE_ENDIAN) {
      this.put(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
    } else {
      for (const v of values) this.f64(v);
    }
  }

  string(s: string): void {
    const bytes = encoder.encode(s);
    this.u32(bytes.length);
    this.put(bytes);
  }

  /** Everything written, as one buffer. */
  bytes(): Uint8Array {
    if (this.full.length > 0) return concatenate([...this.chunks()]);
    return this.length === this.buffer.length ? this.buffer : this.buffer.slice(0, this.length);
  }

  /**
   * Everything written, as chunks of at most `chunkBytes` (one chunk unless constructed with
   * it), made as they are iterated: a deferred array is copied one chunk at a time.
   */
  *chunks(): Generator<Uint8Array> {
    for (const part of this.full) {
      if (part instanceof Uint8Array) {
        yield part;
        continue;
      }
      const bytes = new Uint8Array(part.buffer, part.byteOffset, part.byteLength);
      for (let at = 0; at < bytes.length; at += this.chunkBytes) yield bytes.slice(at, Math.min(bytes.length, at + this.chunkBytes));
    }
    if (this.length > 0 || this.full.length === 0) yield this.length === this.buffer.length ? this.buffer : this.buffer.slice(0, this.length);
  }
}

function concatenate(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/**
 * Serialized bytes as chunks taken one at a time, and how many bytes they hold in all (so a
 * length read from them is checked before anything is allocated): a reader that drops each
 * chunk once it has read it lets a large summary's chunks be freed while it is read.
 */
export interface SerializedChunks {
  readonly total: number;
  readonly chunks: Iterator<Uint8Array>;
}

/**
 * Reads what ByteWriter wrote, from one buffer or from chunks of any sizes (a snapshot read
 * from the object store as it arrived), taking each chunk only when it gets to it; any
 * overrun means the bytes are damaged. A value that spans two chunks is gathered into a
 * small scratch buffer; arrays of doubles are copied chunk by chunk into their destination.
 */
export class ByteReader {
  private readonly chunks: Iterator<Uint8Array>;
  /** The current chunk, its view, and the read position in it. */
  private chunk: Uint8Array;
  private view: DataView;
  private offset = 0;
  /** Bytes of the chunks before the current one. */
  private before = 0;
  private readonly total: number;
  private read: DataView;
  private readonly scratch = new Uint8Array(8);
  private readonly scratchView = new DataView(this.scratch.buffer);

  constructor(input: Uint8Array | readonly Uint8Array[] | SerializedChunks) {
    const list = input instanceof Uint8Array ? [input] : Array.isArray(input) ? input as readonly Uint8Array[] : null;
    const source = list ? { total: list.reduce((n, c) => n + c.length, 0), chunks: list[Symbol.iterator]() } : input as SerializedChunks;
    this.chunks = source.chunks;
    this.total = source.total;
    this.chunk = new Uint8Array(0);
    this.view = new DataView(this.chunk.buffer);
    this.read = this.view;
  }

  /** Bytes read so far. */
  private get position(): number {
    return this.before + this.offset;
  }

  private damaged(): SummaryError {
    return new SummaryError('damaged', 'damaged summary serialization: unexpected end of data');
  }

  private nextChunk(): void {
    const next = this.chunks.next();
    if (next.done === true) throw this.damaged();
    this.before += this.chunk.length;
    this.chunk = next.value;
    this.view = new DataView(this.chunk.buffer, this.chunk.byteOffset, this.chunk.byteLength);
    this.offset = 0;
  }

  /**
   * The offset in `this.read` of the next `bytes` bytes (at most 8): the current chunk's
   * view, or the scratch view when they span chunks.
   */
  private take(bytes: number): number {
    if (this.position + bytes > this.total) throw this.damaged();
    while (this.offset === this.chunk.length) this.nextChunk();
    if (this.offset + bytes <= this.chunk.length) {
      this.read = this.view;
      const at = this.offset;
      this.offset += bytes;
      return at;
    }
    this.copyInto(this.scratch.subarray(0, bytes));
    this.read = this.scratchView;
    return 0;
  }

  /** Fills `out` with the next bytes, across chunks. */
  private copyInto(out: Uint8Array): void {
    if (this.position + out.length > this.total) throw this.damaged();
    let at = 0;
    while (at < out.length) {
      if (this.offset === this.chunk.length) this.nextChunk();
      const n = Math.min(out.length - at, this.chunk.length - this.offset);
      out.set(this.chunk.subarray(this.offset, this.offset + n), at);
      this.offset += n;
      at += n;
    }
  }

  u8(): number {
    const at = this.take(1);
    return this.read.getUint8(at);
  }

  u32(): number {
    const at = this.take(4);
    return this.read.getUint32(at, true);
  }

  i32(): number {
    const at = this.take(4);
    return this.read.getInt32(at, true);
  }

  f64(): number {
    const at = this.take(8);
    return this.read.getFloat64(at, true);
  }

  f64s(): Float64Array {
    const n = this.u32();
    this.align();
    if (this.position + 8 * n > this.total) throw this.damaged();
    const out = new Float64Array(n);
    this.readDoubles(out);
    return out;
  }

  /**
   * An array written by f64s, read straight into `target` (which must be long enough, else
   * the bytes are damaged): no intermediate copy of a large array. Returns its length.
   */
  f64sInto(target: Float64Array): number {
    const n = this.u32();
    if (n > target.length) throw new SummaryError('damaged', 'damaged summary serialization: statistics size');
    this.align();
    if (this.position + 8 * n > this.total) throw this.damaged();
    this.readDoubles(target.subarray(0, n));
    return n;
  }

  private align(): void {
    while (this.position % 8 !== 0) this.take(1);
  }

  private readDoubles(out: Float64Array): void {
    // Copy the bytes into the aligned destination (the input may be a view into a larger
    // buffer, e.g. a Node Buffer from the pool, whose slice() does not copy).
    if (LITTLE_ENDIAN) {
      this.copyInto(new Uint8Array(out.buffer, out.byteOffset, out.byteLength));
      return;
    }
    for (let i = 0; i < out.length; i++) out[i] = this.f64();
  }

  string(): string {
    const n = this.u32();
    if (this.position + n > this.total) throw this.damaged();
    if (this.offset === this.chunk.length && n > 0) this.nextChunk();
    if (this.offset + n <= this.chunk.length) {
      const at = this.offset;
      this.offset += n;
      return decoder.decode(this.chunk.subarray(at, at + n));
    }
    const out = new Uint8Array(n);
    this.copyInto(out);
    return decoder.decode(out);
  }

  get done(): boolean {
    return this.position === this.total;
  }
}

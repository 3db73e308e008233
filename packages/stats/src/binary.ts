import { SummaryError } from './errors';

/** Float64 arrays are copied as raw bytes only when the platform is little-endian (the wire order). */
const LITTLE_ENDIAN = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Little-endian binary writer for the summary's serialization format. */
export class ByteWriter {
  private buffer: Uint8Array;
  private view: DataView;
  private length = 0;

  /** `capacity`: the bytes expected, when known (a large state is then never copied to grow). */
  constructor(capacity = 1024) {
    this.buffer = new Uint8Array(capacity);
    this.view = new DataView(this.buffer.buffer);
  }

  private reserve(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const next = new Uint8Array(Math.max(this.length + bytes, 2 * this.buffer.length));
    next.set(this.buffer.subarray(0, this.length));
    this.buffer = next;
    this.view = new DataView(next.buffer);
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

  /** A length-prefixed array of doubles, 8-byte aligned so large arrays copy as bytes. */
  f64s(values: Float64Array): void {
    this.u32(values.length);
    this.reserve(7 + 8 * values.length);
    while (this.length % 8 !== 0) this.u8(0);
    if (LITTLE_ENDIAN) {
      this.buffer.set(new Uint8Array(values.buffer, values.byteOffset, values.byteLength), this.length);
      this.length += values.byteLength;
    } else {
      for (const v of values) this.f64(v);
    }
  }

  string(s: string): void {
    const bytes = encoder.encode(s);
    this.u32(bytes.length);
    this.reserve(bytes.length);
    this.buffer.set(bytes, this.length);
    this.length += bytes.length;
  }

  bytes(): Uint8Array {
    return this.length === this.buffer.length ? this.buffer : this.buffer.slice(0, this.length);
  }
}

/** Reads what ByteWriter wrote; any overrun means the bytes are damaged. */
export class ByteReader {
  private readonly view: DataView;
  private offset = 0;

  constructor(private readonly buffer: Uint8Array) {
    this.view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  }

  private take(bytes: number): number {
    if (this.offset + bytes > this.buffer.length) throw new SummaryError('damaged summary serialization: unexpected end of data');
    const at = this.offset;
    this.offset += bytes;
    return at;
  }

  u8(): number {
    return this.view.getUint8(this.take(1));
  }

  u32(): number {
    return this.view.getUint32(this.take(4), true);
  }

  i32(): number {
    return this.view.getInt32(this.take(4), true);
  }

  f64(): number {
    return this.view.getFloat64(this.take(8), true);
  }

  f64s(): Float64Array {
    const n = this.u32();
    while (this.offset % 8 !== 0) this.take(1);
    const at = this.take(8 * n);
    const out = new Float64Array(n);
    // Copy the bytes into the fresh, aligned array (the input may be a view into a larger
    // buffer, e.g. a Node Buffer from the pool, whose slice() does not copy).
    if (LITTLE_ENDIAN) {
      new Uint8Array(out.buffer).set(this.buffer.subarray(at, at + 8 * n));
      return out;
    }
    for (let i = 0; i < n; i++) out[i] = this.view.getFloat64(at + 8 * i, true);
    return out;
  }

  string(): string {
    const n = this.u32();
    const at = this.take(n);
    return decoder.decode(this.buffer.subarray(at, at + n));
  }

  get done(): boolean {
    return this.offset === this.buffer.length;
  }
}

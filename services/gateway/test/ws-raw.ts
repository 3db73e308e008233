import { randomBytes } from 'node:crypto';
import net from 'node:net';

/** A frame the server sent (unmasked, RFC 6455 §5.2). */
export interface ServerFrame {
  fin: boolean;
  opcode: number;
  payload: Buffer;
}

export interface FrameOptions {
  fin?: boolean;
  /** The masking key (zeros by default for a bare header); null: an unmasked frame, which a server must refuse. */
  mask?: Buffer | null;
  /** RSV1-3 (0-7): no extension is negotiated, so any is a protocol error. */
  rsv?: number;
}

/** The header of a client frame (masked, as a client must) announcing `length` payload bytes (up to 2⁶⁴ − 1). */
export function frameHeader(opcode: number, length: number | bigint, opts: FrameOptions = {}): Buffer {
  const first = ((opts.fin ?? true) ? 0x80 : 0) | ((opts.rsv ?? 0) << 4) | (opcode & 0x0f);
  const mask = opts.mask === null ? Buffer.alloc(0) : opts.mask ?? Buffer.alloc(4);
  const maskBit = opts.mask === null ? 0 : 0x80;
  if (length < 126) return Buffer.concat([Buffer.from([first, maskBit | Number(length)]), mask]);
  if (length < 65536) {
    const h = Buffer.alloc(4);
    h[0] = first;
    h[1] = maskBit | 126;
    h.writeUInt16BE(Number(length), 2);
    return Buffer.concat([h, mask]);
  }
  const h = Buffer.alloc(10);
  h[0] = first;
  h[1] = maskBit | 127;
  h.writeBigUInt64BE(BigInt(length), 2);
  return Buffer.concat([h, mask]);
}

/** A whole client frame: header and payload masked with a random key (or the one given, or unmasked). */
export function clientFrame(opcode: number, payload: Buffer | string, opts: FrameOptions = {}): Buffer {
  const data = Buffer.from(payload);
  if (opts.mask === null) return Buffer.concat([frameHeader(opcode, data.length, opts), data]);
  const mask = opts.mask ?? randomBytes(4);
  const masked = Buffer.alloc(data.length);
  for (let i = 0; i < data.length; i++) masked[i] = data[i] ^ mask[i & 3];
  return Buffer.concat([frameHeader(opcode, data.length, { ...opts, mask }), masked]);
}

/**
 * A WebSocket connection spoken byte by byte over a plain socket, so that a test can send what
 * no WebSocket library sends: a header announcing 220 MiB and then nothing, frames cut
 * anywhere, reserved bits and opcodes, control frames in the middle of a message.
 */
export class RawWs {
  private buffered = Buffer.alloc(0);
  private readonly frames: ServerFrame[] = [];
  private waiting: Array<() => void> = [];
  /** The close frame's code (1005 when it had none), or 1006 when the socket ended without one. */
  closed?: { code: number; reason: string };
  /** Set when the socket ended or failed (a write after the server closed, a reset). */
  ended = false;

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (d: Buffer) => this.receive(d));
    const end = () => {
      this.ended = true;
      this.closed ??= { code: 1006, reason: '' };
      this.wake();
    };
    socket.on('close', end);
    socket.on('error', end);
  }

  /** Connects and upgrades `path` (a WebSocket path of the gateway); rejects with the HTTP answer when it is not 101. */
  static open(url: string, path: string): Promise<RawWs> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(port), hostname);
      let head = Buffer.alloc(0);
      const onData = (d: Buffer) => {
        head = Buffer.concat([head, d]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        socket.off('data', onData);
        socket.off('error', reject);
        const status = head.subarray(0, end).toString('latin1');
        if (!status.startsWith('HTTP/1.1 101')) {
          socket.destroy();
          reject(new Error(status.split('\r\n')[0]));
          return;
        }
        const ws = new RawWs(socket);
        if (head.length > end + 4) ws.receive(head.subarray(end + 4));
        resolve(ws);
      };
      socket.on('data', onData);
      socket.on('error', reject);
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`
        + `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
    });
  }

  /** Writes bytes; false once the socket is gone (the server closed it). */
  write(bytes: Buffer): boolean {
    if (this.ended || this.socket.destroyed) return false;
    this.socket.write(bytes);
    return true;
  }

  /** Writes and waits until the bytes are handed to the kernel (or the socket is gone): the sender's backpressure. */
  async writeAndDrain(bytes: Buffer): Promise<boolean> {
    if (!this.write(bytes)) return false;
    if (!this.socket.writableNeedDrain) return true;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.once('drain', done);
      this.socket.once('close', done);
    });
    return !this.ended;
  }

  /** Sends a text message as one frame. */
  sendText(text: string): void {
    this.write(clientFrame(0x1, text));
  }

  /** The next data frame's text (control frames are skipped; a close frame is noted), or undefined once the connection closed. */
  async nextText(timeoutMs = 15_000): Promise<string | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const f = this.frames.shift();
      if (f) {
        if (f.opcode === 0x1 || f.opcode === 0x2) return f.payload.toString('utf8');
        continue;
      }
      if (this.closed) return undefined;
      if (Date.now() > deadline) throw new Error('no message from the server in time');
      await this.change(deadline - Date.now());
    }
  }

  /** Waits until the server closed the connection (close frame or end of socket); answers the close code. */
  async whenClosed(timeoutMs = 15_000): Promise<{ code: number; reason: string }> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed) {
      if (Date.now() > deadline) throw new Error('the server did not close the connection in time');
      await this.change(deadline - Date.now());
    }
    return this.closed;
  }

  destroy(): void {
    this.socket.destroy();
  }

  private change(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, Math.max(1, ms));
      this.waiting.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private wake(): void {
    const w = this.waiting;
    this.waiting = [];
    for (const f of w) f();
  }

  private receive(d: Buffer): void {
    this.buffered = Buffer.concat([this.buffered, d]);
    for (;;) {
      const b = this.buffered;
      if (b.length < 2) break;
      let length = b[1] & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (b.length < 4) break;
        length = b.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (b.length < 10) break;
        length = Number(b.readBigUInt64BE(2));
        offset = 10;
      }
      if (b.length < offset + length) break;
      const frame = { fin: (b[0] & 0x80) !== 0, opcode: b[0] & 0x0f, payload: b.subarray(offset, offset + length) };
      this.buffered = b.subarray(offset + length);
      if (frame.opcode === 0x8) {
        this.closed ??= { code: frame.payload.length >= 2 ? frame.payload.readUInt16BE(0) : 1005, reason: frame.payload.subarray(2).toString('utf8') };
      }
      this.frames.push(frame);
    }
    this.wake();
  }
}

import * as wsModule from 'ws';
import type { WebSocket } from 'ws';

/** Read the frame (undefined), or close the connection with this code and reason (≤ 123 bytes) before its payload is read. */
export type FrameVerdict = { code: number; reason: string } | undefined;

/**
 * What `decide` is told of a data frame as soon as its header is read: its payload length
 * (the frame's, not the message's: a fragmented message sends several).
 */
export type FrameGate = (payloadLength: number) => FrameVerdict | Promise<FrameVerdict>;

/** The parts of ws's Receiver (ws/lib/receiver.js, 8.x) the gate works with. */
interface ReceiverInternals {
  _opcode: number;
  _payloadLength: number;
  _state: number;
  _errored: boolean;
  haveLength: (this: ReceiverInternals, cb: (err?: Error) => void) => void;
  startLoop: (this: ReceiverInternals, cb: (err?: Error) => void) => void;
  createError: (this: ReceiverInternals, ctor: ErrorConstructor, message: string, prefix: boolean, statusCode: number, errorCode: string) => Error;
}

/** The Receiver state in which its parsing loop stops and holds its write callback (ws/lib/receiver.js DEFER_EVENT). */
const DEFER_EVENT = 6;

const METHODS = ['haveLength', 'startLoop', 'createError'] as const;
const MISSING = 'ws: its Receiver lacks the internals the gateway gates frames with (ws 8.x: haveLength, startLoop, createError)';

/** Throws unless ws's Receiver has what gateFrames wraps: called at the gateway's start, so that an upgrade of ws that changes them stops it. */
export function assertFrameGateSupported(): void {
  const proto = (wsModule as unknown as { Receiver?: { prototype: Partial<ReceiverInternals> } }).Receiver?.prototype;
  if (!proto || METHODS.some((m) => typeof proto[m] !== 'function')) throw new Error(MISSING);
}

function receiverOf(ws: WebSocket): ReceiverInternals {
  const receiver = (ws as unknown as { _receiver?: ReceiverInternals })._receiver;
  if (!receiver || METHODS.some((m) => typeof receiver[m] !== 'function') || typeof receiver._payloadLength !== 'number') throw new Error(MISSING);
  return receiver;
}

/**
 * Calls `decide` on every data frame of a connection once the frame's header (its length) has
 * been read and before any byte of its payload is buffered: ws buffers a whole message
 * before it emits it, so a limit or a reservation made when the message arrives comes after
 * the memory is taken (five unauthenticated 220 MiB frames took the gateway from 122 MB to
 * 1.6 GB). ws offers no hook there; its Receiver parses the header in `haveLength`, which is
 * wrapped on this connection's own Receiver. A verdict that is a promise stops the parsing
 * where ws itself stops to emit an event later (state DEFER_EVENT, the write callback held):
 * the socket then stops being read (TCP backpressure) until the promise settles, and
 * parsing resumes as ws resumes it. A refusal closes the connection with its code and
 * reason and errors the Receiver, which stops reading the socket, as ws does for a frame
 * over its maxPayload. Control frames (≤ 125 bytes) are not gated. ws's internals are
 * checked when the gateway starts (assertFrameGateSupported) and on each connection (which
 * throws without them), so that an upgrade of ws that changes them cannot drop the bound
 * unsaid; ws is pinned to 8.x by the gateway's package.json.
 */
export function gateFrames(ws: WebSocket, decide: FrameGate): void {
  const receiver = receiverOf(ws);
  const haveLength = receiver.haveLength;
  receiver.haveLength = function gatedHaveLength(this: ReceiverInternals, cb: (err?: Error) => void): void {
    if (this._opcode >= 0x08 || this._payloadLength === 0) return haveLength.call(this, cb);
    const apply = (verdict: FrameVerdict): boolean => {
      if (verdict === undefined) {
        haveLength.call(this, cb);
        return !this._errored;
      }
      ws.close(verdict.code, verdict.reason);
      cb(this.createError(RangeError, verdict.reason, false, verdict.code, 'SML_WS_FRAME_REFUSED'));
      return false;
    };
    const verdict = decide(this._payloadLength);
    if (!(verdict instanceof Promise)) {
      apply(verdict);
      return;
    }
    this._state = DEFER_EVENT;
    void verdict
      .catch((): FrameVerdict => ({ code: 1011, reason: 'internal error' }))
      .then((v) => {
        if (apply(v)) this.startLoop(cb);
      });
  };
}

import { assertFrameGateSupported } from '../src/ws-frames';

// ws-frames.ts wraps internals of ws's Receiver (no public hook sees a frame's length before its
// payload is buffered): the installed ws must have them, or the gateway refuses to start.
describe('the frame gate', () => {
  it("finds what it wraps in the installed ws's Receiver", () => {
    expect(() => assertFrameGateSupported()).not.toThrow();
  });
});

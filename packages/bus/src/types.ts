import type { Writer } from 'protobufjs';
import type { Logger } from '@sml/core';
import type { sml } from '@sml/proto';

/** What protobufjs' static module generates for each message: enough to put it on the wire. */
export interface MessageType<T> {
  encode(message: T): Writer;
  decode(bytes: Uint8Array): T;
  toObject(message: T, options?: Record<string, unknown>): Record<string, unknown>;
}

/** Every request message carries the caller; every reply message carries a status. */
export interface WithCaller { caller?: sml.v1.ICaller | null }
export interface WithStatus { status?: sml.v1.IStatus | null }

/** What a handler sees besides its decoded request. */
export interface HandlerContext {
  caller: sml.v1.ICaller;
  requestId: string;
  log: Logger;
}

import type { Response } from 'express';
import { SmlError, toJson } from '@sml/core';
import type { MessageType } from '@sml/bus';

/** protobufjs toObject options that give the REST JSON shape (API.md §1). */
export const TO_OBJECT = { longs: Number, enums: String, defaults: true, arrays: true, objects: true } as const;

/** The REST `values` of a reply: every field but `status`, unset sub-messages left out. */
export function replyValues<T>(type: MessageType<T>, reply: T): Record<string, unknown> {
  const obj = type.toObject(reply, TO_OBJECT);
  delete obj.status;
  for (const [k, v] of Object.entries(obj)) {
    if (v === null) delete obj[k];
    else obj[k] = unwrapEntries(v);
  }
  return obj;
}

/**
 * `{entries: X}` → X, recursively: the proto convention for what protobuf cannot nest
 * (common.proto: Row, DoubleList, DoubleMap, StringMap).
 */
export function unwrapEntries(value: unknown): unknown {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = unwrapEntries(value[i]);
    return value;
  }
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return value;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  if (keys.length === 1 && keys[0] === 'entries') return unwrapEntries(obj.entries);
  for (const k of keys) obj[k] = unwrapEntries(obj[k]);
  return obj;
}

/** Envelope [seed]: `{statusCode, statusString, values}`; NaN/Infinity as strings. */
export function sendEnvelope(res: Response, status: number, message: string, values: Record<string, unknown> | undefined): void {
  const body: Record<string, unknown> = { statusCode: status, statusString: message };
  if (values !== undefined) body.values = values;
  res.status(status).type('application/json').send(toJson(body));
}

export function sendError(res: Response, err: SmlError): void {
  // A retryable error (503: service or NATS unavailable, queue full) says when to retry.
  if (err.retryable) res.setHeader('Retry-After', '1');
  sendEnvelope(res, err.status, err.message, err.omitValues ? undefined : err.values ?? {});
}


import type { Response } from 'express';
import { SmlError, toJson } from '@sml/core';
import type { MessageType } from '@sml/bus';
import { reflection } from '@sml/proto';
import { Type, type Field } from 'protobufjs';

/** protobufjs toObject options that give the REST JSON shape (API.md §1). */
export const TO_OBJECT = { longs: Number, enums: String, defaults: true, arrays: true, objects: true } as const;

/** The REST `values` of a reply: every field but `status`, unset sub-messages left out. */
export function replyValues<T>(type: MessageType<T>, reply: T): Record<string, unknown> {
  const obj = type.toObject(reply, TO_OBJECT);
  const schema = typeOf(type);
  delete obj.status;
  for (const [k, v] of Object.entries(obj)) {
    if (v === null) delete obj[k];
    else obj[k] = restValue(schema.fields[k], v);
  }
  return obj;
}

/** The reflected schema of a generated message class (its type URL names it). */
function typeOf(type: MessageType<unknown>): Type {
  const name = (type as unknown as { getTypeUrl(prefix: string): string }).getTypeUrl('').slice(1);
  return reflection.lookupType(name);
}

/**
 * A message whose only field is `entries` stands for that field's value in REST JSON
 * (common.proto: Row, DoubleList, DoubleMap, StringMap; explore's group maps).
 */
function isEntriesWrapper(type: Type): boolean {
  const names = Object.keys(type.fields);
  return names.length === 1 && names[0] === 'entries';
}

/**
 * The REST form of one field's value, by its schema: wrapper messages become their
 * `entries`; map keys are data and never collapsed (an attribute, group or model named
 * `entries` comes back as itself).
 */
function restValue(field: Field | undefined, value: unknown): unknown {
  if (field === undefined || value === null || typeof value !== 'object') return value;
  const type = field.resolve().resolvedType;
  if (!(type instanceof Type)) return value; // scalars, enums, bytes
  const one = (v: unknown) => restMessage(type, v);
  if (field.map) {
    const m = value as Record<string, unknown>;
    for (const k of Object.keys(m)) m[k] = one(m[k]);
    return m;
  }
  if (Array.isArray(value)) return value.map(one);
  return one(value);
}

function restMessage(type: Type, value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const obj = value as Record<string, unknown>;
  for (const k of Object.keys(obj)) obj[k] = restValue(type.fields[k], obj[k]);
  return isEntriesWrapper(type) ? obj.entries : obj;
}

/** Envelope [seed]: `{statusCode, statusString, values}`; NaN/Infinity as strings. */
export function sendEnvelope(res: Response, status: number, message: string, values: Record<string, unknown> | undefined): void {
  const body: Record<string, unknown> = { statusCode: status, statusString: message };
  if (values !== undefined) body.values = values;
  res.status(status).type('application/json').send(toJson(body));
}

/** The envelope around `values` given as JSON text (Presentation.rawValues): the same bytes sendEnvelope would send. */
export function envelopeWithRawValues(status: number, message: string, values: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(`{"statusCode":${status},"statusString":${JSON.stringify(message)},"values":`), values, Buffer.from('}')]);
}

export function sendError(res: Response, err: SmlError): void {
  // Answered before the request's body was read (a body never to be read, over a bound or not
  // authenticated): the connection closes after the answer, else node reads the rest of the
  // body, however long, to keep the connection.
  const req = res.req;
  const declaresBody = Number(req.headers['content-length']) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (declaresBody && !req.complete && !res.headersSent) res.setHeader('Connection', 'close');
  // A retryable error (503: service or NATS unavailable, queue full) says when to retry.
  if (err.retryable) res.setHeader('Retry-After', '1');
  sendEnvelope(res, err.status, err.message, err.omitValues ? undefined : err.values ?? {});
}

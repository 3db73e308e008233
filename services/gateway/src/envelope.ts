import { randomUUID } from 'node:crypto';
import type { Response } from 'express';
import { SmlError, smlError, toJson, toSmlError, type Logger } from '@sml/core';
import type { BusHealth, MessageType } from '@sml/bus';
import { reflection } from '@sml/proto';
import { Type, type Field } from 'protobufjs';
import { isAuthFailure, type GatewayMetrics } from './metrics';

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

/** Envelope [seed] as JSON text: `{statusCode, statusString, values}`; NaN/Infinity as strings. REST bodies and WebSocket answers alike. */
export function envelopeText(status: number, message: string, values: Record<string, unknown> | undefined): string {
  const body: Record<string, unknown> = { statusCode: status, statusString: message };
  if (values !== undefined) body.values = values;
  return toJson(body);
}

export function sendEnvelope(res: Response, status: number, message: string, values: Record<string, unknown> | undefined): void {
  res.status(status).type('application/json').send(envelopeText(status, message, values));
}

/** An error's envelope: its `values` (none for the jobs-list 500, API.md §1). */
export function errorEnvelopeText(err: SmlError): string {
  return envelopeText(err.status, err.message, err.omitValues ? undefined : err.values ?? {});
}

/** Where a failure is answered: the bus's health, the metrics, the log. */
export interface FailureDeps {
  bus: BusHealth;
  metrics: GatewayMetrics;
  log: Logger;
}

/**
 * What a failed REST request or WebSocket message answers, one rule for both: NATS
 * unreachable or a JetStream resource missing is a 503 (BusHealth.failure); a domain error
 * answers by its kind (`toSmlError`); an SmlError as it is, a refused authentication counted
 * in `sml_auth_failures_total`; anything else is an Internal error, logged with `where` and
 * the request id the answer names.
 */
export function failureAnswer(thrown: unknown, deps: FailureDeps, where: Record<string, unknown>, requestId: string = randomUUID()): SmlError {
  const err = deps.bus.failure(thrown) ?? toSmlError(thrown);
  if (err instanceof SmlError) {
    if (isAuthFailure(err)) deps.metrics.authFailures.inc({ code: err.code });
    return err;
  }
  deps.log.error({ err, requestId, ...where }, 'request failed');
  return smlError('INTERNAL', { requestId });
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
  res.status(err.status).type('application/json').send(errorEnvelopeText(err));
}

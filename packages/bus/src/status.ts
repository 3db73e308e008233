import { SmlError, catalogue, formatMessage, isErrorCode, ok, smlError, type OkCode } from '@sml/core';
import type { sml } from '@sml/proto';

export function okStatus(code: OkCode = 'OK', params: Record<string, unknown> = {}): sml.v1.IStatus {
  return { code: ok[code].status, message: formatMessage(ok[code].message, params) };
}

export function errorStatus(err: SmlError): sml.v1.IStatus {
  return { code: err.status, message: err.message, retryable: err.retryable, errorCode: err.code };
}

/** Rebuilds the SmlError a service answered with, so callers handle one error class. */
export function errorFromStatus(status: sml.v1.IStatus): SmlError {
  const code = status.errorCode && isErrorCode(status.errorCode) ? status.errorCode : 'INTERNAL';
  return new SmlError(code, status.code ?? 500, status.message ?? catalogue.INTERNAL.message, status.retryable ?? false);
}

export function isOk(status: sml.v1.IStatus | null | undefined): boolean {
  const code = status?.code ?? 200;
  return code >= 200 && code < 300;
}

/** Throws the reply's error if its status is not 2xx; returns the reply otherwise. */
export function unwrap<T extends { status?: sml.v1.IStatus | null }>(reply: T): T {
  if (!isOk(reply.status)) throw errorFromStatus(reply.status!);
  return reply;
}

export { smlError };

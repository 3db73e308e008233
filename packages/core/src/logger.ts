import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

/**
 * Paths whose values never reach a log line: auth headers, customer secrets, data-source
 * credentials (DSInfo `info.*secret*`, `*passwd*`, `*password*`, access keys), bus passwords.
 */
export const redactPaths = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  'secretKey',
  '*.secretKey',
  'secret',
  '*.secret',
  'info.s3secretKey',
  'info.s3accessKey',
  'info.rspasswd',
  'info.password',
  '*.info.s3secretKey',
  '*.info.s3accessKey',
  '*.info.rspasswd',
  '*.info.password',
  // Bus credentials (README "Bus security"): the config object, NATS connection options.
  'SML_NATS_PASSWORD',
  '*.SML_NATS_PASSWORD',
  'pass',
  '*.pass',
  'password',
  '*.password',
  // Fusion cells' secrets: a cell, a cell list, a project's metadata.
  'sk',
  '*.sk',
  'cells[*].sk',
  '*.cells[*].sk',
  '*.fusion.cells[*].sk',
];

export function createLogger(name: string, level = 'info', destination?: pino.DestinationStream): Logger {
  return pino({ name, level, redact: { paths: redactPaths, censor: '[REDACTED]' }, base: { svc: name } }, destination);
}

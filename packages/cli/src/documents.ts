import { readFileSync, writeFileSync } from 'node:fs';
import type { SmlResponse } from '@sml/sdk';
import { CliError } from './errors';
import type { Output } from './io';

/**
 * Prints an export's document (`values.status`, base64 text) on stdout, or writes it to
 * `file` and says so: either way exactly what an import takes back.
 */
export function saveDocument(out: Output, res: SmlResponse<{ status: string }>, what: string, file?: string): number {
  return out.envelope(res.body, (v) => {
    if (file === undefined) return v.status;
    writeFileSync(file, v.status);
    return `${what} written to ${file} (${v.status.length} bytes)`;
  });
}

/** An exported document read back for an import: sent verbatim, the server checks it whole. */
export function readDocument(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new CliError(`${file}: cannot read the exported document (${(err as Error).message})`);
  }
}

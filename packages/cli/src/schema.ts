import { createReadStream } from 'node:fs';
import { guessType } from '@sml/core';
import type { SmlClient } from '@sml/sdk';
import { csvRecords } from './csv';
import { CliError } from './errors';
import { isSuccess } from './io';

/** The header row of a CSV file: its column names. */
export async function csvHeader(path: string): Promise<string[]> {
  for await (const record of csvRecords(createReadStream(path, { encoding: 'utf8' }))) return record;
  throw new CliError(`${path} is empty`);
}

/** Data rows the types are guessed from: as many as a data source's sample and preview read (services/projects SAMPLE_ROWS). */
export const GUESS_ROWS = 128;

/** The type of each column of a CSV file, guessed from its first GUESS_ROWS data rows as sample/preview guess. */
export async function guessedTypes(path: string): Promise<string[]> {
  let header: string[] | undefined;
  const rows: string[][] = [];
  for await (const record of csvRecords(createReadStream(path, { encoding: 'utf8' }))) {
    if (header === undefined) header = record;
    else rows.push(record);
    if (rows.length === GUESS_ROWS) break;
  }
  if (header === undefined) throw new CliError(`${path} is empty`);
  return header.map((_, i) => guessType(rows.map((r) => r[i] ?? '')));
}

/**
 * The type codes of `columns` as project `pid` already knows them (smlInfo attributeNames and
 * attributeTypes), so that `--types` need not repeat what the project knows. A column the
 * project has no attribute of cannot be typed so: the message says to give --types; a
 * project without attributes yet answers undefined when `orNone` (the caller guesses).
 */
export async function projectTypes(client: SmlClient, pid: string, columns: string[]): Promise<string[]>;
export async function projectTypes(client: SmlClient, pid: string, columns: string[], orNone: true): Promise<string[] | undefined>;
export async function projectTypes(client: SmlClient, pid: string, columns: string[], orNone = false): Promise<string[] | undefined> {
  const res = await client.projectInfo(pid);
  if (!isSuccess(res.status)) throw new CliError(res.body.statusString);
  const info = (res.body.values?.smlInfo ?? {}) as { attributeNames?: string[]; attributeTypes?: string[] };
  const known = new Map((info.attributeNames ?? []).map((name, i) => [name, info.attributeTypes?.[i]]));
  if (known.size === 0 && orNone) return undefined;
  const unknown = columns.filter((c) => known.get(c) === undefined);
  if (unknown.length > 0) {
    const which = unknown.map((c) => `'${c}'`).join(', ');
    throw new CliError(known.size === 0
      ? `project ${pid} has no attributes yet: give --types, one code per column (e.g. --types ${columns.map(() => 'C').join(',')})`
      : `project ${pid} has no attribute ${which}: give --types, one code per column`);
  }
  return columns.map((c) => known.get(c)!);
}

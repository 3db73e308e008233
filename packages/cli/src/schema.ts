import { createReadStream } from 'node:fs';
import type { SmlClient } from '@sml/sdk';
import { csvRecords } from './csv';
import { CliError } from './errors';
import { isSuccess } from './io';

/** The header row of a CSV file: its column names. */
export async function csvHeader(path: string): Promise<string[]> {
  for await (const record of csvRecords(createReadStream(path, { encoding: 'utf8' }))) return record;
  throw new CliError(`${path} is empty`);
}

/**
 * The type codes of `columns` as project `pid` already knows them (smlInfo attributeNames and
 * attributeTypes), so that `--types` need not repeat what the project knows. A column the
 * project has no attribute of cannot be typed so: the message says to give --types.
 */
export async function projectTypes(client: SmlClient, pid: string, columns: string[]): Promise<string[]> {
  const res = await client.projectInfo(pid);
  if (!isSuccess(res.status)) throw new CliError(res.body.statusString);
  const info = (res.body.values?.smlInfo ?? {}) as { attributeNames?: string[]; attributeTypes?: string[] };
  const known = new Map((info.attributeNames ?? []).map((name, i) => [name, info.attributeTypes?.[i]]));
  const unknown = columns.filter((c) => known.get(c) === undefined);
  if (unknown.length > 0) {
    const which = unknown.map((c) => `'${c}'`).join(', ');
    throw new CliError(known.size === 0
      ? `project ${pid} has no attributes yet: give --types, one code per column (e.g. --types ${columns.map(() => 'C').join(',')})`
      : `project ${pid} has no attribute ${which}: give --types, one code per column`);
  }
  return columns.map((c) => known.get(c)!);
}

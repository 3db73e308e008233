import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import type { DsInfo, DsSample, SmlClient, SmlResponse } from '@sml/sdk';
import { keyValue, nameList, positiveSeconds, typeCodes } from '../args';
import { action, type CommandContext } from '../command';
import { CliError } from '../errors';
import { isSuccess, type Output } from '../io';
import { followJob, jobCreated, restClient } from '../rest';
import { cell, table } from '../table';

const DS_TYPES = ['localfile', 's3', 'redshift', 'http'];
const BROWSABLE_TYPES = ['localfile', 's3'];

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

interface DsOptions {
  type?: string;
  info?: Record<string, string>;
  extra?: string[];
  file?: string;
}

/** A DSInfo JSON file (`{type, name, info, extra}`), checked as the gateway checks a decrypted one. */
export function readDsInfoFile(path: string): Partial<DsInfo> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new CliError(`${path}: not a readable DSInfo JSON file (${(err as Error).message})`);
  }
  const bad = (detail: string) => new CliError(`${path}: ${detail}`);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw bad('the DSInfo must be a JSON object {type, name, info, extra}');
  const { type, name, info = {}, extra } = parsed as Record<string, unknown>;
  if (type !== undefined && typeof type !== 'string') throw bad('type must be a string');
  if (name !== undefined && typeof name !== 'string') throw bad('name must be a string');
  if (typeof info !== 'object' || info === null || Array.isArray(info)) throw bad('info must be an object of strings');
  const strings: Record<string, string> = {};
  for (const [k, v] of Object.entries(info as Record<string, unknown>)) {
    if (typeof v === 'string') strings[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') strings[k] = String(v);
    else throw bad(`info.${k} must be a string`);
  }
  if (extra !== undefined && (!Array.isArray(extra) || !extra.every((t) => typeof t === 'string'))) throw bad('extra must be an array of attribute type codes');
  return { type, name, info: strings, extra };
}

/**
 * The DSInfo of a command line: `--file`, with `--type`, `--info` entries and `--extra` over
 * it. `name`: the registered name; a preview or browse names it as the file does, else `fallback`.
 */
function dsInfoOf(opts: DsOptions, name?: string, fallback = ''): DsInfo {
  const file = opts.file === undefined ? {} : readDsInfoFile(opts.file);
  const type = opts.type ?? file.type;
  if (type === undefined) throw new CliError(`--type (${DS_TYPES.join(', ')}) is required, or a --file whose DSInfo has a type`);
  return { type, name: name ?? (file.name || fallback), info: { ...file.info, ...opts.info }, extra: opts.extra ?? file.extra ?? [] };
}

/** The options that describe a DSInfo, on create, update and preview (browse restricts --type). */
function dsInfoOptions(command: Command, types = DS_TYPES): Command {
  return command
    .addOption(new Option('--type <type>', 'data source type').choices(types))
    .option('--info <key=value>', 'an info entry, repeatable: path=…, s3bucket=…, rsurl=… (README "Data sources"); secrets are safer in --file, a command line shows in ps and shell history', keyValue)
    .option('--file <dsinfo.json>', 'a DSInfo JSON file {type, name, info, extra}; the options given too override it');
}

/** A sample or preview: one column per attribute, headed `name (guessed type)`. */
export function sampleTable(frame: DsSample): string {
  if (frame.attributeNames.length === 0) return 'No columns';
  return table(frame.attributeNames.map((n, i) => `${n} (${frame.attributeTypes[i] ?? '?'})`), frame.data);
}

/** `values.learnReport` of a finished data-source learn or forget. */
interface LearnReply {
  learnReport?: { rowsLearned?: number; rowsSkipped?: number; errors?: string[] };
}

interface JobOptions {
  wait?: boolean;
  timeout: number;
}

/** Prints the job id of a learn/forget, or with --wait follows it to its end and prints what it did. */
async function finish(out: Output, client: SmlClient, submitted: SmlResponse<unknown>, forget: boolean, where: string, opts: JobOptions): Promise<number> {
  if (!isSuccess(submitted.status) || !opts.wait) return out.envelope(submitted.body, () => jobCreated(submitted));
  const res = await followJob<LearnReply>(out, client, submitted, opts.timeout);
  return out.envelope(res.body, (v) => {
    const { rowsLearned = 0, rowsSkipped = 0, errors = [] } = v.learnReport ?? {};
    const skipped = rowsSkipped > 0 ? ` (${count(rowsSkipped, 'row')} skipped)` : '';
    return [`${forget ? 'Forgot' : 'Learned'} ${count(rowsLearned, 'row')} ${where}${skipped}`, ...errors].join('\n');
  });
}

const time = (ms: number) => (ms > 0 ? new Date(ms).toISOString() : '');

/** `sml dss …`: data sources of SML_USER and learning them into projects, over REST (API.md §5). */
export function registerDss(program: Command, ctx: CommandContext): void {
  const dss = program.command('dss').description('data sources of SML_USER: files, S3 objects, PostgreSQL/Redshift tables, http URLs (REST: SML_URL, SML_USER, SML_SECRET)');

  dsInfoOptions(dss
    .command('create')
    .description('register a data source (the DSInfo travels encrypted with SML_SECRET); nothing is read yet')
    .argument('<name>', 'data source name'))
    .option('--extra <codes>', 'attribute type codes, one per column, e.g. C,C,B', typeCodes)
    .action(action(ctx, async (out, name: string, opts: DsOptions) => {
      const res = await restClient(ctx.io.env).createDataSource(dsInfoOf(opts, name));
      return out.envelope(res.body, () => res.body.statusString);
    }));

  dss
    .command('list')
    .description('list data sources and their types')
    .action(action(ctx, async (out) => {
      const res = await restClient(ctx.io.env).listDataSources();
      return out.envelope(res.body, (v) => (v.stringList.values.length === 0 ? 'No data sources' : table(
        ['NAME', 'TYPE'],
        v.stringList.values.map((entry) => {
          const colon = entry.lastIndexOf(':');
          return colon < 0 ? [entry, ''] : [entry.slice(0, colon), entry.slice(colon + 1)];
        }),
      )));
    }));

  dss
    .command('show')
    .description("a data source's DSInfo (the server never answers its secrets: s3secretKey, rspasswd …)")
    .argument('<name>', 'data source name')
    .action(action(ctx, async (out, name: string) => {
      const res = await restClient(ctx.io.env).getDataSource(name);
      return out.envelope(res.body, ({ dsInfo }) => table(['FIELD', 'VALUE'], [
        ['name', dsInfo.name],
        ['type', dsInfo.type],
        ...Object.entries(dsInfo.info).map(([k, v]) => [`info.${k}`, v]),
        ['extra', cell(dsInfo.extra?.join(','))],
      ]));
    }));

  dsInfoOptions(dss
    .command('update')
    .description('replace the whole DSInfo of a data source (give its secrets again: show never prints them)')
    .argument('<name>', 'data source name'))
    .option('--extra <codes>', 'attribute type codes, one per column, e.g. C,C,B', typeCodes)
    .action(action(ctx, async (out, name: string, opts: DsOptions) => {
      const res = await restClient(ctx.io.env).updateDataSource(dsInfoOf(opts, name));
      return out.envelope(res.body, () => res.body.statusString);
    }));

  dss
    .command('delete')
    .description('delete a data source (its files, objects or tables are untouched)')
    .argument('<name>', 'data source name')
    .action(action(ctx, async (out, name: string) => {
      const res = await restClient(ctx.io.env).deleteDataSource(name);
      return out.envelope(res.body, () => res.body.statusString);
    }));

  dss
    .command('sample')
    .description('the first rows (at most 128) of a data source, with their types')
    .argument('<name>', 'data source name')
    .action(action(ctx, async (out, name: string) => {
      const res = await restClient(ctx.io.env).sampleDataSource(name);
      return out.envelope(res.body, (v) => sampleTable(v.dataframe));
    }));

  dsInfoOptions(dss
    .command('preview')
    .description('the first rows (at most 128) of a DSInfo that is not registered, with guessed types; registers nothing'))
    .action(action(ctx, async (out, opts: DsOptions) => {
      const res = await restClient(ctx.io.env).previewDataSource(dsInfoOf(opts, undefined, 'preview'));
      return out.envelope(res.body, (v) => sampleTable(v.dataframe));
    }));

  dsInfoOptions(dss
    .command('browse')
    .description('the folders (ending in /) and files under info.path of a localfile or s3 DSInfo (empty path: the top)'), BROWSABLE_TYPES)
    .action(action(ctx, async (out, opts: DsOptions) => {
      const ds = dsInfoOf(opts, undefined, 'browse');
      if (!BROWSABLE_TYPES.includes(ds.type)) throw new CliError(`only ${BROWSABLE_TYPES.join(' and ')} data sources can be browsed, not ${ds.type}`);
      const res = await restClient(ctx.io.env).browseDataSource(ds);
      return out.envelope(res.body, ({ dsdirectoryListing: l }) => (l.dirs.length + l.files.length === 0
        ? `Nothing under [${l.path}]`
        : [...l.dirs.map((d) => `${d}/`), ...l.files].join('\n')));
    }));

  for (const op of ['learn', 'forget'] as const) {
    const forget = op === 'forget';
    dss
      .command(op)
      .description(forget
        ? 'forget the rows of a data source that were learned into a project (a job; the exact inverse of learn)'
        : 'learn the rows of a data source into a project (a job: the project changes only if every row is read)')
      .argument('<project>', 'project id')
      .argument('<name>', 'data source name')
      .option('--columns <names>', 'the columns to use, e.g. x1,x2,y (default: every column)', nameList)
      .option('--types <codes>', 'their attribute type codes, e.g. C,C,B (default: the DSInfo extra, else guessed)', typeCodes)
      .option('--lenient', 'skip malformed rows instead of failing the job (errorHandling=1)')
      .option('--wait', 'poll until the job has finished or failed, then print the rows it learned')
      .option('--timeout <seconds>', 'with --wait: give up after this long', positiveSeconds, 600)
      .action(action(ctx, async (out, pid: string, name: string, opts: JobOptions & { columns?: string[]; types?: string[]; lenient?: boolean }) => {
        const client = restClient(ctx.io.env);
        const columns = { attributeNames: opts.columns ?? [], attributeTypes: opts.types ?? [], errorHandling: opts.lenient ? 1 : 0 } as const;
        const submitted = await client.learnDataSource(pid, name, columns, { forget });
        return finish(out, client, submitted, forget, `of data source ${name} ${forget ? 'from' : 'into'} project ${pid}`, opts);
      }));
  }

  for (const op of ['attach', 'detach'] as const) {
    dss
      .command(op)
      .description(op === 'attach' ? "add a data source to a project's dsList" : "remove a data source from a project's dsList")
      .argument('<project>', 'project id')
      .argument('<name>', 'data source name')
      .action(action(ctx, async (out, pid: string, name: string) => {
        const res = await restClient(ctx.io.env).attachDataSource(pid, name, { detach: op === 'detach' });
        return out.envelope(res.body, () => res.body.statusString);
      }));
  }

  dss
    .command('log')
    .description("a project's most recent data-source learn and forget jobs: rows read, learned, skipped, and why a failed one failed")
    .argument('<project>', 'project id')
    .action(action(ctx, async (out, pid: string) => {
      const res = await restClient(ctx.io.env).dataSourceLog(pid);
      return out.envelope(res.body, ({ dsLog = [], quarantined = [] }) => [
        dsLog.length === 0 ? 'No data-source jobs' : table(
          ['JOB', 'DS', 'OP', 'STATE', 'READ', 'LEARNED', 'SKIPPED', 'BYTES', 'STARTED', 'FINISHED', 'ERROR'],
          dsLog.map((e) => [
            cell(e.jobId), e.ds, e.op, e.state, cell(e.rowsRead), cell(e.rowsLearned), cell(e.rowsSkipped), cell(e.bytesRead),
            time(e.started), time(e.finished), cell(e.error),
          ]),
        ),
        quarantined.length === 0 ? '' : `${quarantined.length} quarantined log batch${quarantined.length === 1 ? '' : 'es'} (kept, not applied): sml --json dss log ${pid}`,
      ].filter(Boolean).join('\n'));
    }));
}

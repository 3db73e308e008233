import { Option, type Command } from 'commander';
import type { DsInfo } from '@sml/sdk';
import { keyValue, typeCodes } from '../args';
import { action, type CommandContext } from '../command';
import { CliError } from '../errors';
import { isSuccess } from '../io';
import { restClient } from '../rest';
import { table } from '../table';
import { readDsInfoFile, sampleTable } from './dss';

const STREAM_TYPES = ['kafka', 'nats'];
const POLL_TYPES = ['kafka', 'kafka-poll'];

interface StreamDsOptions {
  type?: string;
  info?: Record<string, string>;
  extra?: string[];
  file?: string;
  name?: string;
}

/** The DSInfo of a command line: `--file`, with `--type`, `--info` entries and `--extra` over it. */
function dsInfoOf(opts: StreamDsOptions, types: string[], name?: string, fallback = ''): DsInfo {
  const file = opts.file === undefined ? {} : readDsInfoFile(opts.file);
  const type = opts.type ?? file.type;
  if (type === undefined) throw new CliError(`--type (${types.join(', ')}) is required, or a --file whose DSInfo has a type`);
  return { type, name: name ?? opts.name ?? (file.name || fallback), info: { ...file.info, ...opts.info }, extra: opts.extra ?? file.extra ?? [] };
}

function dsInfoOptions(command: Command, types: string[]): Command {
  return command
    .addOption(new Option('--type <type>', 'source type').choices(types))
    .option('--info <key=value>', 'an info entry, repeatable: bootstrap.servers=…, kafka.topic=…, nats_hosts=…, nats.subject=…, format=json|csv, attributeNames=a,b (README "Streams"); credentials are safer in --file', keyValue)
    .option('--file <dsinfo.json>', 'a DSInfo JSON file {type, name, info, extra}; the options given too override it');
}

/** `sml streams …`: Kafka and NATS JetStream streams learned into projects, Kafka pollers, browse and preview (API.md §9). */
export function registerStreams(program: Command, ctx: CommandContext): void {
  const streams = program.command('streams').description('Kafka and NATS JetStream streams learned into projects, Kafka pollers, browsing and previewing a broker (REST: SML_URL, SML_USER, SML_SECRET)');

  dsInfoOptions(streams
    .command('create')
    .description('create a stream that learns every record of a Kafka topic or NATS subject into the project, from now on (or --from-beginning)')
    .argument('<project>', 'project id')
    .argument('<name>', 'stream name'), STREAM_TYPES)
    .option('--extra <codes>', 'attribute type codes, one per info.attributeNames entry, e.g. C,C,B', typeCodes)
    .option('--from-beginning', 'from the first record the topic or JetStream stream holds')
    .action(action(ctx, async (out, pid: string, name: string, opts: StreamDsOptions & { fromBeginning?: boolean }) => {
      const res = await restClient(ctx.io.env).createStream(pid, dsInfoOf(opts, STREAM_TYPES, name), { fromBeginning: opts.fromBeginning === true });
      return out.envelope(res.body, () => res.body.statusString);
    }));

  streams
    .command('list')
    .description("the project's streams")
    .argument('<project>', 'project id')
    .action(action(ctx, async (out, pid: string) => {
      const res = await restClient(ctx.io.env).listStreams(pid);
      return out.envelope(res.body, (v) => (v.stringList.values.length === 0 ? 'No streams' : v.stringList.values.join('\n')));
    }));

  for (const op of ['start', 'stop'] as const) {
    streams
      .command(op)
      .description(op === 'start' ? 'resume a stopped stream from where it stopped' : 'suspend a stream (answers once nothing more is learned)')
      .argument('<project>', 'project id')
      .argument('<stream>', 'stream name')
      .action(action(ctx, async (out, pid: string, stream: string) => {
        const res = await restClient(ctx.io.env).streamAction(pid, stream, op);
        return out.envelope(res.body, () => res.body.statusString);
      }));
  }

  streams
    .command('delete')
    .description('stop and remove a stream (its consumer group or durable consumer too); what it learned stays in the project')
    .argument('<project>', 'project id')
    .argument('<stream>', 'stream name')
    .action(action(ctx, async (out, pid: string, stream: string) => {
      const res = await restClient(ctx.io.env).deleteStream(pid, stream);
      return out.envelope(res.body, () => res.body.statusString);
    }));

  streams
    .command('metrics')
    .description("a stream's state and counters: records read, learned, rejected, lag, last error …")
    .argument('<project>', 'project id')
    .argument('<stream>', 'stream name')
    .action(action(ctx, async (out, pid: string, stream: string) => {
      const res = await restClient(ctx.io.env).streamMetrics(pid, stream);
      return out.envelope(res.body, (v) => table(['METRIC', 'VALUE'], Object.entries(v.KSVSMap.values[0] ?? {})));
    }));

  streams
    .command('errors')
    .description("a stream's most recent errors (errorLog: rejected records, source failures), oldest first")
    .argument('<project>', 'project id')
    .argument('<stream>', 'stream name')
    .action(action(ctx, async (out, pid: string, stream: string) => {
      const res = await restClient(ctx.io.env).streamErrorLog(pid, stream);
      return out.envelope(res.body, (v) => (v.stringList.values.length === 0 ? 'No errors' : v.stringList.values.join('\n')));
    }));

  dsInfoOptions(streams
    .command('poll')
    .description('the next records of a Kafka poller: --sid polls a registered kafka data source (sml dss create --file …), else the DSInfo of --type/--info/--file; pollers continue where the last poll left off and close after 2 minutes idle'), POLL_TYPES)
    .option('--sid <ds>', 'a registered data source of type kafka (the DSInfo options are then ignored)')
    .option('--name <name>', 'the poller name of a DSInfo given by options (default: its file\'s name)')
    .option('--extra <codes>', 'attribute type codes, one per info.attributeNames entry', typeCodes)
    .option('--from-beginning', "a new poller's first poll starts at the earliest offset")
    .action(action(ctx, async (out, opts: StreamDsOptions & { sid?: string; fromBeginning?: boolean }) => {
      const client = restClient(ctx.io.env);
      const res = opts.sid
        ? await client.pollStream({ sid: opts.sid, fromBeginning: opts.fromBeginning })
        : await client.pollStream({ ds: dsInfoOf(opts, POLL_TYPES, undefined, 'poller'), fromBeginning: opts.fromBeginning });
      const frame = res.body.values?.dataframe;
      // kafka-poll: a 400 that still carries the records it polled; they are shown, not lost.
      if (!isSuccess(res.body.statusCode) && frame && !out.json) {
        out.out(frame.data.length === 0 ? 'No records' : sampleTable(frame));
        out.err(res.body.statusString);
        return 1;
      }
      return out.envelope(res.body, (v) => (v.dataframe.data.length === 0 ? 'No records' : sampleTable(v.dataframe)));
    }));

  streams
    .command('close-poller')
    .description('close the Kafka poller <sid>; a registered kafka data source of that name is deleted too (streams are never touched)')
    .argument('<sid>', 'poller / data source name')
    .action(action(ctx, async (out, sid: string) => {
      const res = await restClient(ctx.io.env).deletePoller(sid);
      return out.envelope(res.body, () => res.body.statusString);
    }));

  dsInfoOptions(streams
    .command('browse')
    .description('Kafka: the topics and their partition counts; NATS: the JetStream streams, or with --info path=<stream> its subjects'), STREAM_TYPES)
    .action(action(ctx, async (out, opts: StreamDsOptions) => {
      const res = await restClient(ctx.io.env).browseStreams(dsInfoOf(opts, STREAM_TYPES, undefined, 'browse'));
      return out.envelope(res.body, ({ dsdirectoryListing: l }) => {
        const lines = [...(l.dirs ?? []).map((d) => `${d}/`), ...(l.files ?? [])];
        return lines.length === 0 ? `Nothing${l.path ? ` in [${l.path}]` : ''}` : lines.join('\n');
      });
    }));

  dsInfoOptions(streams
    .command('preview')
    .description('up to 128 records of a Kafka topic or NATS subject, as a table; registers nothing'), STREAM_TYPES)
    .option('--extra <codes>', 'attribute type codes, one per info.attributeNames entry', typeCodes)
    .action(action(ctx, async (out, opts: StreamDsOptions) => {
      const res = await restClient(ctx.io.env).previewStream(dsInfoOf(opts, STREAM_TYPES, undefined, 'preview'));
      return out.envelope(res.body, (v) => (v.dataframe.data.length === 0 ? 'No records' : sampleTable(v.dataframe)));
    }));
}

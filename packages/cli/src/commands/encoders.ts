import { createReadStream } from 'node:fs';
import { Option, type Command } from 'commander';
import { nonNegativeInt, positiveInt, typeCodes } from '../args';
import { action, type CommandContext } from '../command';
import { csvRecords } from '../csv';
import { frameBatches } from '../frames';
import { isSuccess } from '../io';
import { restClient } from '../rest';
import { table } from '../table';

interface FrameValues {
  dataframe: { attributeNames: string[]; data: string[][] };
  encoderInfo?: { target: string; minTrimSize: string; encoderType?: string };
}

/** `sml encoders …`: target encoders of SML_USER, over REST (API.md §3). */
export function registerEncoders(program: Command, ctx: CommandContext): void {
  const encoders = program.command('encoders').description('target encoders of SML_USER (REST: SML_URL, SML_USER, SML_SECRET)');

  encoders
    .command('list')
    .description('list encoder names')
    .action(action(ctx, async (out) => {
      const res = await restClient(ctx.io.env).operations.listEncoders<{ stringList: { values: string[] } }>();
      return out.envelope(res.body, (v) => (v.stringList.values.length === 0 ? 'No encoders' : v.stringList.values.join('\n')));
    }));

  encoders
    .command('create')
    .description('create an encoder of a target attribute')
    .argument('<name>', 'encoder name')
    .requiredOption('--target <attribute>', 'the target attribute')
    .addOption(new Option('--type <type>', 'B: a 0/1 target (default), C: a continuous one').choices(['B', 'C']).default('B'))
    .option('--min-trim <n>', 'values seen fewer times encode to the overall mean', positiveInt)
    .action(action(ctx, async (out, name: string, opts: { target: string; type: string; minTrim?: number }) => {
      const res = await restClient(ctx.io.env).operations.createEncoder({
        query: { encodername: name, targetName: opts.target, encoderType: opts.type },
        ...(opts.minTrim === undefined ? {} : { json: { values: [{ minTrimSize: String(opts.minTrim) }] } }),
      });
      return out.envelope(res.body, () => res.body.statusString);
    }));

  encoders
    .command('learn')
    .description('learn a CSV file (header row first) into an encoder, in batches of rows; every column but the target is a key')
    .argument('<name>', 'encoder name')
    .argument('<csv>', 'path of the CSV file')
    .requiredOption('--types <codes>', 'attribute type codes, one per column, e.g. S,L,B (S, L keyed; X ignored)', typeCodes)
    .option('--batch <rows>', 'rows per request', positiveInt, 10_000)
    .action(action(ctx, async (out, name: string, path: string, opts: { types: string[]; batch: number }) => {
      const client = restClient(ctx.io.env);
      let rows = 0;
      let requests = 0;
      const records = csvRecords(createReadStream(path, { encoding: 'utf8' }));
      for await (const { frame, firstRow } of frameBatches(records, { types: opts.types, batchSize: opts.batch, errorHandling: 0 })) {
        const res = await client.operations.learnEncoder(name, { json: frame });
        requests++;
        if (out.json) out.out(JSON.stringify(res.body));
        if (!isSuccess(res.body.statusCode)) {
          out.err(res.body.statusString);
          out.err(`stopped at the request with data rows ${firstRow}-${firstRow + frame.data.length - 1}: ${rows > 0 ? `rows 1-${firstRow - 1} had already been learned` : 'nothing was learned'}`);
          return 1;
        }
        rows += frame.data.length;
      }
      if (!out.json) out.out(`Learned ${rows} row${rows === 1 ? '' : 's'} into encoder ${name} (${requests} request${requests === 1 ? '' : 's'})`);
      return 0;
    }));

  encoders
    .command('stats')
    .description('per key: distinct values, and the mean, stddev and variance of their counts')
    .argument('<name>', 'encoder name')
    .action(action(ctx, async (out, name: string) => {
      const res = await restClient(ctx.io.env).operations.encoderStats<FrameValues>(name);
      return out.envelope(res.body, (v) => [
        `target ${v.encoderInfo?.target ?? ''} (${v.encoderInfo?.encoderType ?? ''}), minTrimSize ${v.encoderInfo?.minTrimSize ?? ''}`,
        table(v.dataframe.attributeNames.map((n) => n.toUpperCase()), v.dataframe.data),
      ].join('\n'));
    }));

  encoders
    .command('keyvals')
    .description('the values of one key: count and sum of the target (one page, sorted by value)')
    .argument('<name>', 'encoder name')
    .argument('<key>', 'key (input attribute)')
    .option('--offset <n>', 'first row of the page', nonNegativeInt)
    .option('--limit <n>', 'rows of the page (the server caps it: SML_MAX_ENCODER_PAGE_ROWS)', positiveInt)
    .action(action(ctx, async (out, name: string, key: string, opts: { offset?: number; limit?: number }) => {
      const query = Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]));
      const res = await restClient(ctx.io.env).operations.encoderKeyValues<FrameValues>(name, key, { query });
      return out.envelope(res.body, (v) => table(v.dataframe.attributeNames.map((n) => n.toUpperCase()), v.dataframe.data));
    }));

  encoders
    .command('delete')
    .description('delete an encoder (refused while a project uses it)')
    .argument('<name>', 'encoder name')
    .action(action(ctx, async (out, name: string) => {
      const res = await restClient(ctx.io.env).operations.deleteEncoder(name);
      return out.envelope(res.body, () => res.body.statusString);
    }));

  encoders
    .command('assign')
    .description("assign an encoder to a project: the project's S/L columns are then learned encoded")
    .argument('<pid>', 'project id')
    .argument('<name>', 'encoder name')
    .action(action(ctx, async (out, pid: string, name: string) => {
      const res = await restClient(ctx.io.env).operations.encoderAssign(pid, { query: { encoderName: name } });
      return out.envelope(res.body, () => res.body.statusString);
    }));
}

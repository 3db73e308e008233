import { statSync } from 'node:fs';
import { basename } from 'node:path';
import { Option, type Command } from 'commander';
import { keyValue, positiveInt, typeCodes } from '../args';
import { action, type CommandContext } from '../command';
import type { Output } from '../io';
import { afterDelay } from '../progress';
import { jobCreated, restClient } from '../rest';
import { csvHeader, GUESS_ROWS, guessedTypes, projectTypes } from '../schema';
import { readDocument, saveDocument } from '../documents';
import { fields } from '../table';
import { transferCsv, type Direction, type TransferSummary } from '../transfer';

const PROJECT_TYPES = ['cpu', 'gpu', 'mgpuf', 'mgpud', 'sequence', 'partition', 'fed', 'dynamic'];

/** A CSV transfer shows its progress (by bytes of the file read) once it has run this long. */
const LONG_TRANSFER_MS = 1_000;

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

const WORDS: Record<Direction, { past: string; participle: string; preposition: string }> = {
  learn: { past: 'Learned', participle: 'learned', preposition: 'into' },
  forget: { past: 'Forgot', participle: 'forgotten', preposition: 'from' },
};

/** Prints a transfer's outcome; with `--json` the envelopes were already printed as they came. */
function reportTransfer(out: Output, direction: Direction, pid: string, s: TransferSummary): number {
  const { past, participle, preposition } = WORDS[direction];
  if (s.refused) {
    const { first, last } = s.refused.rows;
    out.err(s.refused.envelope.statusString);
    out.err(`stopped at the request with data rows ${first}-${last}: `
      + (first > 1 ? `rows 1-${first - 1} had already been ${participle} (${s.rowsAccepted} accepted)` : `nothing was ${participle}`));
    return 1;
  }
  if (!out.json) {
    const skipped = s.rowsSkipped > 0 ? `, ${count(s.rowsSkipped, 'row')} skipped` : '';
    out.out([`${past} ${count(s.rowsAccepted, 'row')} ${preposition} project ${pid} (${count(s.requests, 'request')}${skipped})`, ...s.errors].join('\n'));
  }
  return 0;
}

/** `sml projects …`: projects of SML_USER and learning CSV files into them, over REST (API.md §4). */
export function registerProjects(program: Command, ctx: CommandContext): void {
  const projects = program.command('projects').description('projects of SML_USER (REST: SML_URL, SML_USER, SML_SECRET)');

  projects
    .command('create')
    .description('create a project')
    .argument('<pid>', 'project id')
    .addOption(new Option('--type <type>', 'project type (server default: cpu)').choices(PROJECT_TYPES))
    .option('--histogram', 'keep histograms (density estimates)')
    .addOption(new Option('--histogram-type <kind>', 'histogram kind (server default: streaming)').choices(['streaming', 'exact']).implies({ histogram: true }))
    .option('--no-persist', 'keep the project in memory only (lost on restart)')
    .option('--param <key=value>', 'type-specific build parameter, repeatable', keyValue)
    .action(action(ctx, async (out, pid: string, opts: {
      type?: string; histogram?: boolean; histogramType?: 'streaming' | 'exact'; persist: boolean; param?: Record<string, string>;
    }) => {
      const res = await restClient(ctx.io.env).createProject(pid, {
        type: opts.type,
        persist: opts.persist ? undefined : false,
        enableHistogram: opts.histogram,
        histogramType: opts.histogramType,
        params: opts.param,
      });
      return out.envelope(res.body, () => res.body.statusString);
    }));

  projects
    .command('info')
    .description("a project's schema, models and settings (smlInfo)")
    .argument('<pid>', 'project id')
    .option('--async', 'run as a job and print its id')
    .option('--hash', "include a hash of the project's statistics")
    .action(action(ctx, async (out, pid: string, opts: { async?: boolean; hash?: boolean }) => {
      const res = await restClient(ctx.io.env).projectInfo(pid, { async: opts.async, hash: opts.hash });
      return out.envelope(res.body, (v) => (res.status === 202 ? jobCreated(res) : fields(v.smlInfo)));
    }));

  projects
    .command('export')
    .description('the project as one portable, versioned document (settings, statistics, models), base64 text; what import takes back')
    .argument('<pid>', 'project id')
    .option('--out <file>', 'write the document to this file instead of stdout')
    .action(action(ctx, async (out, pid: string, opts: { out?: string }) => {
      const res = await restClient(ctx.io.env).operations.exportProject<{ status: string }>(pid);
      return saveDocument(out, res, `project ${pid}`, opts.out);
    }));

  projects
    .command('import')
    .description('create a project from an exported document (all or nothing; 409 if the project exists)')
    .argument('<file>', 'the document an export wrote')
    .option('--pid <pid>', 'the new project id (default: the id it was exported with)')
    .action(action(ctx, async (out, file: string, opts: { pid?: string }) => {
      const options = { raw: readDocument(file), query: opts.pid === undefined ? {} : { pid: opts.pid } };
      const res = await restClient(ctx.io.env).operations.importProject(options);
      return out.envelope(res.body, () => res.body.statusString);
    }));

  projects
    .command('list')
    .description('list project ids')
    .action(action(ctx, async (out) => {
      const res = await restClient(ctx.io.env).listProjects();
      return out.envelope(res.body, (v) => (v.stringList.values.length === 0 ? 'No projects' : v.stringList.values.join('\n')));
    }));

  projects
    .command('delete')
    .description('delete a project, its models and its state')
    .argument('<pid>', 'project id')
    .action(action(ctx, async (out, pid: string) => {
      const res = await restClient(ctx.io.env).deleteProject(pid);
      return out.envelope(res.body, () => res.body.statusString);
    }));

  const description: Record<Direction, string> = {
    learn: 'learn a CSV file (header row first) into a project, in batches of rows',
    forget: 'forget a CSV file that was learned (the exact inverse of learn), in batches of rows',
  };
  for (const direction of ['learn', 'forget'] as const) {
    projects
      .command(direction)
      .description(`${description[direction]}; with --json prints one envelope per request, one per line`)
      .argument('<pid>', 'project id')
      .argument('<csv>', 'path of the CSV file')
      .option('--types <codes>', `attribute type codes, one per column, e.g. C,C,B (C, B, T, S, L, X); default: the project's types of the header's columns, or for a project without attributes yet guessed from the first ${GUESS_ROWS} rows as dss sample/preview guess (C numbers, B 0/1, T other)`, typeCodes)
      .option('--batch <rows>', 'rows per request', positiveInt, 10_000)
      .option('--lenient', 'skip malformed rows instead of refusing their batch (errorHandling=1)')
      .action(action(ctx, async (out, pid: string, path: string, opts: { types?: string[]; batch: number; lenient?: boolean }) => {
        const client = restClient(ctx.io.env);
        const header = await csvHeader(path);
        let types = opts.types ?? await projectTypes(client, pid, header, true);
        if (types === undefined) {
          types = await guessedTypes(path);
          out.err(`project ${pid} has no attributes yet: types guessed from the first ${GUESS_ROWS} rows: ${header.map((c, i) => `${c} ${types![i]}`).join(', ')} (--types chooses them)`);
        }
        const options = { types, batchSize: opts.batch, errorHandling: opts.lenient ? 1 : 0 } as const;
        const size = statSync(path, { throwIfNoEntry: false })?.size ?? 0;
        const bar = afterDelay(out.progress(`${direction} ${basename(path)}`), LONG_TRANSFER_MS);
        let summary;
        try {
          summary = await transferCsv(client, direction, pid, path, options, (envelope, _rows, bytesRead) => {
            if (out.json) out.out(JSON.stringify(envelope));
            bar.update(Math.min(bytesRead, size), size);
          });
        } finally {
          bar.stop();
        }
        return reportTransfer(out, direction, pid, summary);
      }));
  }
}

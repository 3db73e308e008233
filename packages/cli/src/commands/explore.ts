import type { Command } from 'commander';
import { attributeList, keyValue } from '../args';
import { action, type CommandContext } from '../command';
import { explore, mlContexts } from '../exploration';
import { jobCreated, restClient } from '../rest';
import { keyValues } from '../table';

const METRICS = 'uni, bi, gain, anova, ztest, ztestp, ztestmu, ttest, ttestmu, ftest, ftestsigma, chi2';

interface ExploreOptions {
  inputs: string[][];
  targets?: string[][];
  param?: Record<string, string>;
  async?: boolean;
  useLocal?: boolean;
}

/** `sml explore <metric> <pid>`: descriptive statistics and tests, one MLContext per --inputs (API.md §6). */
export function registerExplore(program: Command, ctx: CommandContext): void {
  program
    .command('explore')
    .description('explore a project: one result table (key, value) per exploration (REST: SML_URL, SML_USER, SML_SECRET)')
    .argument('<metric>', METRICS)
    .argument('<pid>', 'project id')
    .requiredOption('--inputs <attributes>', 'input attributes, all names or all indexes, e.g. x,y or 0,1; repeat for several explorations', attributeList)
    .option('--targets <attributes>', 'target attributes; once for all explorations or once per --inputs', attributeList)
    .option('--param <key=value>', 'extraParameters entry, repeatable (e.g. sml_explore_ttest_known_mu=0)', keyValue)
    .option('--async', 'run as a job and print its id')
    .option('--use-local', 'federated project: the local statistics instead of the federation\'s')
    .action(action(ctx, async (out, metric: string, pid: string, opts: ExploreOptions) => {
      const contexts = mlContexts(opts.inputs, opts.targets, opts.param);
      const res = await explore(restClient(ctx.io.env), pid, metric, contexts, { async: opts.async, useLocal: opts.useLocal });
      return out.envelope(res.body, (v) => (res.status === 202
        ? jobCreated(res)
        : (v.KSVDMap?.values ?? []).map((map) => keyValues(map)).join('\n\n')));
    }));
}

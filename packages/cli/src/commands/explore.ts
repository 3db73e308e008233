import type { Command } from 'commander';
import { attributeList, keyValue } from '../args';
import { action, type CommandContext } from '../command';
import { dataDrift, explore, mlContexts } from '../exploration';
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

/** `sml drift <metric> <baseline> <analysis>`: one table (driftScore, <attribute>_drift…). */
export function registerDrift(program: Command, ctx: CommandContext): void {
  program
    .command('drift')
    .description('data drift of the analysis project from the baseline project: one table (key, value) (REST: SML_URL, SML_USER, SML_SECRET)')
    .argument('<metric>', 'marginal_stat, marginal_non_stat, global, pca_reconstruction_error')
    .argument('<baseline>', 'baseline project id (driftPreferenceProjectName)')
    .argument('<analysis>', 'analysis project id (driftAnalysisProjectName)')
    .option('--inputs <attributes>', 'attributes compared, names or baseline indexes (default: every attribute both projects have)', attributeList)
    .option('--param <key=value>', 'extraParameters entry, repeatable (e.g. pca_num_components=2)', keyValue)
    .action(action(ctx, async (out, metric: string, baseline: string, analysis: string, opts: { inputs?: string[][]; param?: Record<string, string> }) => {
      const res = await dataDrift(restClient(ctx.io.env), baseline, analysis, metric, opts.inputs?.flat(), opts.param);
      return out.envelope(res.body, (v) => (v.KSVDMap?.values ?? []).map((map) => keyValues(map)).join('\n\n'));
    }));
}

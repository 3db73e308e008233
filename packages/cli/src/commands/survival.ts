import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { finiteNumber, numberList, positiveInt } from '../args';
import { action, type CommandContext } from '../command';
import { cumulativeIncidence, kaplanMeier, type Frame, type GroupFrames } from '../exploration';
import { restClient } from '../rest';
import { stepChart, type StepSeries } from '../svg';
import { table } from '../table';

/** Per group: a `group <name>` line, then its curve as a table, one row per requested time. */
function groupTables(groups: GroupFrames): string {
  const entries = Object.entries(groups);
  if (entries.length === 0) return 'No groups';
  return entries.map(([group, f]) => `group ${group}\n${table(f.attributeNames.map((n) => n.toUpperCase()), f.data)}`).join('\n\n');
}

/** One plotted series per group; `band` names the columns of a confidence band, if any. */
function series(groups: GroupFrames, y: string, band?: [string, string]): StepSeries[] {
  return Object.entries(groups).map(([name, f]: [string, Frame]) => {
    const column = (c: string) => {
      const i = f.attributeNames.indexOf(c);
      return (row: string[]) => (i < 0 ? NaN : Number(row[i]));
    };
    const [x, value] = [column('time'), column(y)];
    const [lower, upper] = band ? [column(band[0]), column(band[1])] : [undefined, undefined];
    return { name, points: f.data.map((row) => ({ x: x(row), y: value(row), lower: lower?.(row), upper: upper?.(row) })) };
  });
}

const plotOption = '--plot <file.svg>';

/** `sml km` and `sml cif`: survival curves of a project that learned survival data (API.md §8). */
export function registerSurvival(program: Command, ctx: CommandContext): void {
  program
    .command('km')
    .description('Kaplan-Meier survival with its confidence interval at the given times, per group (REST: SML_URL, SML_USER, SML_SECRET)')
    .argument('<pid>', 'project id (created with km_time_column and km_event_column)')
    .requiredOption('--times <t1,t2,...>', 'times at which to evaluate the survival curve', numberList)
    .option('--group <value>', 'one group (a value of km_group_column); default: every group and Total')
    .option('--alpha <alpha>', 'confidence level 1 - alpha, 0 < alpha < 1', finiteNumber, 0.05)
    .option(plotOption, 'also write S(t) per group as an SVG step chart, with the confidence band')
    .action(action(ctx, async (out, pid: string, opts: { times: number[]; group?: string; alpha: number; plot?: string }) => {
      const res = await kaplanMeier(restClient(ctx.io.env), pid, { times: opts.times, group: opts.group, alpha: opts.alpha });
      const groups = res.body.values?.kmResultList?.values?.[0] ?? {};
      if (opts.plot !== undefined && res.status === 200) {
        writeFileSync(opts.plot, stepChart({
          title: `Kaplan-Meier survival (project ${pid})`,
          xLabel: 'time',
          yLabel: 'S(t)',
          yDomain: [0, 1],
          series: series(groups, 'survival', ['lower', 'upper']),
          bandLabel: `${Number(((1 - opts.alpha) * 100).toPrecision(6))}% confidence`,
        }));
      }
      return out.envelope(res.body, () => [groupTables(groups), opts.plot && `plot: ${opts.plot}`].filter(Boolean).join('\n'));
    }));

  program
    .command('cif')
    .description('cumulative incidence of one event type at the given times, per group (REST: SML_URL, SML_USER, SML_SECRET)')
    .argument('<pid>', 'project id (created with km_time_column and km_event_column)')
    .requiredOption('--k <type>', 'event type (a value k >= 1 of km_event_column)', positiveInt)
    .requiredOption('--times <t1,t2,...>', 'times at which to evaluate the incidence', numberList)
    .option('--group <value>', 'one group (a value of km_group_column); default: every group')
    .option(plotOption, 'also write the incidence per group as an SVG step chart')
    .action(action(ctx, async (out, pid: string, opts: { k: number; times: number[]; group?: string; plot?: string }) => {
      const res = await cumulativeIncidence(restClient(ctx.io.env), pid, { k: opts.k, times: opts.times, group: opts.group });
      const groups = res.body.values?.cifPredictionList?.values?.[0]?.sdfmap ?? {};
      if (opts.plot !== undefined && res.status === 200) {
        writeFileSync(opts.plot, stepChart({
          title: `Cumulative incidence of event ${opts.k} (project ${pid})`,
          xLabel: 'time',
          yLabel: `F${opts.k}(t)`,
          series: series(groups, `event_${opts.k}`),
        }));
      }
      return out.envelope(res.body, () => [groupTables(groups), opts.plot && `plot: ${opts.plot}`].filter(Boolean).join('\n'));
    }));
}

import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { positiveInt } from '../args';
import { action, type CommandContext } from '../command';
import { CliError } from '../errors';
import { density, densityBins, mlContext, type Density } from '../exploration';
import { restClient } from '../rest';
import { barChart } from '../svg';
import { decimal, table } from '../table';

interface DensityOptions {
  bins: number;
  normalized?: boolean;
  given?: string;
  plot?: string;
  log?: boolean;
  useLocal?: boolean;
}

/** A heading with the range and the missing cells, then one row per bin. */
function describe(d: Density, normalized: boolean): string {
  const heading = `${d.attrName}: ${d.histogram.length} bins of width ${decimal(Number(d.width))} over [${Number(d.min)}, ${Number(d.max)}]; missing: ${Number(d.valueForMissing)}`;
  const rows = densityBins(d).map((b) => [decimal(b.lower), decimal(b.upper), String(b.count)]);
  return `${heading}\n${table(['LOWER', 'UPPER', normalized ? 'FRACTION' : 'COUNT'], rows)}`;
}

/** `sml density <pid> <attribute>`: the histogram of one attribute, or of it where a binary attribute is 1 (API.md §6). */
export function registerDensity(program: Command, ctx: CommandContext): void {
  program
    .command('density')
    .description('histogram of an attribute (the project needs histograms); --plot draws it as SVG (REST: SML_URL, SML_USER, SML_SECRET)')
    .argument('<pid>', 'project id')
    .argument('<attribute>', 'attribute name')
    .option('--bins <n>', 'number of equal-width bins', positiveInt, 20)
    .option('--normalized', 'fractions summing to 1 instead of counts')
    .option('--given <attribute>', 'only the rows where this binary attribute is 1 (conditionalDensityEstimate)')
    .option('--plot <file.svg>', 'also write the histogram as an SVG bar chart')
    .option('--log', 'with --plot: a log-scale count axis (ticks at powers of ten), so that small bins show beside large ones; empty bins get no bar')
    .option('--use-local', 'federated project: the local statistics instead of the federation\'s')
    .action(action(ctx, async (out, pid: string, attribute: string, opts: DensityOptions) => {
      if (opts.log && opts.plot === undefined) throw new CliError('--log scales the plot: give --plot <file.svg>');
      const names = opts.given === undefined ? [attribute] : [opts.given, attribute];
      const extra = { hist_bins: String(opts.bins), ...(opts.normalized && { hist_is_normalized: 'true' }) };
      const res = await density(restClient(ctx.io.env), pid, mlContext(names, [], extra), { conditional: opts.given !== undefined, useLocal: opts.useLocal });
      const [d] = res.body.values?.densityList?.values ?? [];
      if (opts.plot !== undefined && d !== undefined && res.status === 200) {
        writeFileSync(opts.plot, barChart({
          title: opts.given === undefined ? `Density of ${attribute} (project ${pid})` : `Density of ${attribute} where ${opts.given} = 1 (project ${pid})`,
          xLabel: attribute,
          yLabel: `${opts.normalized ? 'fraction of rows' : 'rows'}${opts.log ? ' (log scale)' : ''}`,
          yLog: opts.log,
          bars: densityBins(d).map((b) => ({ lower: b.lower, upper: b.upper, value: b.count })),
        }));
      }
      return out.envelope(res.body, () => (d === undefined ? 'No density' : [describe(d, opts.normalized === true), opts.plot && `plot: ${opts.plot}`].filter(Boolean).join('\n')));
    }));
}

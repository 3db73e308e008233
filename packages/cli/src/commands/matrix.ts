import { writeFileSync } from 'node:fs';
import { Argument, type Command } from 'commander';
import { attributeList, keyValue, positiveSeconds } from '../args';
import { action, type CommandContext } from '../command';
import { CliError } from '../errors';
import { MATRIX_PATHS, mlContexts, submitMatrix, type MatrixKind, type MatrixResult, type Num, type Pca } from '../exploration';
import { isSuccess } from '../io';
import { followJob, restClient } from '../rest';
import { xyChart, type XySeries } from '../svg';
import { cell, keyValues, table } from '../table';

interface MatrixOptions {
  inputs: string[][];
  targets?: string[][];
  param?: Record<string, string>;
  useLocal?: boolean;
  timeout: number;
  plot?: string;
}

/**
 * A PCA scree: per component the fraction of the total variance it explains and the
 * cumulative fraction (pcaSumValues, of the trace), both on [0, 1]; a pair of lines per MLContext.
 */
function screePlot(list: Pca[], pid: string): string {
  const series = list.flatMap((p, k): XySeries[] => {
    const cumulative = p.pcaSumValues.map(Number);
    const prefix = list.length > 1 ? `#${k + 1} ` : '';
    return [
      { name: `${prefix}explained`, kind: 'line', points: cumulative.map((c, i) => ({ x: i + 1, y: c - (i > 0 ? cumulative[i - 1] : 0) })) },
      { name: `${prefix}cumulative`, kind: 'line', points: cumulative.map((c, i) => ({ x: i + 1, y: c })) },
    ];
  });
  const components = Math.max(1, ...list.map((p) => p.pcaSumValues.length));
  return xyChart({
    title: `PCA scree (project ${pid})`, xLabel: 'principal component', yLabel: 'fraction of the total variance', series, xDomain: [1, components], yDomain: [0, 1],
  });
}

/** Rows labelled by attribute (when there is one name per row), columns `<prefix>1…`. */
function matrixTable(rows: Num[][], names: string[], prefix: string): string {
  const width = Math.max(0, ...rows.map((r) => r.length));
  const label = (i: number) => (rows.length === names.length ? names[i] : String(i + 1));
  return table(['ATTRIBUTE', ...Array.from({ length: width }, (_, j) => `${prefix}${j + 1}`)], rows.map((r, i) => [label(i), ...r.map(cell)]));
}

const vector = (header: string, values: Num[]) => table(['COMPONENT', header], values.map((v, i) => [String(i + 1), cell(v)]));

/** The finished job's result as tables, one block per MLContext. */
function describe(kind: MatrixKind, v: MatrixResult): string {
  switch (kind) {
    case 'pca':
      return (v.pcaList ?? []).map((p) => [
        table(['COMPONENT', 'VALUE', 'SUM'], p.pcaValues.map((x, i) => [String(i + 1), cell(x), cell(p.pcaSumValues[i])])),
        matrixTable(p.pcaVectors, p.attributeNames, 'PC'),
      ].join('\n\n')).join('\n\n');
    case 'svd':
      return (v.svdList ?? []).map((s) => [
        vector('SINGULAR VALUE', s.singularValues),
        `U\n${matrixTable(s.u, s.attributeNames, 'U')}`,
        `V\n${matrixTable(s.v, s.attributeNames, 'V')}`,
      ].join('\n\n')).join('\n\n');
    case 'vif':
      return (v.KSVDMap?.values ?? []).map((m) => keyValues(m, ['ATTRIBUTE', 'VIF'])).join('\n\n');
    case 'svdfs':
      return (v.KSVSMap?.values ?? []).map((m) => keyValues(m, ['INDEX', 'ATTRIBUTE'])).join('\n\n');
  }
}

/** `sml matrix pca|svd|vif|svdfs <pid>`: submits the job, waits for it, prints its result (API.md §6, STATS.md §3). */
export function registerMatrix(program: Command, ctx: CommandContext): void {
  program
    .command('matrix')
    .description('PCA, SVD, variance inflation factors or SVD feature selection, run as a job and waited for (REST: SML_URL, SML_USER, SML_SECRET)')
    .addArgument(new Argument('<kind>', 'pca (principal components), svd (singular values), vif (variance inflation factors), svdfs (SVD feature selection)').choices(Object.keys(MATRIX_PATHS)))
    .argument('<pid>', 'project id')
    .requiredOption('--inputs <attributes>', 'input attributes (at least 2), all names or all indexes; repeat for several', attributeList)
    .option('--targets <attributes>', 'target attributes (svdfs needs at least 1); once for all or once per --inputs', attributeList)
    .option('--param <key=value>', 'extraParameters entry, repeatable (pca_use_covariance=true, pcaNumDimension=…, svd_tolerance=…)', keyValue)
    .option('--use-local', 'federated project: the local statistics instead of the federation\'s')
    .option('--timeout <seconds>', 'give up waiting for the job after this long', positiveSeconds, 600)
    .option('--plot <file.svg>', 'pca only: also write the scree plot (variance explained per component, and cumulative) as SVG')
    .action(action(ctx, async (out, kind: MatrixKind, pid: string, opts: MatrixOptions) => {
      if (opts.plot !== undefined && kind !== 'pca') throw new CliError('--plot draws a PCA scree: it goes with matrix pca');
      const client = restClient(ctx.io.env);
      const submitted = await submitMatrix(client, pid, kind, mlContexts(opts.inputs, opts.targets, opts.param), { useLocal: opts.useLocal });
      if (!isSuccess(submitted.status)) return out.envelope(submitted.body, () => '');
      const res = await followJob<MatrixResult>(out, client, submitted, opts.timeout);
      const plotted = opts.plot !== undefined && isSuccess(res.body.statusCode);
      if (plotted) writeFileSync(opts.plot!, screePlot(res.body.values?.pcaList ?? [], pid));
      return out.envelope(res.body, (v) => [describe(kind, v), ...(plotted ? [`plot: ${opts.plot}`] : [])].join('\n\n'));
    }));
}

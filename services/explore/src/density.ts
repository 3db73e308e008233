import { smlError, type ParameterBound } from '@sml/core';
import type { sml } from '@sml/proto';
import type { DensityTask } from './density-task';
import { attributeIndex, checkedContexts, positiveInt } from './resolve';
import type { ProjectSchema } from './summaries';

/** Attributes per entry: a density names one, a conditional density [conditional, target]. */
export type DensityArity = 1 | 2;

/**
 * The density estimates a request asks for (API.md §6), validated and resolved to project
 * indexes on the project's attribute table: histograms must be on, each entry names exactly
 * `arity` attributes, `hist_bins` (default 20) is an integer ≥ 1, `hist_is_normalized` is
 * `true` or not.
 */
export function densityTasks(
  view: Pick<ProjectSchema, 'meta' | 'attributeNames' | 'indexOf'>, context: sml.v1.IExploreContext | null | undefined, arity: DensityArity,
  where: { pid: string; user: string }, bounds: Readonly<Record<string, ParameterBound>>,
): DensityTask[] {
  if (!view.meta.histogramEnabled) throw smlError('HISTOGRAMS_DISABLED', where);
  return checkedContexts(context, bounds).map((ctx): DensityTask => {
    const names = ctx.inputAttributeNames ?? [];
    if (names.length !== arity) {
      throw smlError('GENERIC_EXCEPTION', { detail: `There should be ${arity} and only ${arity} attribute${arity === 1 ? '' : 's'} specified [${names.length}]` });
    }
    const [a, b] = names.map((n) => attributeIndex(view, n, where.pid));
    const extra = ctx.extraParameters ?? {};
    const opts = { bins: positiveInt('hist_bins', extra.hist_bins, 20), normalized: extra.hist_is_normalized === 'true' };
    return arity === 1 ? { attribute: a, ...opts } : { attribute: b, given: a, ...opts };
  });
}

/** The project indexes the tasks read, ascending. */
export function densityIndexes(tasks: readonly DensityTask[]): number[] {
  return [...new Set(tasks.flatMap((t) => (t.given === undefined ? [t.attribute] : [t.given, t.attribute])))].sort((a, b) => a - b);
}

import { smlError, type ParameterBound } from '@sml/core';
import type { sml } from '@sml/proto';
import { EXPLORE_METRICS, explore, type ExploreMetric, type MetricMap } from '@sml/stats';
import { domain } from './errors';
import { checkedContexts, resolveContext } from './resolve';
import type { ProjectView } from './summaries';

/** Metrics whose known value must be in extraParameters (API.md §6). */
const KNOWN_VALUE: Partial<Record<ExploreMetric, string>> = {
  ztestmu: 'sml_explore_ztest_known_mu',
  ttestmu: 'sml_explore_ttest_known_mu',
  ftestsigma: 'sml_explore_ftest_known_sigma',
};

/** The metric of an explore request: 400 when it is unknown (checked before anything else). */
export function exploreMetric(metric: string | null | undefined): ExploreMetric {
  if (!(EXPLORE_METRICS as readonly string[]).includes(metric ?? '')) throw smlError('BAD_METRIC', { metric });
  return metric as ExploreMetric;
}

/**
 * The request's MLContexts, checked before any work: their parameters within bounds, and
 * the known value (μ, σ) that the one-sample metrics compare with present in each.
 */
export function exploreContexts(metric: ExploreMetric, context: sml.v1.IExploreContext | null | undefined, bounds: Readonly<Record<string, ParameterBound>>): sml.v1.IMLContext[] {
  const contexts = checkedContexts(context, bounds);
  const key = KNOWN_VALUE[metric];
  for (const ctx of contexts) if (key && !(key in (ctx.extraParameters ?? {}))) throw smlError('MISSING_KNOWN_VALUE', { metric, key });
  return contexts;
}

/** One result map per MLContext (`KSVDMap.values`), from the project's summary. */
export function exploreMaps(view: ProjectView, metric: ExploreMetric, contexts: sml.v1.IMLContext[], pid: string): Promise<MetricMap[]> {
  return domain(() => contexts.flatMap((ctx) =>
    explore(view.summary, metric, { ...resolveContext(view.summary, ctx, pid, view.meta.categorySeparator || '$'), extra: ctx.extraParameters ?? {} }, { histograms: view.meta.histogramEnabled })));
}

import { answeringDomainErrors, smlError, type ParameterBound } from '@sml/core';
import type { sml } from '@sml/proto';
import { approximateKeys, EXPLORE_METRICS, explore, type ExploreMetric, type MetricMap } from '@sml/stats';
import { checkedContexts, resolveContext, type Resolved } from './resolve';
import { readAttributes, type ProjectSchema, type SummarySource } from './summaries';

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

/**
 * The project indexes a metric may read for these contexts: their attributes, and every
 * level of a categorical column one of them is a level of (chi2 and gain read a column's
 * levels together), recognised by name as the metrics do (explore/attributes.ts). Ascending.
 */
export function neededIndexes(schema: ProjectSchema, resolved: readonly Resolved[], separator: string): number[] {
  const names = schema.attributeNames;
  const bases = new Set<string>();
  const out = new Set<number>();
  for (const r of resolved) {
    for (const i of [...r.inputs, ...r.targets]) {
      out.add(i);
      const at = names[i].indexOf(separator);
      if (schema.attributeTypes[i] === 'B' && at > 0) bases.add(names[i].slice(0, at));
    }
  }
  if (bases.size > 0) {
    names.forEach((name, i) => {
      const at = name.indexOf(separator);
      if (schema.attributeTypes[i] === 'B' && at > 0 && bases.has(name.slice(0, at))) out.add(i);
    });
  }
  return [...out].sort((a, b) => a - b);
}

/** Explore's answer: its maps (`KSVDMap.values`) and, per map, its approximate keys. */
export interface ExploreMaps {
  maps: MetricMap[];
  approximate: string[][];
}

/**
 * One result map per MLContext (`KSVDMap.values`), with the keys of each that are
 * approximate. Names resolve against the project's attribute table; the metrics then read
 * the sub-summary of the attributes they use, or the whole summary when those are more than
 * a sub-summary may name (`maxAttributes`).
 */
export async function exploreMaps(source: SummarySource, metric: ExploreMetric, contexts: sml.v1.IMLContext[], pid: string, maxAttributes: number): Promise<ExploreMaps> {
  const schema = await source.schema();
  const separator = schema.meta.categorySeparator || '$';
  const resolved = contexts.map((ctx) => resolveContext(schema, ctx, pid, separator));
  const { view, toLocal } = await readAttributes(source, schema, neededIndexes(schema, resolved, separator), maxAttributes);
  const options = { histograms: view.meta.histogramEnabled, ...(view.projectIndexes ? { projectIndexes: view.projectIndexes } : {}) };
  return answeringDomainErrors({ pid }, () => {
    const out: ExploreMaps = { maps: [], approximate: [] };
    contexts.forEach((ctx, k) => {
      const input = { inputs: resolved[k].inputs.map(toLocal), targets: resolved[k].targets.map(toLocal), extra: ctx.extraParameters ?? {} };
      out.maps.push(...explore(view.summary, metric, input, options));
      out.approximate.push(...approximateKeys(view.summary, metric, input, options));
    });
    return out;
  });
}

/** The reply's `approximate`: one key list per map, left out when every value is exact. */
export function approximateField(approximate: string[][]): { approximate?: sml.v1.IKeyLists } {
  return approximate.some((keys) => keys.length > 0) ? { approximate: { entries: approximate.map((entries) => ({ entries })) } } : {};
}

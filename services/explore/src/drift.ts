import { answeringDomainErrors, checkName, checkParameters, smlError, type ParameterBound } from '@sml/core';
import type { sml } from '@sml/proto';
import { dataDrift, driftApproximateKeys, DRIFT_METRICS, type DriftMetric, type MetricMap } from '@sml/stats';
import { positiveInt } from './resolve';
import { readAttributes, type ProjectSchema, type SummarySource } from './summaries';

/** A dataDrift request's parameters, checked before any statistics are read. */
export interface DriftQuery {
  /** `driftPreferenceProjectName`: the baseline project. */
  baseline: string;
  /** `driftAnalysisProjectName`: the project compared with the baseline. */
  analysis: string;
  metric: DriftMetric;
  /** Attribute names; empty: every attribute both projects have. */
  names: string[];
  /** Attribute indexes (`inputAttributes`), of the baseline project. */
  indexes: string[];
  pcaComponents?: number;
}

/** The metrics that build a p × p matrix: at most `maxAttributes` attributes (SML_MAX_SUMMARY_ATTRIBUTES). */
const MATRIX_METRICS: readonly DriftMetric[] = ['global', 'pca_reconstruction_error'];

export function driftQuery(ctx: sml.v1.IMLContext | null | undefined, bounds: Readonly<Record<string, ParameterBound>>): DriftQuery {
  const extra = ctx?.extraParameters ?? {};
  checkParameters(extra, bounds);
  // SymetryML's drift can read a project embedded in a rolling window; SML has no such projects.
  const rolling = extra.rolling_window_embedded_project;
  if (rolling !== undefined && rolling !== '' && rolling !== 'false') throw smlError('ROLLING_WINDOW_UNSUPPORTED', {});
  const metric = extra.driftMetric ?? '';
  if (!(DRIFT_METRICS as readonly string[]).includes(metric)) throw smlError('UNKNOWN_DRIFT_METRIC', { metric });
  const project = (key: string) => {
    if (!extra[key]) throw smlError('INVALID_PARAMETER', { name: key, value: '', reason: 'the name of a project is required' });
    return checkName('project', extra[key]);
  };
  const pca = extra.pca_num_components;
  return {
    baseline: project('driftPreferenceProjectName'),
    analysis: project('driftAnalysisProjectName'),
    metric: metric as DriftMetric,
    names: ctx?.inputAttributeNames ?? [],
    indexes: ctx?.inputAttributes ?? [],
    ...(pca === undefined || pca === '' ? {} : { pcaComponents: positiveInt('pca_num_components', pca, 1) }),
  };
}

/** The attribute names a drift request compares: the ones it names (in both projects), else every attribute both have. */
function driftAttributes(q: DriftQuery, baseline: ProjectSchema, analysis: ProjectSchema): string[] {
  const byIndex = q.indexes.map((text) => {
    const i = Number(text);
    if (!Number.isInteger(i) || i < 0 || i >= baseline.attributeNames.length) throw smlError('UNKNOWN_ATTRIBUTE', { name: text, pid: q.baseline });
    return baseline.attributeNames[i];
  });
  const named = [...new Set([...byIndex, ...q.names])];
  for (const name of named) {
    if (baseline.indexOf(name) < 0) throw smlError('UNKNOWN_ATTRIBUTE', { name, pid: q.baseline });
    if (analysis.indexOf(name) < 0) throw smlError('UNKNOWN_ATTRIBUTE', { name, pid: q.analysis });
  }
  if (named.length > 0) return named;
  const common = baseline.attributeNames.filter((name) => analysis.indexOf(name) >= 0);
  if (common.length === 0) throw smlError('EXPLORE_INPUT', { detail: `Projects [${q.baseline}] and [${q.analysis}] have no attribute in common` });
  return common;
}

/**
 * The drift map (`{driftScore, <a>_drift…}`) and its approximate keys. Both projects'
 * attribute tables are read first (an unknown project answers 400 naming it), then the
 * sub-summaries of the compared attributes (or whole summaries past `maxAttributes`).
 */
export async function driftMap(baseline: SummarySource, analysis: SummarySource, q: DriftQuery, maxAttributes: number): Promise<{ map: MetricMap; approximate: string[] }> {
  const [sb, sa] = await Promise.all([baseline.schema(), analysis.schema()]);
  const names = driftAttributes(q, sb, sa);
  if (MATRIX_METRICS.includes(q.metric) && names.length > maxAttributes) {
    throw smlError('EXPLORE_INPUT', { detail: `Drift metric [${q.metric}] compares at most ${maxAttributes} attributes (SML_MAX_SUMMARY_ATTRIBUTES), got ${names.length}` });
  }
  const indexesIn = (schema: ProjectSchema) => names.map((n) => schema.indexOf(n)).sort((a, b) => a - b);
  const [vb, va] = await Promise.all([readAttributes(baseline, sb, indexesIn(sb), maxAttributes), readAttributes(analysis, sa, indexesIn(sa), maxAttributes)]);
  const sides = [
    { name: q.baseline, summary: vb.view.summary },
    { name: q.analysis, summary: va.view.summary },
  ] as const;
  return answeringDomainErrors({ pid: q.baseline }, () => ({
    map: dataDrift(sides[0], sides[1], names, q.metric, q.pcaComponents === undefined ? {} : { pcaComponents: q.pcaComponents }),
    approximate: driftApproximateKeys(sides[0], sides[1], names, q.metric),
  }));
}

import { checkName, smlError } from '@sml/core';
import type { sml } from '@sml/proto';
import { MAX_POWER_ABS, MAX_POWER_STEPS, POWER_DEFAULTS, clusterOptionsOf, clusterOptionsProblem, forestOptionsOf, forestOptionsProblem } from '@sml/stats';

export const PROJECT_TYPES = ['cpu', 'gpu', 'mgpuf', 'mgpud', 'sequence', 'partition', 'fed', 'dynamic'] as const;
export const HISTOGRAM_TYPES = ['streaming', 'exact'] as const;

const positiveInt = (v: string) => /^\d+$/.test(v.trim()) && Number(v) > 0;

function param(name: string, value: string, ok: boolean, reason: string): void {
  if (!ok) throw smlError('INVALID_PARAMETER', { name, value, reason });
}

/**
 * Validates a create request (API.md §4, STATS.md) and returns the project's metadata.
 * Invalid combinations answer 400 naming the parameter, except the seed's 500 for a
 * clustering warm-up that is not greater than the number of centroids.
 */
export function projectMetaFromCreate(user: string, req: sml.v1.IProjectCreateRequest, now = Date.now()): sml.v1.IProjectMeta {
  const pid = checkName('project', req.pid);
  const type = req.type || 'cpu';
  if (!(PROJECT_TYPES as readonly string[]).includes(type)) throw smlError('INVALID_PROJECT_TYPE', { type, expected: PROJECT_TYPES.join(', ') });
  const histogramType = req.histogramType || 'streaming';
  param('histogramType', histogramType, (HISTOGRAM_TYPES as readonly string[]).includes(histogramType), 'expected streaming or exact');
  const params: Record<string, string> = { ...(req.params ?? {}) };

  if (type === 'sequence') {
    const order = params.sml_project_order ?? '1';
    if (!positiveInt(order)) throw smlError('INVALID_SEQUENCE_ORDER', { order });
    params.sml_project_order = String(Number(order));
    const layout = (params.sml_sequence_layout ??= 'steps');
    param('sml_sequence_layout', layout, layout === 'steps' || layout === 'rows', 'expected steps or rows');
  }
  if (type === 'partition') {
    param('partitionSplit', params.partitionSplit ?? '', Boolean(params.partitionSplit?.trim()), 'partition projects need the name of the column to split on');
  }
  const time = params.km_time_column;
  const event = params.km_event_column;
  if (time !== undefined || event !== undefined || params.km_group_column !== undefined) {
    param('km_time_column', time ?? '', Boolean(time?.trim()), 'survival projects need km_time_column and km_event_column');
    param('km_event_column', event ?? '', Boolean(event?.trim()), 'survival projects need km_time_column and km_event_column');
    params.sml_project_km = 'true';
  }
  if (Object.keys(params).some((k) => k.startsWith('cluster_'))) {
    const centroids = params.cluster_num_centroids ?? '100';
    const warmup = params.cluster_warmup_period ?? '101';
    param('cluster_num_centroids', centroids, positiveInt(centroids), 'expected an integer greater than 0');
    param('cluster_warmup_period', warmup, positiveInt(warmup), 'expected an integer greater than 0');
    if (Number(warmup) <= Number(centroids)) {
      throw smlError('GENERIC_EXCEPTION', { detail: `cluster_warmup_period (${warmup}) must be greater than cluster_num_centroids (${centroids})` });
    }
    // The online micro-centroids (kmeans) cluster these C/B columns, colon separated (mandatory).
    const clusters = clusterOptionsOf(params);
    param('cluster_features', params.cluster_features ?? '', clusters !== null, 'clustering needs cluster_features: the attributes to cluster, colon separated');
    const problem = clusterOptionsProblem(clusters!);
    if (problem !== null) param('cluster_features', params.cluster_features ?? '', false, problem);
  }
  if (Object.keys(params).some((k) => k.startsWith('sml_project_power_'))) powerParams(params, type);
  const forest = forestOptionsOf(params);
  if (forest !== null) {
    // The online Mondrian forest (rf_classifier, rf_regressor, rf_anomaly); the message names the parameter at fault.
    const problem = forestOptionsProblem(forest);
    const name = /rf_[a-z_]+/.exec(problem ?? '')?.[0] ?? 'rf_type';
    if (problem !== null) param(name, params[name] ?? '', false, problem);
  }
  const separator = params.categorySeparator ?? '$';
  param('categorySeparator', separator, separator.length === 1, 'expected a single character');
  params.sml_project_is_freeze = 'false';
  params.sml_conditional_histograms = String(req.enableHistogram ?? false);

  return {
    pid,
    user,
    type,
    persist: req.persist ?? true,
    histogramEnabled: req.enableHistogram ?? false,
    histogramType,
    params,
    creationDate: now,
    lastModificationDate: now,
    frozen: false,
    categorySeparator: separator,
  };
}

/**
 * Power regression (SymetryML "About Power Regression Model"): the column whose Yeo-Johnson
 * transforms are tracked, and a grid of steps intervals from min to max. Defaults (undocumented
 * by SymetryML) are filled in, so smlInfo.params shows the grid; sml_project_power_ntot is the
 * number of power columns the project tracks (steps + 1).
 */
function powerParams(params: Record<string, string>, type: string): void {
  const column = params.sml_project_power_column ?? '';
  param('sml_project_power_column', column, column.trim() !== '', 'power regression needs the name of the column to transform');
  param('sml_project_power_column', column, type !== 'sequence', 'sequence projects do not keep power columns');
  const real = (v: string) => v.trim() !== '' && Number.isFinite(Number(v)) && Math.abs(Number(v)) <= MAX_POWER_ABS;
  const min = (params.sml_project_power_min ??= String(POWER_DEFAULTS.min));
  const max = (params.sml_project_power_max ??= String(POWER_DEFAULTS.max));
  const steps = (params.sml_project_power_steps ??= String(POWER_DEFAULTS.steps));
  param('sml_project_power_min', min, real(min), `expected a number in [-${MAX_POWER_ABS}, ${MAX_POWER_ABS}]`);
  param('sml_project_power_max', max, real(max), `expected a number in [-${MAX_POWER_ABS}, ${MAX_POWER_ABS}]`);
  param('sml_project_power_max', max, Number(min) < Number(max), `expected a number greater than sml_project_power_min (${min})`);
  param('sml_project_power_steps', steps, positiveInt(steps) && Number(steps) <= MAX_POWER_STEPS, `expected an integer in [1, ${MAX_POWER_STEPS}]`);
  params.sml_project_power_column = column.trim();
  params.sml_project_power_ntot = String(Number(steps) + 1);
}

import type { Summary } from '../summary';
import { anova } from './anova';
import { Attributes } from './attributes';
import { bivariate } from './bivariate';
import { chi2 } from './chi2';
import { ExploreInputError } from './errors';
import { ftest, ftestSigma } from './ftest';
import { gain, gainApproximate } from './gain';
import { ttest, ttestMu } from './ttest';
import { EXPLORE_METRICS, type ExploreMetric, type ExploreOptions, type MetricInput, type MetricMap } from './types';
import { univariate, univariateApproximate } from './univariate';
import { ztest, ztestMu, ztestProportions } from './ztest';

/**
 * One exploration (one MLContext) of the summary (STATS.md §3): one map, except `gain`, which
 * gives one map per input attribute (categorical levels grouped under their categorical).
 * Bad input throws ExploreInputError; degenerate data gives NaN values.
 */
export function explore(summary: Summary, metric: ExploreMetric, input: MetricInput, options: ExploreOptions): MetricMap[] {
  if (!(EXPLORE_METRICS as readonly string[]).includes(metric)) throw new ExploreInputError(`bad metric:[${metric}]`);
  const attributes = new Attributes(summary, options.projectIndexes);
  attributes.check([...input.inputs, ...input.targets]);
  switch (metric) {
    case 'uni':
      return [univariate(attributes, input, options)];
    case 'bi':
      return [bivariate(attributes, input)];
    case 'gain':
      return gain(attributes, input, options);
    case 'anova':
      return [anova(attributes, input)];
    case 'ztest':
      return [ztest(attributes, input)];
    case 'ztestp':
      return [ztestProportions(attributes, input)];
    case 'ztestmu':
      return [ztestMu(attributes, input)];
    case 'ttest':
      return [ttest(attributes, input)];
    case 'ttestmu':
      return [ttestMu(attributes, input)];
    case 'ftest':
      return [ftest(attributes, input)];
    case 'ftestsigma':
      return [ftestSigma(attributes, input)];
    case 'chi2':
      return [chi2(attributes, input)];
  }
}

/**
 * Per map `explore` gives for one MLContext (same order), its keys whose values are
 * approximate: `uni`'s extremes and median unless read from an exact histogram, `gain` of a
 * continuous input binned by a streaming histogram. The other metrics read only the exact
 * power sums and counts.
 */
export function approximateKeys(summary: Summary, metric: ExploreMetric, input: MetricInput, options: ExploreOptions): string[][] {
  const attributes = new Attributes(summary, options.projectIndexes);
  if (metric === 'uni') return [univariateApproximate(attributes, input, options)];
  if (metric === 'gain') return gainApproximate(attributes, input, options);
  return [[]];
}

#!/usr/bin/env node
import { serviceMain, type ServiceRuntime } from '@sml/bus';
import { JOB_RUNNER_CONFIG } from '@sml/jobs-client';
import { type ConfigKey, PARAMETER_LIMITS_CONFIG, STATS_KERNEL_CONFIG, statsKernels } from '@sml/core';
import { selectKernels } from '@sml/stats';
import { startExplore } from './explore';

/** What the explore service reads of the configuration (beside runService's own): its slice, validated at start-up. */
const EXPLORE_CONFIG = [
  'SML_MAX_SUMMARY_ATTRIBUTES',
  ...JOB_RUNNER_CONFIG,
  ...PARAMETER_LIMITS_CONFIG,
  ...STATS_KERNEL_CONFIG,
] as const satisfies readonly ConfigKey[];
export type ExploreRuntime = ServiceRuntime<(typeof EXPLORE_CONFIG)[number]>;

serviceMain('explore', EXPLORE_CONFIG, (rt) => {
  // This thread's statistics kernels; each worker thread selects its own (its *-worker.ts).
  selectKernels(statsKernels(rt.config));
  return startExplore(rt);
});

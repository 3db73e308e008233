#!/usr/bin/env node
import { serviceMain, type ServiceRuntime } from '@sml/bus';
import { JOB_RUNNER_CONFIG } from '@sml/jobs-client';
import { type ConfigKey, STATS_KERNEL_CONFIG, statsKernels } from '@sml/core';
import { SOURCE_READ_CONFIG } from '@sml/sources';
import { selectKernels } from '@sml/stats';
import { startEncoders } from './service';

/** What the encoders service reads of the configuration (beside runService's own): its slice, validated at start-up. */
const ENCODERS_CONFIG = [
  'SML_FILES_ROOT',
  'SML_MAX_ATTRIBUTES',
  'SML_MAX_ENCODERS_PER_CUSTOMER',
  'SML_MAX_ENCODER_PAGE_ROWS',
  'SML_MAX_ENCODER_VALUES',
  'SML_MAX_NAME_LENGTH',
  'SML_SOURCES_ALLOW_PRIVATE',
  ...SOURCE_READ_CONFIG,
  ...JOB_RUNNER_CONFIG,
  ...STATS_KERNEL_CONFIG,
] as const satisfies readonly ConfigKey[];
export type EncodersRuntime = ServiceRuntime<(typeof ENCODERS_CONFIG)[number]>;

serviceMain('encoders', ENCODERS_CONFIG, (rt) => {
  // This thread's statistics kernels; each worker thread selects its own (its *-worker.ts).
  selectKernels(statsKernels(rt.config));
  return startEncoders(rt);
});

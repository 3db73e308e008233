#!/usr/bin/env node
import { serviceMain, type ServiceRuntime } from '@sml/bus';
import { JOB_RUNNER_CONFIG } from '@sml/jobs-client';
import { type ConfigKey, PARAMETER_LIMITS_CONFIG, STATS_KERNEL_CONFIG, statsKernels } from '@sml/core';
import { SOURCE_READ_CONFIG } from '@sml/sources';
import { selectKernels } from '@sml/stats';
import { startProjects } from './projects';

/** What the projects service reads of the configuration (beside runService's own): its slice, validated at start-up. */
const PROJECTS_CONFIG = [
  'SML_FILES_ROOT',
  'SML_FUSION_CELL_TIMEOUT_MS',
  'SML_FUSION_MIN_REFRESH_MS',
  'SML_MAX_ATTRIBUTES',
  'SML_MAX_BODY_BYTES',
  'SML_MAX_DATA_SOURCES_PER_CUSTOMER',
  'SML_MAX_EXPORT_BYTES',
  'SML_MAX_NAME_LENGTH',
  'SML_MAX_PARTITIONS',
  'SML_MAX_PREDICT_REPLY_CHARS',
  'SML_MAX_PREDICT_STEPS',
  'SML_MAX_PROJECTS_PER_CUSTOMER',
  'SML_MAX_SELECTION_CANDIDATES',
  'SML_MAX_SELECT_DS_ROWS',
  'SML_MAX_SEQUENCE_NGRAMS',
  'SML_MAX_SUMMARY_ATTRIBUTES',
  'SML_ONLINE_MODEL_THREADS',
  'SML_PREDICT_THREADS',
  'SML_PREDICT_THREAD_STEPS',
  'SML_PROJECT_LEASE_MS',
  'SML_REPLICA_ID',
  'SML_SELECTION_TIME_BUDGET_MS',
  'SML_SNAPSHOT_EVERY_BATCHES',
  'SML_SNAPSHOT_EVERY_MS',
  'SML_SOURCES_ALLOW_PRIVATE',
  ...SOURCE_READ_CONFIG,
  ...JOB_RUNNER_CONFIG,
  ...PARAMETER_LIMITS_CONFIG,
  ...STATS_KERNEL_CONFIG,
] as const satisfies readonly ConfigKey[];
export type ProjectsRuntime = ServiceRuntime<(typeof PROJECTS_CONFIG)[number]>;

serviceMain('projects', PROJECTS_CONFIG, (rt) => {
  // This thread's statistics kernels; each worker thread selects its own (its *-worker.ts).
  selectKernels(statsKernels(rt.config));
  return startProjects(rt);
});

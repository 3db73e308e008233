#!/usr/bin/env node
import { serviceMain, type ServiceRuntime } from '@sml/bus';
import { type ConfigKey } from '@sml/core';
import { startJobs } from './jobs';

/** What the jobs service reads of the configuration (beside runService's own): its slice, validated at start-up. */
const JOBS_CONFIG = [
  'SML_JOB_HEARTBEAT_MS',
  'SML_JOB_LEASE_MS',
  'SML_JOB_POLL_WAIT_MS',
  'SML_JOB_TTL_MS',
] as const satisfies readonly ConfigKey[];
export type JobsRuntime = ServiceRuntime<(typeof JOBS_CONFIG)[number]>;

serviceMain('jobs', JOBS_CONFIG, startJobs);

import { sml } from '@sml/proto';
import { defineContracts } from './contract';

/** The jobs service: every job of every service. */
export const jobs = defineContracts('jobs', {
  list: { request: sml.v1.JobListRequest, reply: sml.v1.JobListReply, errors: ['JOBS_ALL_NOT_ROOT'] },
  get: { request: sml.v1.JobGetRequest, reply: sml.v1.JobGetReply, errors: ['NO_SUCH_JOB', 'JOB_CANCELLED', 'JOB_LEASE_EXPIRED'] },
  cancel: { request: sml.v1.JobCancelRequest, reply: sml.v1.Empty, errors: ['NO_SUCH_JOB', 'JOB_ALREADY_DONE'] },
  /** Internal: A service's JobRunner, for each job it submits. */
  create: { request: sml.v1.JobCreateRequest, reply: sml.v1.JobCreateReply, errors: [], internal: true },
});

/** The operations of the jobs service. */
export type JobsOp = keyof typeof jobs;

import { catalogue } from '@sml/core';
import { subjects } from '@sml/bus';
import * as proto from '@sml/proto';
import { sml } from '@sml/proto';
import { defineRoute } from '../route';
import { boolParam, jobInfo, userParam, z } from '../schemas';
import { replyValues } from '../envelope';

const jobParams = userParam.extend({ id: z.string().regex(/^\d{1,15}$/, 'job id must be a positive integer') });

/** Decodes a finished job's result: a message of package sml.v1 named by `typeName`. */
export function resultValues(result: sml.v1.IJobResult): Record<string, unknown> {
  const typeName = String(result.typeName ?? '').replace(/^sml\.v1\./, '');
  const type = (proto.sml.v1 as unknown as Record<string, Parameters<typeof replyValues>[0]>)[typeName];
  if (!type) return {};
  return replyValues(type, type.decode(result.payload ?? new Uint8Array()));
}

export const jobRoutes = [
  defineRoute({
    method: 'get', path: '/:user/jobs', operationId: 'listJobs', tags: ['jobs'],
    summary: "List the caller's jobs (all=true: every customer's, root only)",
    service: 'jobs', subject: subjects.jobs.list, request: sml.v1.JobListRequest, reply: sml.v1.JobListReply,
    params: userParam, query: z.object({ all: boolParam.optional() }),
    values: z.object({ jobinfolist: z.array(jobInfo) }),
    success: { status: 200, description: 'values.jobinfolist' }, errors: ['JOBS_ALL_NOT_ROOT'],
    toRequest: ({ caller, query }) => ({ caller, all: query.all === true }),
  }),
  defineRoute({
    method: 'get', path: '/:user/jobs/:id', operationId: 'getJob', tags: ['jobs'],
    summary: 'Read a job: 202 running (values.jobinfo), 200 finished (the result), failed → 500 with its error',
    service: 'jobs', subject: subjects.jobs.get, request: sml.v1.JobGetRequest, reply: sml.v1.JobGetReply,
    description: 'A queued or running job is answered when its record changes (finished, failed, started, progress), or after SML_JOB_POLL_WAIT_MS (25 ms by default), whichever comes first: a short job\'s end comes back with the poll waiting for it.',
    params: jobParams,
    success: { status: 200, description: `'${catalogue.JOB_FINISHED.message}' with the job's result as values; 202 '${catalogue.JOB_RUNNING.message}' with values.jobinfo` },
    errors: ['NO_SUCH_JOB', 'JOB_CANCELLED', 'JOB_LEASE_EXPIRED'],
    toRequest: ({ caller, params }) => ({ caller, jobId: Number(params.id) }),
    present: (reply) => ({
      status: reply.status!,
      values: reply.result ? resultValues(reply.result) : reply.jobinfo ? { jobinfo: replyValues(sml.v1.JobGetReply, reply).jobinfo } : {},
    }),
  }),
  defineRoute({
    method: 'delete', path: '/:user/jobs/:id', operationId: 'cancelJob', tags: ['jobs'],
    summary: 'Cancel a queued or running job',
    service: 'jobs', subject: subjects.jobs.cancel, request: sml.v1.JobCancelRequest, reply: sml.v1.Empty,
    params: jobParams,
    success: { status: 200, description: 'cancellation requested; the job then reads 500 Job was cancelled' },
    errors: ['NO_SUCH_JOB', 'JOB_ALREADY_DONE'],
    toRequest: ({ caller, params }) => ({ caller, jobId: Number(params.id) }),
  }),
];

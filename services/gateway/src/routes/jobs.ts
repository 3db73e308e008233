import { catalogue } from '@sml/core';
import { contracts } from '@sml/bus';
import * as proto from '@sml/proto';
import { sml } from '@sml/proto';
import { defineRoute } from '../route';
import { boolParam, jobInfo, userParam, z } from '../schemas';
import { replyValues } from '../envelope';

const ops = contracts.jobs;

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
    contract: ops.list,
    params: userParam, query: z.object({ all: boolParam.optional() }),
    values: z.object({ jobinfolist: z.array(jobInfo) }),
    success: { status: 200, description: 'values.jobinfolist' },
    toRequest: ({ caller, query }) => ({ caller, all: query.all === true }),
  }),
  defineRoute({
    method: 'get', path: '/:user/jobs/:id', operationId: 'getJob', tags: ['jobs'],
    summary: 'Read a job: 202 running (values.jobinfo), 200 finished (the result), failed → 500 with its error',
    contract: ops.get,
    description: 'A queued or running job is answered when its record changes (finished, failed, started, progress), or after SML_JOB_POLL_WAIT_MS (25 ms by default), whichever comes first: a short job\'s end comes back with the poll waiting for it.',
    params: jobParams,
    success: { status: 200, description: `'${catalogue.JOB_FINISHED.message}' with the job's result as values; 202 '${catalogue.JOB_RUNNING.message}' with values.jobinfo` },
    toRequest: ({ caller, params }) => ({ caller, jobId: Number(params.id) }),
    present: (reply) => ({
      status: reply.status!,
      values: reply.result ? resultValues(reply.result) : reply.jobinfo ? { jobinfo: replyValues(sml.v1.JobGetReply, reply).jobinfo } : {},
    }),
  }),
  defineRoute({
    method: 'delete', path: '/:user/jobs/:id', operationId: 'cancelJob', tags: ['jobs'],
    summary: 'Cancel a queued or running job',
    contract: ops.cancel,
    params: jobParams,
    success: { status: 200, description: 'cancellation requested; the job then reads 500 Job was cancelled' },
    toRequest: ({ caller, params }) => ({ caller, jobId: Number(params.id) }),
  }),
];

import { JOB_EVENTS_STREAM, JOB_IDS_STREAM, consumeDurable, contracts, ensureStream, kvBucket, okStatus, subjects } from '@sml/bus';
import { catalogue, smlError } from '@sml/core';
import { sml } from '@sml/proto';
import { LeaseKeeper } from './lease';
import { JobStore } from './store';
import type { JobsRuntime } from './main';

const ops = contracts.jobs;
const FOLD_CONSUMER = 'jobs-fold';
/** What `GET /{user}/jobs/{id}` of a failed job answers (API.md §10). */
const FAILED_JOB_STATUS = 500;

/** The jobs service: allocates ids, folds job events into records, expires silent jobs' leases, answers get/list/cancel. */
export async function startJobs({ nc, service, log, config }: JobsRuntime): Promise<{ onStop: () => Promise<void> }> {
  const JOB_TTL_MS = config.SML_JOB_TTL_MS;
  await ensureStream(nc, { name: JOB_IDS_STREAM, subjects: ['sml.jobids'], maxAgeMs: 24 * 3600 * 1000 });
  await ensureStream(nc, { name: JOB_EVENTS_STREAM, subjects: [subjects.jobEvents], maxAgeMs: JOB_TTL_MS });
  const store = new JobStore(nc, await kvBucket(nc, 'sml_jobs', { ttl: JOB_TTL_MS }), { ttlMs: JOB_TTL_MS });
  await store.start();

  const folding = await consumeDurable(nc, { stream: JOB_EVENTS_STREAM, durable: FOLD_CONSUMER, log }, async (m) => {
    await store.fold(sml.v1.JobEvent.decode(m.data), m.seq);
  });
  // Started after the store and the fold: every unfinished job gets a whole lease from now.
  const leases = new LeaseKeeper(nc, store, { leaseMs: config.SML_JOB_LEASE_MS, foldConsumer: FOLD_CONSUMER, log });
  leases.start();
  if (config.SML_JOB_LEASE_MS < 3 * config.SML_JOB_HEARTBEAT_MS) {
    log.warn({ leaseMs: config.SML_JOB_LEASE_MS, heartbeatMs: config.SML_JOB_HEARTBEAT_MS }, 'SML_JOB_LEASE_MS is under 3 heartbeats: a slow heartbeat may fail a live job');
  }

  service.handle(ops.create, async (req, { caller }) => ({
    jobId: await store.create(caller.user!, req),
  }));

  service.handle(ops.get, async (req, { caller }) => {
    const record = await store.get(caller.user!, Number(req.jobId), config.SML_JOB_POLL_WAIT_MS);
    if (!record) throw smlError('NO_SUCH_JOB');
    switch (record.state) {
      case 'finished':
        return { status: { code: catalogue.JOB_FINISHED.status, message: catalogue.JOB_FINISHED.message }, result: record.result };
      case 'failed':
        // API.md §10 (the seed): a failed job reads 500 with its error, whatever failed it. The
        // failure's message and errorCode are kept (a data source's file, line and column; the
        // bound that was passed); its own status (a 400 for bad data, 413 for a result too
        // large) is what the synchronous request answers, not the job.
        return { status: { ...record.status, code: FAILED_JOB_STATUS } };
      default:
        return { status: { code: catalogue.JOB_RUNNING.status, message: catalogue.JOB_RUNNING.message }, jobinfo: record.info };
    }
  });

  service.handle(ops.list, (req, { caller }) => {
    if (req.all && !caller.root) throw smlError('JOBS_ALL_NOT_ROOT');
    return { jobinfolist: store.list(req.all ? undefined : caller.user!) };
  });

  service.handle(ops.cancel, async (req, { caller }) => {
    const jobId = Number(req.jobId);
    const record = await store.get(caller.user!, jobId);
    if (!record) throw smlError('NO_SUCH_JOB');
    if (record.info?.isDone) throw smlError('JOB_ALREADY_DONE', { jobId });
    if (record.cancelSubject) nc.publish(record.cancelSubject, new TextEncoder().encode(String(jobId)));
    return { status: okStatus('JOB_CANCEL_REQUESTED', { jobId }) };
  });

  log.info('jobs endpoints registered');
  return {
    onStop: async () => {
      leases.stop();
      await folding.stop();
      store.stop();
    },
  };
}

import { contracts, okStatus, type BusService } from '@sml/bus';
import { checkName, smlError, type Logger } from '@sml/core';
import { executorOf, JobRunner, jobResult } from '@sml/jobs-client';
import { sml } from '@sml/proto';
import { readLimitsOf } from '@sml/sources';
import { Encoders, frameOf } from './encoders';
import { checkSpark, dsInfoOf, isSpark, learnDataSource } from './learnds';
import { EncoderStore } from './store';
import type { EncodersRuntime } from './main';

const ops = contracts.encoders;
const encoderOf = (name: string | null | undefined) => checkName('encoder', name);

/**
 * The encoders service (API.md §3; bus identity `encoders`). Wiring only: decode, call the
 * domain (encoders.ts), encode. State: KV sml_encoders (records) and object store sml_encoder_stats (statistics).
 */
export async function startEncoders({ nc, service, client, config, log }: EncodersRuntime): Promise<{ onStop: () => Promise<void> }> {
  const store = await EncoderStore.open(nc);
  const encoders = new Encoders(store, {
    maxValues: config.SML_MAX_ENCODER_VALUES,
    maxEncoders: config.SML_MAX_ENCODERS_PER_CUSTOMER,
    maxPageRows: config.SML_MAX_ENCODER_PAGE_ROWS,
    maxKeyLength: config.SML_MAX_NAME_LENGTH,
  });
  // Statistics objects left by a write or delete that stopped halfway.
  void store.sweep().then((n) => n > 0 && log.info({ objects: n }, 'orphaned encoder statistics removed'), (err: unknown) => log.warn({ err }, 'encoder statistics sweep failed'));

  registerEncoders(service, encoders, log);

  const runner = new JobRunner(nc, client, executorOf('encoders', config), 'encoders', log, { heartbeatMs: config.SML_JOB_HEARTBEAT_MS });
  runner.start();

  // Always a job for a non-Spark source (a missing file or target fails the job, 500);
  // a Spark DSInfo is checked first (400) but cannot be read here.
  service.handle(ops.learnds, async (req, { caller }) => {
    const user = caller.user!;
    const name = encoderOf(req.encoderName);
    const ds = dsInfoOf(req.dsInfoJson ?? '');
    const staging = await encoders.staging(user, name);
    if (isSpark(ds)) checkSpark(ds, staging.options.target, config.SML_MAX_ATTRIBUTES);
    const jobId = await runner.submit(caller, 'encoderLearnDs', { ds_name: ds.name, encoder: name }, async (job) => {
      const { signal } = job;
      if (isSpark(ds)) throw smlError('GENERIC_EXCEPTION', { detail: 'Spark data sources are not available in this build' });
      const ctx = { user, filesRoot: config.SML_FILES_ROOT, signal, timeoutMs: config.SML_SOURCE_TIMEOUT_MS, allowPrivate: config.SML_SOURCES_ALLOW_PRIVATE, limits: readLimitsOf(config, 'job') };
      await learnDataSource(ds, staging, ctx, { maxValues: config.SML_MAX_ENCODER_VALUES, maxKeyLength: config.SML_MAX_NAME_LENGTH }, (current, maximum) => job.progress(current, maximum));
      if (signal.aborted) throw smlError('JOB_CANCELLED');
      await encoders.merge(user, name, staging);
      return jobResult(sml.v1.Empty, { status: okStatus() });
    });
    return { status: okStatus('JOB_CREATED'), jobId };
  });

  log.info('encoders endpoints registered');
  return { onStop: () => Promise.resolve(runner.stop()) };
}

/** Every operation but learnds (a job): each decodes, calls the domain, encodes. */
function registerEncoders(service: BusService, encoders: Encoders, log: Logger): void {
  service.handle(ops.create, async (req, { caller }) => ({
    status: await encoders.create(caller.user!, req),
  }));

  service.handle(ops.list, async (_req, { caller }) => ({
    stringList: { values: await encoders.list(caller.user!) },
  }));

  service.handle(ops.learn, async (req, { caller }) => {
    await encoders.learn(caller.user!, encoderOf(req.encoderName), frameOf(req.frame));
    return { status: okStatus() };
  });

  service.handle(ops.stats, (req, { caller }) =>
    encoders.stats(caller.user!, encoderOf(req.encoderName)));

  service.handle(ops.keyvals, (req, { caller }) =>
    encoders.keyValues(caller.user!, encoderOf(req.encoderName), req.key ?? '', req.offset ?? 0, req.limit ?? 0));

  service.handle(ops.setValues, async (req, { caller }) => {
    await encoders.setValues(caller.user!, encoderOf(req.encoderName), frameOf(req.frame), req.key ?? '');
    return { status: okStatus() };
  });

  service.handle(ops.createKeyValues, async (req, { caller }) => {
    await encoders.setValues(caller.user!, encoderOf(req.encoderName), frameOf(req.frame));
    return { status: okStatus() };
  });

  service.handle(ops.delete, async (req, { caller }) => {
    const name = encoderOf(req.encoderName);
    await encoders.delete(caller.user!, name);
    return { status: okStatus('ENCODER_DELETED', { encoder: name }) };
  });

  // From the projects service (encoderAssign, and encoding a project's S/L columns).
  service.handle(ops.assign, async (req, { caller }) => {
    const name = encoderOf(req.encoderName);
    const pid = checkName('project', req.pid);
    await encoders.assign(caller.user!, name, pid, req.detach === true);
    return { status: okStatus('ENCODER_ASSIGNED', { encoder: name, pid }) };
  });

  service.handle(ops.state, (req, { caller }) =>
    encoders.state(caller.user!, encoderOf(req.encoderName), Number(req.knownRevision ?? 0), req.only ?? []));

  // From the gateway, deleting a customer (root only): every encoder it had.
  service.handle(ops.purgeCustomer, async (req, { caller }) => {
    if (!caller.root) throw smlError('ROOT_ONLY', { action: 'purge customers' });
    const user = checkName('customer', req.cid);
    log.info({ user, encoders: await encoders.purge(user) }, 'customer encoders purged');
    return {};
  });
}

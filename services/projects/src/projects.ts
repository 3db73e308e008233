import { executorOf, JobRunner, jobResult, kvBucket, okStatus, subjects, type ServiceRuntime } from '@sml/bus';
import { createHash } from 'node:crypto';
import { StorageType } from 'nats';
import { checkParameters, clip, nameToken, parameterBounds, smlError, checkName } from '@sml/core';
import { sml } from '@sml/proto';
import { projectMetaFromCreate } from './create';
import { batchOf } from './project';
import { smlInfo } from './info';
import { summaryParts } from './parts';
import { ModelStore } from './models';
import { registerModelEndpoints } from './model-endpoints';
import { registerEvtEndpoints } from './evt-endpoints';
import { ProjectRegistry } from './registry';
import { ProjectStore } from './store';

/** How long an Idempotency-Key is remembered: the log stream's duplicate window. */
const IDEMPOTENCY_WINDOW_MS = 2 * 60_000;

/**
 * The projects service: project lifecycle and learning (API.md §4). Thin: decode, call the
 * registry and the project, encode. Durability rules live in the registry and the store.
 */
export async function startProjects({ nc, service, client, config, log }: ServiceRuntime): Promise<{ onStop: () => Promise<void> }> {
  const store = await ProjectStore.open(nc);
  const bounds = parameterBounds(config);
  const registry = new ProjectRegistry(store, log, {
    snapshotEveryBatches: config.SML_SNAPSHOT_EVERY_BATCHES,
    snapshotEveryMs: config.SML_SNAPSHOT_EVERY_MS,
    limits: {
      maxAttributes: config.SML_MAX_ATTRIBUTES,
      state: { maxSequenceEntries: config.SML_MAX_SEQUENCE_NGRAMS, maxPartitions: config.SML_MAX_PARTITIONS, maxNameLength: config.SML_MAX_NAME_LENGTH },
      bounds,
    },
    maxProjectsPerCustomer: config.SML_MAX_PROJECTS_PER_CUSTOMER,
  });
  registry.start();
  // Idempotency-Key → fingerprint of the batch it first carried, for the JetStream
  // duplicate window: the same key with another body is refused instead of dropped.
  const idempotency = await kvBucket(nc, 'sml_idempotency', { ttl: IDEMPOTENCY_WINDOW_MS, storage: StorageType.File });
  const dss = await kvBucket(nc, 'sml_dss');
  const models = await ModelStore.open(nc);
  const runner = new JobRunner(nc, client, executorOf('projects', config), 'projects', log);
  runner.start();
  const s = (op: string) => subjects.projects(op);
  const pidOf = (pid: string | null | undefined) => checkName('project', pid);

  const info = async (user: string, pid: string, hash: boolean): Promise<sml.v1.IProjectInfoReply> => {
    const wasLoaded = registry.isLoaded(user, pid);
    const p = await registry.with(user, pid, (q) => q);
    return { smlInfo: smlInfo(p, { hash, wasLoaded, models: await models.list(user, pid) }) };
  };

  /**
   * One learn/forget batch: validated (nothing changes on a 400), then sent to the log and
   * added to the summary while it travels; 200 only once the log has it. If the log refuses
   * it, or already had it (a retried Idempotency-Key), the project is reloaded from its
   * durable state, so memory never holds a batch the log does not (or holds it twice).
   */
  const learnBatch = (user: string, req: sml.v1.ILearnRequest, op: 'learn' | 'forget'): Promise<sml.v1.ILearnReply> => {
    const pid = pidOf(req.pid);
    return registry.with(user, pid, async (p) => {
      if (p.meta.frozen) throw smlError('PROJECT_FROZEN', { pid });
      if (req.columns && p.summary.needsCells) return { needsJson: true };
      const t0 = performance.now();
      const change = p.prepare(op, batchOf(req));
      const t1 = performance.now();
      const reply = change.lenient ? { learnReport: change.report } : {};
      if (p.memoryOnly) {
        change.commit();
        p.logged(0);
        return reply;
      }
      const entry = logEntry(op, req);
      const key = req.idempotencyKey ? idempotencyRecord(user, pid, req.idempotencyKey, entry) : undefined;
      if (key) {
        const first = await idempotency.get(key.name).catch(() => null);
        if (first && first.operation === 'PUT') {
          if (first.string() !== key.fingerprint) throw smlError('IDEMPOTENCY_KEY_REUSED', { key: clip(req.idempotencyKey!) });
          return reply; // the first answer: that batch is in the log already
        }
      }
      // The log keeps the batch as it came. The message id names key and content, so the
      // stream's own de-duplication can never drop a different batch under a reused key.
      const appended = store.append(user, pid, entry, key ? `${key.name}.${key.fingerprint}` : undefined);
      appended.catch(() => undefined); // awaited below; the summary is updated meanwhile
      // One turn of the event loop, so the batch is on its way to NATS before the CPU-bound commit.
      await new Promise((resolve) => setImmediate(resolve));
      try {
        change.commit();
      } catch (err) {
        // Not expected (commit does not validate): memory may be half-changed, so reload what is durable.
        registry.evict(user, pid);
        throw err;
      }
      const t2 = performance.now();
      let ack: { seq: number; duplicate: boolean };
      try {
        ack = await appended;
      } catch (err) {
        registry.evict(user, pid);
        throw smlError('NOT_PERSISTED', { detail: (err as Error).message }, err);
      }
      if (ack.duplicate) {
        // Already logged by an earlier attempt: reload the durable state, which has it once.
        registry.evict(user, pid);
        return reply;
      }
      p.logged(ack.seq);
      if (key) await idempotency.put(key.name, key.fingerprint).catch((err) => log.warn({ err, pid }, 'idempotency record not kept'));
      const t3 = performance.now();
      await registry.afterBatch(p);
      log.debug({ pid, op, rows: change.report.rowsLearned, prepareMs: t1 - t0, commitMs: t2 - t1, logWaitMs: t3 - t2, snapshotMs: performance.now() - t3 }, 'batch learned');
      return reply;
    });
  };

  /**
   * The KV key of an Idempotency-Key (customer, project and a hash of the key: KV keys have
   * a restricted alphabet) and the fingerprint of the batch: operation and encoded frame.
   */
  const idempotencyRecord = (user: string, pid: string, idempotencyKey: string, entry: sml.v1.IProjectLogEntry) => ({
    name: `${ProjectStore.key(user, pid)}.${createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 32)}`,
    fingerprint: createHash('sha256').update(sml.v1.ProjectLogEntry.encode(entry).finish()).digest('hex'),
  });

  /** The log entry of a batch: the frame in the form the request carried it. */
  const logEntry = (op: 'learn' | 'forget', req: sml.v1.ILearnRequest): sml.v1.IProjectLogEntry =>
    req.columns ? { op, columns: req.columns } : req.frameJson?.length ? { op, frameJson: req.frameJson } : { op, frame: req.frame };

  const learnEndpoint = (op: 'learn' | 'forget') =>
    service.endpoint(s(op), sml.v1.LearnRequest, sml.v1.LearnReply, async (req, { caller }) => {
      if (!req.async) return learnBatch(caller.user!, req, op);
      const pid = pidOf(req.pid);
      // 400 now for an unknown project; the JSON now if the job would need it.
      const needsJson = await registry.with(caller.user!, pid, (p) => Boolean(req.columns) && p.summary.needsCells);
      if (needsJson) return { needsJson };
      const jobId = await runner.submit(caller, 'learn', { p_id: pid, update_type: op }, async () =>
        jobResult(sml.v1.LearnReply, { status: okStatus(), ...(await learnBatch(caller.user!, req, op)) }));
      return { status: okStatus('JOB_CREATED'), jobId };
    });

  service.endpoint(s('create'), sml.v1.ProjectCreateRequest, sml.v1.Empty, async (req, { caller }) => {
    // The seed's own checks (and messages) first, then the bounds.
    const meta = projectMetaFromCreate(caller.user!, req);
    checkParameters(req.params, bounds);
    await registry.create(meta);
    return { status: okStatus('PROJECT_CREATED', { pid: meta.pid }) };
  });

  service.endpoint(s('info'), sml.v1.ProjectRequest, sml.v1.ProjectInfoReply, async (req, { caller }) => {
    const pid = pidOf(req.pid);
    const user = caller.user!;
    if (!req.async) return info(user, pid, req.hash === true);
    await registry.with(user, pid, () => undefined);
    const jobId = await runner.submit(caller, 'projectInfo', { p_id: pid }, async () =>
      jobResult(sml.v1.ProjectInfoReply, { status: okStatus(), ...(await info(user, pid, req.hash === true)) }));
    return { status: okStatus('JOB_CREATED'), jobId };
  });

  service.endpoint(s('list'), sml.v1.ProjectListRequest, sml.v1.ProjectListReply, async (_req, { caller }) => ({
    stringList: { values: await registry.list(caller.user!) },
  }));

  service.endpoint(s('delete'), sml.v1.ProjectRequest, sml.v1.Empty, async (req, { caller }) => {
    const pid = pidOf(req.pid);
    await registry.delete(caller.user!, pid);
    await models.deleteAll(caller.user!, pid);
    return { status: okStatus('PROJECT_DELETED', { pid }) };
  });

  learnEndpoint('learn');
  learnEndpoint('forget');

  service.endpoint(s('save'), sml.v1.ProjectRequest, sml.v1.Empty, async (req, { caller }) => {
    const pid = pidOf(req.pid);
    await registry.with(caller.user!, pid, async (p) => {
      if (p.memoryOnly) throw smlError('PROJECT_NOT_PERSISTENT', { pid });
      await registry.save(p);
    });
    return { status: okStatus('PROJECT_SAVED', { pid }) };
  });

  service.endpoint(s('unload'), sml.v1.ProjectRequest, sml.v1.Empty, async (req, { caller }) => {
    const pid = pidOf(req.pid);
    await registry.with(caller.user!, pid, (p) => {
      if (p.memoryOnly) throw smlError('PROJECT_NOT_PERSISTENT', { pid });
    });
    await registry.unload(caller.user!, pid);
    return { status: okStatus('PROJECT_UNLOADED', { pid }) };
  });

  for (const [op, frozen] of [['freeze', true], ['unfreeze', false]] as const) {
    service.endpoint(s(op), sml.v1.ProjectRequest, sml.v1.Empty, async (req, { caller }) => {
      const pid = pidOf(req.pid);
      await registry.with(caller.user!, pid, async (p) => {
        p.meta.frozen = frozen;
        if (!p.memoryOnly) await store.putMeta(p.meta);
      });
      return { status: okStatus(frozen ? 'PROJECT_FROZEN_OK' : 'PROJECT_UNFROZEN', { pid }) };
    });
  }

  service.endpoint(s('histogramEnable'), sml.v1.HistogramEnableRequest, sml.v1.Empty, async (req, { caller }) => {
    const pid = pidOf(req.pid);
    await registry.with(caller.user!, pid, async (p) => {
      p.meta.histogramEnabled = req.enable === true;
      if (!p.memoryOnly) await store.putMeta(p.meta);
    });
    return { status: okStatus('HISTOGRAMS_SWITCHED', { pid, state: req.enable ? 'enabled' : 'disabled' }) };
  });

  service.endpoint(s('merge'), sml.v1.MergeRequest, sml.v1.Empty, async (req, { caller }) => {
    const pid = pidOf(req.pid);
    const other = checkName('project', req.otherProjectName);
    if (other === pid) throw smlError('MERGE_SELF', { pid });
    const user = caller.user!;
    const source = await registry.with(user, other, (o) => o.summary.clone());
    await registry.with(user, pid, async (p) => {
      p.merge(source, other);
      // A merge is not in the log: it is made durable by a snapshot before answering.
      await registry.save(p);
    });
    return { status: okStatus('PROJECT_MERGED', { pid, other }) };
  });

  service.endpoint(s('summary'), sml.v1.SummaryRequest, sml.v1.SummaryReply, async (req, { caller }) => {
    const pid = pidOf(req.pid);
    return registry.with(caller.user!, pid, (p) => summaryParts(p, req));
  });

  service.endpoint(s('dsLearn'), sml.v1.DsLearnRequest, sml.v1.Empty, async (req, { caller }) => {
    const pid = pidOf(req.pid);
    await registry.with(caller.user!, pid, () => undefined);
    const ds = checkName('data source', req.ds);
    const entry = await dss.get(`${nameToken(caller.user!)}.${nameToken(ds)}`);
    if (!entry || entry.operation !== 'PUT') throw smlError('DS_NOT_FOUND', { ds });
    // Nothing registers data sources yet (no dss/create; README "Known gaps"), so this is
    // reachable only if another writer filled sml_dss: say so rather than pretend.
    throw smlError('GENERIC_EXCEPTION', { detail: `learning from data source [${ds}] is not available in this build yet` });
  });

  // Root only (the users service, when a customer is deleted): every project of `cid`, with
  // its log, snapshot, models and quarantined batches.
  service.endpoint(s('purgeCustomer'), sml.v1.UserRequest, sml.v1.Empty, async (req, { caller }) => {
    if (!caller.root) throw smlError('ROOT_ONLY', { action: 'purge customers' });
    const cid = checkName('customer', req.cid);
    for (const pid of await registry.list(cid)) {
      await registry.delete(cid, pid).catch((err) => log.warn({ err, cid, pid }, 'purge: project not deleted'));
      await models.deleteAll(cid, pid);
    }
    return {};
  });

  service.endpoint(s('log'), sml.v1.ProjectRequest, sml.v1.ProjectLogReply, async (req, { caller }) => {
    const pid = pidOf(req.pid);
    await registry.with(caller.user!, pid, () => undefined); // 400 for an unknown project; loading quarantines
    return { quarantined: await store.quarantined(caller.user!, pid) };
  });
  service.reportStats(s('log'), () => ({ quarantinedBatches: registry.quarantinedTotal }));

  registerModelEndpoints({ service, registry, runner, models, bounds, selectionBudgetMs: config.SML_SELECTION_TIME_BUDGET_MS });
  registerEvtEndpoints({ service, registry, models, bounds });

  return {
    onStop: async () => {
      runner.stop();
      await registry.stop();
    },
  };
}

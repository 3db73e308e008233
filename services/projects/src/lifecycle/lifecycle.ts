import { checkParameters, SmlError, smlError, type Logger, type ParameterBound } from '@sml/core';
import type { sml } from '@sml/proto';
import { projectMetaFromCreate } from './create';
import { smlInfo } from './info';
import { checkSummaryRequest, summaryParts } from './parts';
import type { ProjectRegistry } from './registry';
import type { Shards } from '../replicas/shards';
import type { ModelStorage, ProjectMetas, QuarantinedBatches } from '../ports';

/**
 * A project's life (API.md §4): create, info, list, save, unload, freeze, histograms, merge,
 * delete, its quarantined batches, and what explore reads (its summary). Every operation on a
 * project runs under the project's lock (ProjectRegistry.with), loading it first if needed,
 * so an unknown project answers 400 before anything else happens.
 */
export class Lifecycle {
  constructor(private readonly deps: {
    registry: ProjectRegistry; store: ProjectMetas & QuarantinedBatches; models: ModelStorage;
    bounds: Readonly<Record<string, ParameterBound>>;
    /** Attributes a sub-summary request may name (SML_MAX_SUMMARY_ATTRIBUTES). */
    maxSummaryAttributes: number;
    log: Logger;
    /** The shards of the projects (SML_PROJECT_SHARDS > 1); none: this replica serves every project. */
    shards?: Shards;
  }) {}

  /**
   * Creates a project; the seed's own checks (and messages) first, then the parameter bounds.
   * A seed rule answered 500 (a clustering warm-up not greater than the centroids) never hides
   * a parameter over its bound: `cluster_num_centroids=10001` with the default warm-up (101)
   * answers the 400 naming SML_MAX_CENTROIDS. Returns its id.
   */
  async create(user: string, req: sml.v1.IProjectCreateRequest): Promise<string> {
    let meta: sml.v1.IProjectMeta;
    try {
      meta = projectMetaFromCreate(user, req);
    } catch (err) {
      if (err instanceof SmlError && err.status >= 500) checkParameters(req.params, this.deps.bounds);
      throw err;
    }
    checkParameters(req.params, this.deps.bounds);
    // A shard moves between replicas (README "Replicas"): what only one replica's memory holds
    // would be lost with it, and listing it would need every replica's answer.
    if (meta.persist === false && (this.deps.shards?.count ?? 1) > 1) {
      throw smlError('INVALID_PARAMETER', { name: 'persist', value: 'false', reason: 'projects are sharded over replicas (SML_PROJECT_SHARDS > 1): every project is persisted' });
    }
    await this.deps.registry.create(meta, () => this.deps.models.deleteAll(user, meta.pid!));
    return meta.pid!;
  }

  /** The project's batch-summary recipe (ProjectState.batchRecipe), or null. */
  batchRecipe(user: string, pid: string): Promise<string | null> {
    return this.deps.registry.with(user, pid, (p) => p.batchRecipe);
  }

  /** Loads the project (400 when unknown) and does nothing else: checked before a job is created. */
  async require(user: string, pid: string): Promise<void> {
    await this.deps.registry.with(user, pid, () => undefined);
  }

  /** smlInfo (API.md §4); `hash` asks for the summary's hash (else -1). */
  async info(user: string, pid: string, hash: boolean): Promise<sml.v1.ISmlInfo> {
    const wasLoaded = this.deps.registry.isLoaded(user, pid);
    const p = await this.deps.registry.with(user, pid, (q) => q);
    return smlInfo(p, { hash, wasLoaded, models: await this.deps.models.list(user, pid) });
  }

  list(user: string): Promise<string[]> {
    return this.deps.registry.list(user);
  }

  /** Deletes the project (without loading it, so an unloadable one can be deleted) and its models. */
  async delete(user: string, pid: string): Promise<void> {
    await this.deps.registry.delete(user, pid);
    await this.deps.models.deleteAll(user, pid);
  }

  /** Snapshots now; memory-only projects have nothing to save (400). */
  async save(user: string, pid: string): Promise<void> {
    await this.deps.registry.with(user, pid, async (p) => {
      if (p.memoryOnly) throw smlError('PROJECT_NOT_PERSISTENT', { pid });
      await this.deps.registry.save(p);
    });
  }

  /** Saves and drops the in-memory state; memory-only projects cannot be unloaded (400). */
  async unload(user: string, pid: string): Promise<void> {
    await this.deps.registry.with(user, pid, (p) => {
      if (p.memoryOnly) throw smlError('PROJECT_NOT_PERSISTENT', { pid });
    });
    await this.deps.registry.unload(user, pid);
  }

  /** A frozen project refuses learn and forget. */
  async freeze(user: string, pid: string, frozen: boolean): Promise<void> {
    await this.deps.registry.with(user, pid, async (p) => {
      p.meta.frozen = frozen;
      if (!p.memoryOnly) await this.deps.store.putMeta(p.meta);
    });
  }

  /** Switches what reads the histograms (they are always kept, README "Projects"). */
  async enableHistograms(user: string, pid: string, enable: boolean): Promise<void> {
    await this.deps.registry.with(user, pid, async (p) => {
      p.meta.histogramEnabled = enable;
      if (!p.memoryOnly) await this.deps.store.putMeta(p.meta);
    });
  }

  /** Adds another project's summary to this one's; made durable by a snapshot before answering (a merge is not in the log). */
  async merge(user: string, pid: string, other: string): Promise<void> {
    if (other === pid) throw smlError('MERGE_SELF', { pid });
    // The other project's shard may be served by another replica: read it from there.
    const shards = this.deps.shards;
    const source = shards && !shards.serves(user, other)
      ? await shards.summary({ user, root: false }, other)
      : await this.deps.registry.with(user, other, (o) => o.summary.clone());
    await this.deps.registry.with(user, pid, async (p) => {
      p.merge(source, other);
      await this.deps.registry.save(p);
    });
  }

  /** The parts of the summary a request asks for: the attribute table, a sub-summary, or the whole serialized summary (explore). */
  async summary(user: string, pid: string, req: sml.v1.ISummaryRequest): Promise<sml.v1.ISummaryReply> {
    checkSummaryRequest(req, this.deps.maxSummaryAttributes);
    return this.deps.registry.with(user, pid, (p) => summaryParts(p, req));
  }

  /** Batches of the project that could not be replayed when it loaded (loading quarantines them). */
  async quarantined(user: string, pid: string): Promise<sml.v1.IQuarantinedBatch[]> {
    await this.require(user, pid);
    return this.deps.store.quarantined(user, pid);
  }

  /** Every project of a deleted customer, with its log, snapshot, models and quarantined batches. */
  /** Deletes every project of `user` on shard `shard` (every shard asks its own holder). */
  async purgeCustomer(user: string, shard = 0): Promise<void> {
    for (const pid of await this.deps.registry.list(user)) {
      if (this.deps.shards && this.deps.shards.of(user, pid) !== shard) continue;
      await this.deps.registry.delete(user, pid).catch((err) => this.deps.log.warn({ err, user, pid }, 'purge: project not deleted'));
      await this.deps.models.deleteAll(user, pid);
    }
  }

  /** Batches quarantined by this process since it started ($SRV.STATS of `log`). */
  get quarantinedTotal(): number {
    return this.deps.registry.quarantinedTotal;
  }
}

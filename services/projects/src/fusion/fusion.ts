import { checkName, smlError } from '@sml/core';
import type { sml } from '@sml/proto';
import { checkLiteral } from '@sml/sources';
import { projectMetaFromCreate } from '../lifecycle/create';
import { summaryOptions, type ProjectLimits } from '../lifecycle/project';
import type { ProjectRegistry } from '../lifecycle/registry';
import type { ModelStorage, ProjectMetas } from '../ports';
import { cellEndpoint, cellName, checkCells, checkOnCellError, LOCAL_HOST, type FusionCell, type OnCellError } from './cells';
import { FusionMerge, type CellFetcher, type CellReport, type MergeView } from './merge';
import type { SecretSeal } from './seal';

export const FUSION_TYPE = 'fusion';

/** Algorithms whose state is learned online from rows: a merge of summaries cannot give it. */
const ONLINE_ALGORITHMS = /^(rf_|kmeans)/;

interface Held {
  /** The sealed cell list the merge was made for: an updateCellsInfo makes a new merge. */
  config: string;
  merge: FusionMerge;
  /** The last read's view: which cells it used stale and why (smlInfo). */
  last?: MergeView;
}

/**
 * Fusion projects: a project whose summary is the exact merge of its cells',
 * fetched just in time (merge.ts). Its cells' secrets are sealed in its metadata (seal.ts);
 * what it holds in memory is the merge and, per cell, the last good summary.
 */
export class Fusion {
  private readonly held = new Map<string, Held>();

  constructor(private readonly deps: {
    registry: ProjectRegistry; store: ProjectMetas; models: ModelStorage; seal: SecretSeal; fetcher: CellFetcher;
    limits: ProjectLimits; minRefreshMs: number; cellTimeoutMs: number; allowPrivate: boolean;
  }) {}

  async create(user: string, req: sml.v1.IFusionCreateRequest): Promise<string> {
    const cells = this.checked(req.cells);
    const onCellError = checkOnCellError(req.onCellError);
    const meta = projectMetaFromCreate(user, { pid: req.pid, ...(req.persist === null || req.persist === undefined ? {} : { persist: req.persist }) });
    meta.type = FUSION_TYPE;
    meta.fusion = { cells: this.sealed(cells), onCellError };
    await this.deps.registry.create(meta, () => this.deps.models.deleteAll(user, meta.pid!));
    return meta.pid!;
  }

  /** Replaces the cell list; the merge is dropped (the next read fetches every cell). Models already built stay. */
  async updateCells(user: string, pid: string, list: readonly sml.v1.IFusionCell[] | null | undefined): Promise<void> {
    const cells = this.checked(list);
    await this.deps.registry.with(user, pid, async (p) => {
      requireFusion(p.meta);
      p.meta.fusion = { cells: this.sealed(cells), onCellError: p.meta.fusion?.onCellError ?? 'fail' };
      if (!p.memoryOnly) await this.deps.store.putMeta(p.meta);
    });
    this.held.delete(key(user, pid));
  }

  /** Probes the cells now (the listed ones; none listed: all) and reports each. */
  async cellsStatus(user: string, pid: string, list: readonly sml.v1.IFusionCell[] | null | undefined): Promise<CellReport[]> {
    const meta = await this.metaOf(user, pid);
    requireFusion(meta);
    const wanted = new Set((list ?? []).map((c) => cellName({ host: (c.host ?? '').trim().replace(/\/+$/, ''), cid: c.cid ?? '', pid: c.pid ?? '' })));
    return this.heldOf(user, pid, meta).merge.probe(wanted.size === 0 ? undefined : (c) => wanted.has(cellName(c)));
  }

  /**
   * Before any read of a project's statistics: a fusion project's merge is refreshed when due
   * and installed in its state (503 for a failed cell, as its onCellError says); other projects
   * are left as they are.
   */
  async refresh(user: string, pid: string): Promise<void> {
    const meta = await this.metaOf(user, pid);
    if (meta?.type !== FUSION_TYPE) return;
    const held = this.heldOf(user, pid, meta);
    const view = await held.merge.read((meta.fusion?.onCellError ?? 'fail') as OnCellError);
    held.last = view;
    // By identity: a project unloaded and loaded again holds an empty summary until this installs the merge again.
    await this.deps.registry.with(user, pid, (p) => {
      if (p.summary !== view.summary) p.fused(view.summary);
    });
  }

  /** Learning, forgetting or merging into a fusion project: 400 (its data stays in its cells). */
  async refuseData(user: string, pid: string): Promise<void> {
    if ((await this.metaOf(user, pid))?.type === FUSION_TYPE) throw smlError('FUSION_NO_DATA', { pid });
  }

  /** rf_* and kmeans on a fusion project: 400 (online-model state is not merged). */
  async refuseAlgorithm(user: string, pid: string, algo: string | null | undefined): Promise<void> {
    if (ONLINE_ALGORITHMS.test(algo ?? '') && (await this.metaOf(user, pid))?.type === FUSION_TYPE) throw smlError('FUSION_ALGORITHM', { pid, algo });
  }

  /**
   * smlInfo of a fusion project: `fusionCellInfo` = its cells as JSON, each `sk` blanked (the
   * gateway encrypts it for the caller), and, when cells failed the last refresh, which
   * (`params.fusion_stale_cells`, stale mode) and why (`params.fusion_fetch_error`).
   */
  async decorate(user: string, pid: string, info: sml.v1.ISmlInfo): Promise<sml.v1.ISmlInfo> {
    if (info.type !== FUSION_TYPE) return info;
    const meta = await this.metaOf(user, pid);
    const cells = (meta?.fusion?.cells ?? []).map((c) => ({ host: c.host, cid: c.cid, sk: '', pid: c.pid }));
    const last = this.held.get(key(user, pid))?.last;
    const params = { ...info.params };
    if (last && last.errors.length > 0) params.fusion_fetch_error = last.errors.join('; ');
    if (last && last.stale.length > 0) params.fusion_stale_cells = last.stale.join(',');
    return { ...info, params, fusionCellInfo: JSON.stringify({ values: cells }) };
  }

  private checked(list: readonly sml.v1.IFusionCell[] | null | undefined): FusionCell[] {
    const cells = checkCells(list);
    for (const c of cells) {
      if (c.host === LOCAL_HOST) continue;
      // An IP literal is checked now; a host name at each fetch (its answer may change).
      try {
        checkLiteral({ allowPrivate: this.deps.allowPrivate }, `fusion cell [${cellName(c)}]`, new URL(cellEndpoint(c.host)!.url).hostname);
      } catch (err) {
        throw smlError('FUSION_CELLS_INVALID', { reason: (err as Error).message });
      }
    }
    return cells;
  }

  private sealed(cells: readonly FusionCell[]): sml.v1.IFusionCell[] {
    return cells.map((c) => ({ ...c, sk: this.deps.seal.seal(c.sk) }));
  }

  /**
   * A cell's secret; '' when it was sealed under another deployment's key (an imported
   * project): the cell then answers UNAUTHORIZED until updateCellsInfo gives it again.
   */
  private unsealed(sealed: string): string {
    try {
      return this.deps.seal.unseal(sealed);
    } catch {
      return '';
    }
  }

  private async metaOf(user: string, pid: string): Promise<sml.v1.IProjectMeta | undefined> {
    const meta = await this.deps.registry.metaOf(user, checkName('project', pid));
    if (!meta) throw smlError('PROJECT_NOT_FOUND', { pid, user });
    return meta;
  }

  private heldOf(user: string, pid: string, meta: sml.v1.IProjectMeta): Held {
    const config = JSON.stringify(meta.fusion?.cells ?? []);
    const k = key(user, pid);
    const current = this.held.get(k);
    if (current?.config === config) return current;
    const cells = (meta.fusion?.cells ?? []).map((c) => ({ host: c.host ?? '', cid: c.cid ?? '', pid: c.pid ?? '', sk: this.unsealed(c.sk ?? '') }));
    const { limits } = this.deps;
    const merge = new FusionMerge(cells, {
      fetcher: this.deps.fetcher, minRefreshMs: this.deps.minRefreshMs, cellTimeoutMs: this.deps.cellTimeoutMs,
      checks: { options: summaryOptions(meta, limits), ...limits.state },
    });
    const fresh: Held = { config, merge };
    this.held.set(k, fresh);
    return fresh;
  }
}

const key = (user: string, pid: string) => `${user}\u0000${pid}`;

function requireFusion(meta: sml.v1.IProjectMeta | undefined): asserts meta is sml.v1.IProjectMeta {
  if (meta?.type !== FUSION_TYPE) throw smlError('NOT_A_FUSION_PROJECT', { pid: meta?.pid ?? '' });
}

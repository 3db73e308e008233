import { gzipSync } from 'node:zlib';
import { smlError } from '@sml/core';
import type { sml } from '@sml/proto';
import type { ProjectRegistry } from '../lifecycle/registry';
import { FUSION_TYPE } from './fusion';

/**
 * The cell side of fusion: a project's whole summary, gzip of its serialization
 * (as an export carries it), and its version (the summary's etag); only `unchanged` when the
 * caller's `ifVersion` is still current. A fusion project is no cell (a cycle of fusions would
 * refresh itself).
 */
export function cellSummary(registry: ProjectRegistry, user: string, pid: string, ifVersion: string): Promise<sml.v1.ICellSummaryReply> {
  return registry.with(user, pid, (p) => {
    if (p.meta.type === FUSION_TYPE) throw smlError('FUSION_NOT_A_CELL', { pid });
    if (ifVersion !== '' && ifVersion === p.etag) return { unchanged: true, summaryVersion: p.etag };
    return { summary: gzipSync(p.summaryBytes()), summaryVersion: p.etag };
  });
}

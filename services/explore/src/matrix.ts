import { smlError } from '@sml/core';
import { sml } from '@sml/proto';
import { okStatus } from '@sml/bus';
import { jobResult } from '@sml/jobs-client';
import { pca, svd, svdFeatureSelection, vif, type AttributeTable, type Summary } from '@sml/stats';
import { neededIndexes } from './metrics';
import { positiveInt, resolveContext, type Resolved } from './resolve';
import type { ProjectSchema } from './summaries';

/** The job type a matrix exploration is listed under (`kind` as sent when unknown: the job fails). */
const JOB_TYPES: Record<string, string> = { svdfs: 'exploreSvdFs', pca: 'explorePca', svd: 'exploreSvd', vif: 'vif' };

export function matrixJobType(kind: string): string {
  return JOB_TYPES[kind] ?? kind;
}

/** What can be checked before the job is created: at least 2 inputs per entry, and a target for svdfs. */
export function checkMatrixEntries(kind: string, contexts: sml.v1.IMLContext[]): void {
  for (const ctx of contexts) {
    const inputs = (ctx.inputAttributes?.length ?? 0) + (ctx.inputAttributeNames?.length ?? 0);
    const targets = (ctx.targets?.length ?? 0) + (ctx.targetAttributeNames?.length ?? 0);
    if (kind === 'svdfs' && targets < 1) throw smlError('SVD_NO_TARGET');
    if (inputs < 2) throw smlError('EXPLORE_INPUT', { detail: `${kind} needs at least 2 input attributes per entry, got ${inputs}` });
  }
}

/** A matrix exploration's result (without its status) and the message type that carries it. */
export type MatrixResult =
  | { type: typeof sml.v1.SvdFsResult; message: sml.v1.ISvdFsResult }
  | { type: typeof sml.v1.PcaResult; message: sml.v1.IPcaResult }
  | { type: typeof sml.v1.SvdResult; message: sml.v1.ISvdResult }
  | { type: typeof sml.v1.VifResult; message: sml.v1.IVifResult };

/**
 * A matrix exploration (API.md §6) as its job's result, one entry per MLContext: SVD feature
 * selection (`svd_tolerance`), PCA (`pca_use_covariance`, `pcaNumDimension`), SVD or VIF.
 * Runs in a matrix worker thread (matrix-workers.ts), off the service's event loop.
 */
export function matrixJobResult(kind: string, summary: Summary, separator: string, contexts: sml.v1.IMLContext[], pid: string): sml.v1.IJobResult {
  const result = compute(kind, summary, separator, contexts, pid);
  // The union's members pair each type with its message; jobResult takes them one at a time.
  return jobResult(result.type as typeof sml.v1.PcaResult, { status: okStatus(), ...result.message });
}

/** The contexts' attributes as indexes of `table`; exploresvdfs checks them only when the job runs, and fails it with a 500 (seed). */
function resolveAll(kind: string, table: AttributeTable, separator: string, contexts: sml.v1.IMLContext[], pid: string): Resolved[] {
  return contexts.map((ctx): Resolved => {
    try {
      return resolveContext(table, ctx, pid, separator);
    } catch (err) {
      if (kind === 'svdfs') throw smlError('GENERIC_EXCEPTION', { detail: (err as Error).message });
      throw err;
    }
  });
}

/**
 * The attributes a matrix exploration reads (project indexes, ascending; a categorical
 * level's column whole), and its contexts naming them by name in the order they resolve to,
 * so the worker resolves them the same in the sub-summary of those attributes. Fails as the
 * job would (resolveAll).
 */
export function matrixAttributes(kind: string, schema: ProjectSchema, contexts: sml.v1.IMLContext[], pid: string): { needed: number[]; contexts: sml.v1.IMLContext[] } {
  const separator = schema.meta.categorySeparator || '$';
  const resolved = resolveAll(kind, schema, separator, contexts, pid);
  const name = (i: number) => schema.attributeNames[i];
  return {
    needed: neededIndexes(schema, resolved, separator),
    contexts: contexts.map((ctx, k) => ({
      ...ctx, inputAttributes: [], targets: [], inputAttributeNames: resolved[k].inputs.map(name), targetAttributeNames: resolved[k].targets.map(name),
    })),
  };
}

function compute(kind: string, summary: Summary, separator: string, contexts: sml.v1.IMLContext[], pid: string): MatrixResult {
  const resolved = resolveAll(kind, summary, separator, contexts, pid);
  switch (kind) {
    case 'svdfs':
      return {
        type: sml.v1.SvdFsResult,
        message: {
          KSVSMap: { values: resolved.map((r, k) => ({ entries: svdFeatureSelection(summary, r.inputs, r.targets, { tolerance: Number(contexts[k].extraParameters?.svd_tolerance ?? 1e-8) }) })) },
        },
      };
    case 'pca':
      return {
        type: sml.v1.PcaResult,
        message: {
          pcaList: resolved.map((r, k) => {
            const extra = contexts[k].extraParameters ?? {};
            const p = pca(summary, r.inputs, { useCovariance: extra.pca_use_covariance === 'true', numDimension: positiveInt('pcaNumDimension', extra.pcaNumDimension, 100) });
            return { attributeNames: p.attributeNames, pcaVectors: p.pcaVectors.map((entries) => ({ entries })), pcaValues: p.pcaValues, pcaSumValues: p.pcaSumValues };
          }),
        },
      };
    case 'svd':
      return {
        type: sml.v1.SvdResult,
        message: {
          svdList: resolved.map((r) => {
            const d = svd(summary, r.inputs);
            return { attributeNames: d.attributeNames, singularValues: d.singularValues, u: d.u.map((entries) => ({ entries })), v: d.v.map((entries) => ({ entries })) };
          }),
        },
      };
    case 'vif':
      return { type: sml.v1.VifResult, message: { KSVDMap: { values: resolved.map((r) => ({ entries: vif(summary, r.inputs) })) } } };
    default:
      throw smlError('INVALID_PARAMETER', { name: 'kind', value: kind, reason: 'expected svdfs, pca, svd or vif' });
  }
}

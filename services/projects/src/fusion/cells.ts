import { checkName, smlError } from '@sml/core';
import type { sml } from '@sml/proto';

/** What cellsStatus reports of a cell. */
export type CellStatus = 'OK' | 'UNREACHABLE' | 'UNAUTHORIZED' | 'NOT_FOUND' | 'SCHEMA_CONFLICT' | 'NOT_A_CELL';

/** What a failed cell does to a read: `fail` answers 503, `stale` uses its last good summary. */
export type OnCellError = 'fail' | 'stale';

export interface FusionCell {
  host: string;
  cid: string;
  sk: string;
  pid: string;
}

/** `local` or the base URL of another SML instance. */
export const LOCAL_HOST = 'local';

/** How a cell is named in messages and status: `<host>/<cid>/<pid>`, never its secret. */
export const cellName = (c: Pick<FusionCell, 'host' | 'cid' | 'pid'>): string => `${c.host}/${c.cid}/${c.pid}`;

/** A failure of one cell, with the status cellsStatus reports for it. */
export class CellError extends Error {
  constructor(readonly status: Exclude<CellStatus, 'OK'>, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CellError';
  }
}

/**
 * A cell's base URL as the SDK takes it: origin and the REST prefix (`/symetry/rest` unless
 * the host names another one), or null when `host` is not an http(s) URL.
 */
export function cellEndpoint(host: string): { url: string; basePath: string } | null {
  let u: URL;
  try {
    u = new URL(host);
  } catch {
    return null;
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.username || u.password || u.search || u.hash) return null;
  const path = u.pathname.replace(/\/+$/, '');
  return { url: u.origin, basePath: path === '' ? '/symetry/rest' : path };
}

const SECRET = /^[A-Za-z0-9+/]{22}==$/;

/**
 * A FusionCellInfoList's cells, checked: at least one, each with a host (`local`
 * or an http(s) base URL), a valid customer id and project name, a secret of the customer-secret
 * form, and no cell twice (same host, customer and project). Anything else: 400.
 */
export function checkCells(list: readonly sml.v1.IFusionCell[] | null | undefined): FusionCell[] {
  const cells = (list ?? []).map((c, i) => {
    const host = (c.host ?? '').trim().replace(/\/+$/, '');
    const at = `cell ${i + 1}`;
    if (host !== LOCAL_HOST && cellEndpoint(host) === null) throw smlError('FUSION_CELLS_INVALID', { reason: `${at}: host [${host}] is neither "local" nor an http(s) base URL` });
    const sk = c.sk ?? '';
    if (!SECRET.test(sk)) throw smlError('FUSION_CELLS_INVALID', { reason: `${at}: sk is not a customer secret (base64 of 16 bytes)` });
    return { host, cid: checkName('customer', c.cid), sk, pid: checkName('project', c.pid) };
  });
  if (cells.length === 0) throw smlError('FUSION_CELLS_INVALID', { reason: 'a fusion project needs at least one cell' });
  const seen = new Set<string>();
  for (const c of cells) {
    const key = cellName(c);
    if (seen.has(key)) throw smlError('FUSION_CELLS_INVALID', { reason: `cell [${key}] is listed twice` });
    seen.add(key);
  }
  return cells;
}

export function checkOnCellError(value: string | null | undefined): OnCellError {
  const v = value || 'fail';
  if (v !== 'fail' && v !== 'stale') throw smlError('INVALID_PARAMETER', { name: 'onCellError', value: v, reason: 'expected fail or stale' });
  return v;
}

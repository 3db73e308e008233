import { gunzipSync } from 'node:zlib';
import { contracts, projectSubject, subjectOf, unwrap, type BusClient } from '@sml/bus';
import { SmlError } from '@sml/core';
import { sml } from '@sml/proto';
import { SmlClient } from '@sml/sdk';
import { checkLiteral, guardedLookup } from '@sml/sources';
import { CellError, cellEndpoint, LOCAL_HOST, type FusionCell } from './cells';
import type { CellAnswer, CellFetcher } from './merge';

/** A cell's summary inflates to at most this (a 2000-attribute summary is ≈ 100 MB): a bound on what a remote may make this process hold. */
const MAX_SUMMARY_BYTES = 512 * 1024 * 1024;
/**
 * A remote cell's answer is read up to this: base64 (4/3) of a gzipped summary as large as an
 * import accepts (SML_MAX_EXPORT_BYTES' default, 128 MiB) and the envelope around it. A host that
 * sends more is closed unread: a customer's cell list cannot make this process hold more.
 */
const MAX_ANSWER_BYTES = Math.ceil((128 * 1024 * 1024 * 4) / 3) + 1024 * 1024;

/** The reply of `cellSummary` as both ways carry it: gzip of the serialized summary, or unchanged. */
function answerOf(values: { unchanged?: boolean | null; summary?: Uint8Array | null; summaryVersion?: string | null }): CellAnswer {
  if (values.unchanged) return { unchanged: true };
  let summary: Uint8Array;
  try {
    summary = gunzipSync(values.summary ?? new Uint8Array(), { maxOutputLength: MAX_SUMMARY_BYTES });
  } catch (err) {
    throw new CellError('NOT_A_CELL', `its summary is not gzip data within ${MAX_SUMMARY_BYTES} bytes: ${(err as Error).message}`);
  }
  return { summary, version: values.summaryVersion ?? '' };
}

/** How an error of the cell's instance reads as a cell status: by catalogue code over the bus, by status and message over REST. */
function statusOf(status: number, code: string, message: string): CellError['status'] {
  if (status === 401) return 'UNAUTHORIZED';
  if (code === 'PROJECT_NOT_FOUND' || message.startsWith('Cannot Find Project')) return 'NOT_FOUND';
  // An unknown route (not an SML instance, or one without the cell protocol); a fusion project is no cell.
  if (status === 404 || code === 'FUSION_NOT_A_CELL' || message.includes('cannot be a fusion cell')) return 'NOT_A_CELL';
  return 'UNREACHABLE';
}

/**
 * Fetches cells: a remote cell through @sml/sdk, signed as the cell's owner
 * (cid/sk), its address checked as data sources' are (SML_SOURCES_ALLOW_PRIVATE); a `local`
 * cell over the bus, once the users service confirmed that sk is cid's.
 */
export class CellFetchers implements CellFetcher {
  constructor(private readonly deps: { client: BusClient; allowPrivate: boolean; timeoutMs: number }) {}

  fetch(cell: FusionCell, ifVersion: string, signal: AbortSignal): Promise<CellAnswer> {
    return cell.host === LOCAL_HOST ? this.local(cell, ifVersion) : this.remote(cell, ifVersion, signal);
  }

  private async remote(cell: FusionCell, ifVersion: string, signal: AbortSignal): Promise<CellAnswer> {
    const endpoint = cellEndpoint(cell.host);
    if (!endpoint) throw new CellError('NOT_A_CELL', `host [${cell.host}] is not an http(s) base URL`);
    const guard = { allowPrivate: this.deps.allowPrivate };
    // An IP literal skips the lookup below: checked here (create checked it too, under the settings of then).
    try {
      checkLiteral(guard, 'fusion cell', new URL(endpoint.url).hostname);
    } catch (err) {
      throw new CellError('UNREACHABLE', (err as Error).message);
    }
    const sdk = new SmlClient({ ...endpoint, user: cell.cid, secret: cell.sk, lookup: guardedLookup(guard, 'fusion cell'), maxAnswerBytes: MAX_ANSWER_BYTES });
    try {
      const res = await sdk.operations.cellSummary<{ summary?: string; summaryVersion?: string; unchanged?: boolean }>(cell.pid, { query: ifVersion ? { ifVersion } : {}, signal });
      const values = res.body.values ?? {};
      if (res.status !== 200) throw new CellError(statusOf(res.status, '', res.body.statusString), `${res.status} ${res.body.statusString}`);
      return answerOf({ ...values, summary: Buffer.from(values.summary ?? '', 'base64') });
    } catch (err) {
      if (err instanceof CellError) throw err;
      // GatewayUnreachableError names the origin and the socket's error (a refused address among them).
      throw new CellError('UNREACHABLE', (err as Error).message, { cause: err });
    } finally {
      sdk.close();
    }
  }

  private async local(cell: FusionCell, ifVersion: string): Promise<CellAnswer> {
    const caller = { user: cell.cid, root: false };
    const timeoutMs = this.deps.timeoutMs;
    try {
      unwrap(await this.deps.client.request('users', subjectOf(contracts.users.checkSecret), sml.v1.SecretCheckRequest, { caller, cid: cell.cid, secret: cell.sk }, sml.v1.Empty, { timeoutMs }));
      const reply = unwrap(await this.deps.client.request('projects', projectSubject('cellSummary', cell.cid, cell.pid), sml.v1.CellSummaryRequest,
        { caller, pid: cell.pid, ifVersion }, sml.v1.CellSummaryReply, { timeoutMs }));
      return answerOf(reply);
    } catch (err) {
      if (err instanceof SmlError) throw new CellError(statusOf(err.status, err.code, err.message), err.message, { cause: err });
      throw err;
    }
  }
}

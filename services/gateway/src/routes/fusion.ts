import { decryptDsInfo, encryptDsInfo, smlError, type DsInfoFormat } from '@sml/core';
import { contracts } from '@sml/bus';
import { sml } from '@sml/proto';
import { replyValues } from '../envelope';
import { defineRoute, type RouteContext } from '../route';
import { boolParam, name, userParam, z } from '../schemas';

const ops = contracts.projects;
const fusionParams = userParam.extend({ pid: name('project') });

const encryptedCellList = z.string().openapi({
  description: 'Encrypted FusionCellInfoList (as an encrypted DSInfo body: AES-128-CBC with the fixed IV, or `v2:` + AES-128-GCM; key = the caller\'s secret). '
    + 'Plaintext: {"values":[{"host","cid","sk","pid"}]}: `host` = base URL `http[s]://host:port` of another SML instance (with or without `/symetry/rest`) or `local`; '
    + '`cid`/`sk` the cell owner\'s customer id and secret; `pid` its project. A host that is an address of this machine or a private network is refused unless SML_SOURCES_ALLOW_PRIVATE=true.',
});

/** The cells of an encrypted FusionCellInfoList body; `empty` allows none (cellsStatus: all). */
function cellsOf(ctx: RouteContext, empty = false): sml.v1.IFusionCell[] {
  const text = Buffer.isBuffer(ctx.body) ? ctx.body.toString('utf8') : '';
  if (empty && text.trim() === '') return [];
  const plain = decryptDsInfo(text, ctx.secretKey ?? '');
  const values = Array.isArray(plain) ? plain : (plain as { values?: unknown } | null)?.values;
  if (!Array.isArray(values)) throw smlError('FUSION_CELLS_INVALID', { reason: 'expected {"values":[{host, cid, sk, pid}]}' });
  return values.map((v: unknown, i) => {
    const c = (v ?? {}) as Record<string, unknown>;
    const field = (k: string) => {
      if (typeof c[k] !== 'string') throw smlError('FUSION_CELLS_INVALID', { reason: `cell ${i + 1}: ${k} must be a string` });
      return c[k];
    };
    return { host: field('host'), cid: field('cid'), sk: field('sk'), pid: field('pid') };
  });
}

/** An encrypted response: v2 when the request body was v2 or carried `sym-enc: v2`, else the compat CBC. */
export function encryptedFor(ctx: RouteContext, value: unknown): string {
  const body = Buffer.isBuffer(ctx.body) ? ctx.body.toString('utf8').trim().replace(/^"/, '') : '';
  const format: DsInfoFormat = body.startsWith('v2:') || String(ctx.headers['sym-enc'] ?? '').toLowerCase() === 'v2' ? 'v2' : 'v1';
  return encryptDsInfo(value, ctx.secretKey ?? '', { format });
}

const FRESHNESS = 'Every read of its statistics (info, explore, models) refreshes the merge of its cells when the last refresh is older than SML_FUSION_MIN_REFRESH_MS (15 000 ms); '
  + 'cells are fetched in parallel (SML_FUSION_CELL_TIMEOUT_MS each), an unchanged cell sends nothing. A failed cell answers 503 \'Fusion cell [<host>/<cid>/<pid>] failed: <reason>\' '
  + '(onCellError=fail), or its last good summary is used and named in smlInfo.params.fusion_stale_cells (onCellError=stale; a never-fetched cell fails either way).';

/** Fusion projects and the cell protocol. */
export const fusionRoutes = [
  defineRoute({
    method: 'post', path: '/:user/projects/fusion/create', operationId: 'createFusionProject', tags: ['projects'],
    summary: 'Create a fusion project: its statistics are the exact merge of its cells\' summaries',
    description: `Body: encrypted FusionCellInfoList, at least one cell, none twice (400 otherwise). The cells are not contacted: a dead cell does not block creation. smlInfo.type = fusion. ${FRESHNESS} `
      + 'Learning into it is refused (400 \'Fusion project [<p>] does not learn data; send it to its cells\'); rf_* and kmeans models are refused (their online state is not merged).',
    contract: ops.fusionCreate,
    params: userParam,
    query: z.object({
      pid: name('project'),
      persist: boolParam.optional().openapi({ description: 'default true; false = memory only, gone on restart' }),
      onCellError: z.enum(['fail', 'stale']).optional().openapi({ description: 'fail (default): a failed cell answers 503; stale: its last good summary is used' }),
    }),
    body: encryptedCellList, rawBody: true,
    success: { status: 201, description: 'Project Created with id:<pid>' }, errors: ['INVALID_ENCRYPTED_PAYLOAD'],
    toRequest: (ctx) => ({
      caller: ctx.caller, pid: String(ctx.query.pid), cells: cellsOf(ctx), onCellError: (ctx.query.onCellError as string | undefined) ?? '',
      ...(ctx.query.persist === undefined ? {} : { persist: ctx.query.persist as boolean }),
    }),
  }),
  defineRoute({
    method: 'post', path: '/:user/projects/fusion/:pid/cellsStatus', operationId: 'fusionCellsStatus', tags: ['projects'],
    summary: 'Probe a fusion project\'s cells now',
    description: 'Body: encrypted FusionCellInfoList of the cells to probe (empty body or list: all). values.cellsStatusEncrypted = the FusionCellStatusList {values:[{host, cid, pid, status, rows, lastFetch, error}]} encrypted with the caller\'s secret (v2 when the body was v2 or the request carried `sym-enc: v2`); status is OK, UNREACHABLE, UNAUTHORIZED, NOT_FOUND, SCHEMA_CONFLICT or NOT_A_CELL. Never a cell\'s sk.',
    contract: ops.fusionCellsStatus,
    params: fusionParams, body: encryptedCellList.optional(), rawBody: true,
    values: z.object({ cellsStatusEncrypted: z.string() }),
    success: { status: 200, description: 'values.cellsStatusEncrypted' }, errors: ['INVALID_ENCRYPTED_PAYLOAD', 'FUSION_CELLS_INVALID'],
    toRequest: (ctx) => ({ caller: ctx.caller, pid: ctx.params.pid, cells: cellsOf(ctx, true) }),
    present: (reply, ctx) => ({
      status: reply.status ?? { code: 200, message: 'OK' },
      values: { cellsStatusEncrypted: encryptedFor(ctx, { values: replyValues(sml.v1.FusionCellsStatusReply, reply).cells }) },
    }),
  }),
  defineRoute({
    method: 'post', path: '/:user/projects/fusion/:pid/updateCellsInfo', operationId: 'fusionUpdateCellsInfo', tags: ['projects'],
    summary: 'Replace a fusion project\'s cell list',
    description: 'Body: encrypted FusionCellInfoList (as create). The cached merge is dropped: the next read fetches every cell. Models already built stay.',
    contract: ops.fusionUpdateCells,
    params: fusionParams, body: encryptedCellList, rawBody: true,
    success: { status: 200, description: 'OK' }, errors: ['INVALID_ENCRYPTED_PAYLOAD'],
    toRequest: (ctx) => ({ caller: ctx.caller, pid: ctx.params.pid, cells: cellsOf(ctx) }),
  }),
  defineRoute({
    method: 'get', path: '/:user/projects/:pid/summary', operationId: 'cellSummary', tags: ['projects'],
    summary: 'A project\'s summary for a fusion project on another instance (the cell protocol)',
    description: 'values.summary = base64 of gzip of the serialized summary (the format of a project export), values.summaryVersion its version; with ifVersion = the version the caller holds and still current: values.unchanged = true and no summary. A fusion project is not a cell (400).',
    contract: ops.cellSummary,
    params: fusionParams, query: z.object({ ifVersion: z.string().optional() }),
    values: z.object({ summary: z.string().optional(), summaryVersion: z.string(), unchanged: z.boolean().optional() }),
    success: { status: 200, description: 'values.summary + values.summaryVersion, or values.unchanged' }, resend: true,
    toRequest: ({ caller, params, query }) => ({ caller, pid: params.pid, ifVersion: (query.ifVersion as string | undefined) ?? '' }),
    present: (reply) => ({
      status: reply.status ?? { code: 200, message: 'OK' },
      values: reply.unchanged
        ? { unchanged: true, summaryVersion: reply.summaryVersion ?? '' }
        : { summary: Buffer.from(reply.summary ?? new Uint8Array()).toString('base64'), summaryVersion: reply.summaryVersion ?? '' },
    }),
  }),
];

import { decryptDsInfo, smlError } from '@sml/core';
import { contracts } from '@sml/bus';
import { sml } from '@sml/proto';
import { defineRoute, type RouteContext } from '../route';
import { name, userParam, z } from '../schemas';

const ops = contracts.projects;
const dsParams = userParam.extend({ ds: name('data source') });
const projectDsParams = userParam.extend({ pid: name('project'), ds: name('data source') });

const encryptedDsInfo = z.string().openapi({ description: 'Encrypted DSInfo (docs/quickstart.md "Encrypted DSInfo bodies"): base64 of AES-128-CBC (fixed IV), or `v2:` + base64(nonce ‖ AES-128-GCM ciphertext ‖ tag); key = base64decode(customer secret). Plaintext: {type, name, info{string:string}, extra[]}' });

const dsInfo = z.object({
  type: z.string(), name: z.string(),
  info: z.record(z.string(), z.string()).openapi({ description: 'without credentials (s3secretKey, rspasswd … are never returned)' }),
  extra: z.array(z.string()),
}).openapi('DSInfo');

const sampleFrame = z.object({
  attributeNames: z.array(z.string()), attributeTypes: z.array(z.string()), data: z.array(z.array(z.string())), errorHandling: z.number().int(),
});

/**
 * The DSInfo of an encrypted body, decrypted with the caller's secret (one uniform 400 for
 * anything that does not decrypt), as the projects service takes it. The shape is checked
 * here: `info` values are text (numbers and booleans become their text).
 */
export function dsInfoRequest(ctx: RouteContext): sml.v1.IDsInfoRequest {
  const plain = decryptDsInfo((ctx.body as Buffer).toString('utf8'), ctx.secretKey ?? '');
  if (plain === null) return { caller: ctx.caller, isNull: true };
  const bad = (detail: string) => smlError('DS_INVALID', { ds: '-', detail });
  if (typeof plain !== 'object' || Array.isArray(plain)) throw bad('the DSInfo must be a JSON object {type, name, info, extra}');
  const d = plain as Record<string, unknown>;
  if (typeof d.type !== 'string') throw bad('type is required (localfile, s3, redshift, http)');
  if (d.name !== undefined && typeof d.name !== 'string') throw bad('name must be a string');
  if (d.info !== undefined && d.info !== null && (typeof d.info !== 'object' || Array.isArray(d.info))) throw bad('info must be an object of strings');
  const info: Record<string, string> = {};
  for (const [k, v] of Object.entries((d.info ?? {}) as Record<string, unknown>)) {
    if (typeof v === 'string') info[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') info[k] = String(v);
    else if (v !== null) throw bad(`info.${k.slice(0, 100)} must be a string`);
  }
  const extra = d.extra === undefined || d.extra === null ? [] : d.extra;
  if (!Array.isArray(extra) || !extra.every((t) => typeof t === 'string')) throw bad('extra must be an array of attribute type codes');
  return { caller: ctx.caller, dsInfo: { type: d.type, name: typeof d.name === 'string' ? d.name : '', info, extra } };
}

/** Where a remote source may connect (packages/sources/src/ssrf.ts). */
const PRIVATE_ADDRESSES = 'An http URL (and each of its redirects), an s3 `s3endpoint` or a redshift `rsurl` host that resolves to a loopback, private or link-local address (127/8, 10/8, 172.16/12, 192.168/16, 169.254/16, 100.64/10, 0/8, ::1, fe80::/10, fc00::/7, IPv4-mapped forms) is refused when read, 400 DS_UNREADABLE naming the address, unless the server runs with SML_SOURCES_ALLOW_PRIVATE=true.';

/** Data sources (API.md §5, §12): registry, samples, preview, dsbrowse, a project's dsList and its data-source log statistics. */
export const dssRoutes = [
  defineRoute({
    method: 'post', path: '/:user/dss/create', operationId: 'createDataSource', tags: ['dss'], summary: 'Register a data source (body: encrypted DSInfo)',
    description: `Types: localfile (info.path relative to the customer's files root), s3, redshift, http. Nothing is read: a missing file is found when the source is read. ${PRIVATE_ADDRESSES}`,
    contract: ops.dssCreate,
    params: userParam, body: encryptedDsInfo, rawBody: true,
    success: { status: 201, description: 'created' }, errors: ['INVALID_ENCRYPTED_PAYLOAD'],
    toRequest: (ctx) => dsInfoRequest(ctx),
  }),
  defineRoute({
    method: 'get', path: '/:user/dss', operationId: 'listDataSources', tags: ['dss'], summary: 'The customer\'s data sources, as "<name>:<type>"',
    contract: ops.dssList,
    params: userParam, values: z.object({ stringList: z.object({ values: z.array(z.string()) }) }),
    success: { status: 200, description: 'values.stringList.values' },
    toRequest: ({ caller }) => ({ caller }),
  }),
  defineRoute({
    method: 'post', path: '/:user/dss/sample/preview', operationId: 'previewDataSource', tags: ['dss'], summary: 'Read ≤ 128 rows of an unregistered DSInfo (creates nothing)',
    description: PRIVATE_ADDRESSES,
    contract: ops.dssPreview,
    params: userParam, body: encryptedDsInfo, rawBody: true, values: z.object({ dataframe: sampleFrame }),
    success: { status: 200, description: 'values.dataframe with guessed attributeTypes' }, errors: ['INVALID_ENCRYPTED_PAYLOAD'],
    toRequest: (ctx) => dsInfoRequest(ctx),
  }),
  defineRoute({
    method: 'get', path: '/:user/dss/:ds', operationId: 'getDataSource', tags: ['dss'], summary: 'A registered DSInfo, without its credentials',
    contract: ops.dssGet,
    params: dsParams, values: z.object({ dsInfo }), success: { status: 200, description: 'values.dsInfo' },
    toRequest: ({ caller, params }) => ({ caller, ds: params.ds }),
  }),
  defineRoute({
    method: 'put', path: '/:user/dss/:ds', operationId: 'updateDataSource', tags: ['dss'], summary: 'Replace a registered DSInfo (body: encrypted DSInfo; the name in the path wins)',
    contract: ops.dssUpdate,
    params: dsParams, body: encryptedDsInfo, rawBody: true,
    success: { status: 200, description: 'updated' }, errors: ['INVALID_ENCRYPTED_PAYLOAD'],
    toRequest: (ctx) => ({ ...dsInfoRequest(ctx), ds: ctx.params.ds }),
  }),
  defineRoute({
    method: 'delete', path: '/:user/dss/:ds', operationId: 'deleteDataSource', tags: ['dss'], summary: 'Delete a registered data source (its files are untouched)',
    contract: ops.dssDelete,
    params: dsParams, success: { status: 200, description: 'deleted' },
    toRequest: ({ caller, params }) => ({ caller, ds: params.ds }),
  }),
  defineRoute({
    method: 'get', path: '/:user/dss/:ds/sample', operationId: 'sampleDataSource', tags: ['dss'], summary: 'The first ≤ 128 rows of a registered data source',
    contract: ops.dssSample,
    params: dsParams, values: z.object({ dataframe: sampleFrame }),
    success: { status: 200, description: 'values.dataframe' },
    toRequest: ({ caller, params }) => ({ caller, ds: params.ds }),
  }),
  defineRoute({
    method: 'post', path: '/:user/projects/dsbrowse', operationId: 'browseDataSource', tags: ['dss'], summary: 'List directories and files under a localfile path or an s3 prefix (body: encrypted DSInfo, info.path; empty = the root)',
    contract: ops.dssBrowse,
    params: userParam, body: encryptedDsInfo, rawBody: true,
    values: z.object({ dsdirectoryListing: z.object({ ok: z.boolean(), dirs: z.array(z.string()), files: z.array(z.string()), path: z.string() }) }),
    success: { status: 200, description: 'values.dsdirectoryListing' }, errors: ['INVALID_ENCRYPTED_PAYLOAD'],
    toRequest: (ctx) => dsInfoRequest(ctx),
  }),
  ...(['addds', 'detachds'] as const).map((op) => defineRoute({
    method: 'get', path: `/:user/projects/:pid/${op}/:ds`, operationId: `${op}Project`, tags: ['dss'],
    summary: op === 'addds' ? 'Attach a data source to the project (its dsList)' : 'Detach a data source from the project',
    contract: ops[op],
    params: projectDsParams, success: { status: 200, description: op },
    toRequest: ({ caller, params }) => ({ caller, pid: params.pid, ds: params.ds }),
  })),
  defineRoute({
    method: 'get', path: '/:user/projects/:pid/getLFStats', operationId: 'projectLfStats', tags: ['dss'], summary: 'Learn/forget statistics of the project\'s data-source jobs',
    contract: ops.lfStats,
    params: userParam.extend({ pid: name('project') }),
    values: z.object({
      lfStats: z.object({
        learnJobs: z.number().int(), forgetJobs: z.number().int(), failedJobs: z.number().int(),
        rowsLearned: z.number().int(), rowsForgotten: z.number().int(), rowsSkipped: z.number().int(), bytesRead: z.number().int(),
      }),
    }),
    success: { status: 200, description: 'values.lfStats' },
    toRequest: ({ caller, params }) => ({ caller, pid: params.pid }),
  }),
];

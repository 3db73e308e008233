import { contracts } from '@sml/bus';
import { sml } from '@sml/proto';
import { defineRoute, type Presentation } from '../route';
import { boolParam, name, userParam, z } from '../schemas';

const ops = contracts.projects;
const projectParams = userParam.extend({ pid: name('project') });
/** A document can be large (SML_MAX_EXPORT_BYTES, default 128 MiB). */
const TRANSFER_TIMEOUT_MS = 300_000;

const documentValues = z.object({
  document: z.string().openapi({ description: 'the document: base64 text of a versioned JSON document (what import takes back)' }),
  status: z.string().openapi({ description: 'the same document, under the key SymetryML answers a String entity with (its JSONResponse values.status), for its clients' }),
});

/**
 * The document under values.document, and under values.status too: SymetryML answers export
 * with a String entity, its envelope's values.status, which its clients read; `status` names
 * no document, so the key new clients read says what it holds. Cost: the answer carries it twice.
 */
const presentDocument = (reply: sml.v1.IExportReply): Presentation => {
  const document = reply.document ?? '';
  return { status: reply.status ?? { code: 200, message: 'OK' }, values: { document, status: document } };
};

const importBody = z.string().openapi({
  description: 'the document an export answered: its base64 text as the body (any content type), or that text as a JSON string, or the export\'s whole JSON envelope (values.document, else values.status)',
});

/** API.md §12: every project's info, rename, project and model export/import. */
export const transferRoutes = [
  defineRoute({
    method: 'get', path: '/:user/projects/info', operationId: 'projectInfoAll', tags: ['projects'],
    summary: 'smlInfo of every project of the caller (values.smlInfoList.values)',
    description: 'A job by default, as in SymetryML (202, its result values.smlInfoList); async=false answers at once (200). A project that cannot be loaded is listed from its metadata.',
    contract: ops.infoAll,
    params: userParam, query: z.object({ async: boolParam.optional().openapi({ description: 'default true' }) }),
    values: z.object({ smlInfoList: z.object({ values: z.array(z.record(z.string(), z.unknown())) }) }),
    success: { status: 202, description: 'Job Created; with async=false 200 and values.smlInfoList' }, createsJob: true,
    toRequest: ({ caller, query }) => ({ caller, async: query.async !== false }),
  }),
  defineRoute({
    method: 'get', path: '/:user/projects/:pid/rename', operationId: 'renameProject', tags: ['projects'],
    summary: 'Rename a project: its statistics, models, data sources and encoder follow',
    description: 'Persisted projects only (persist=false ones answer 400). 409 when a project named newName exists.',
    contract: ops.rename,
    params: projectParams, query: z.object({ newName: name('project') }),
    success: { status: 200, description: 'Project [<pid>] renamed to [<newName>]' }, timeoutMs: TRANSFER_TIMEOUT_MS,
    toRequest: ({ caller, params, query }) => ({ caller, pid: params.pid, newName: String(query.newName) }),
  }),
  defineRoute({
    method: 'get', path: '/:user/projects/:pid/export', operationId: 'exportProject', tags: ['projects'],
    summary: 'The project as one portable, versioned document (settings, statistics, models), base64',
    contract: ops.export,
    params: projectParams, values: documentValues, success: { status: 200, description: 'values.document: the document (values.status: the same, as SymetryML answers it)' }, timeoutMs: TRANSFER_TIMEOUT_MS,
    toRequest: ({ caller, params }) => ({ caller, pid: params.pid }),
    present: presentDocument,
  }),
  ...(['/:user/projects/import', '/:user/projects/:pid/import'] as const).map((path) => defineRoute({
    method: 'post', path, operationId: path.includes(':pid') ? 'importProjectAs' : 'importProject', tags: ['projects'],
    summary: 'Create a project from an exported document (all or nothing)',
    description: 'The project id is the path\'s {pid}, else query pid, else the id it was exported with; 409 when it exists; the customer\'s project limit applies. '
      + 'The document is checked whole before anything is stored: size (SML_MAX_EXPORT_BYTES), format, version (an unknown one is refused naming it), digest, settings, '
      + 'the statistics against this service\'s limits, every model. Its encoder and data sources are not carried over.',
    contract: ops.import,
    params: path.includes(':pid') ? projectParams : userParam,
    query: z.object({ pid: name('project').optional(), persist: boolParam.optional().openapi({ description: 'false is refused: an import is persisted' }) }),
    body: importBody, rawBody: true, largeBody: true,
    success: { status: 200, description: 'Project [<pid>] imported' },
    timeoutMs: TRANSFER_TIMEOUT_MS,
    toRequest: ({ caller, params, query, body }) => ({
      caller, pid: params.pid ?? (query.pid as string | undefined) ?? '', document: body as Buffer,
      ...(query.persist === undefined ? {} : { persist: query.persist as boolean }),
    }),
  })),
  defineRoute({
    method: 'get', path: '/:user/projects/:pid/model/export', operationId: 'exportModel', tags: ['models'],
    summary: 'A model as a portable, versioned document, base64',
    contract: ops.modelExport,
    params: projectParams, query: z.object({ modelid: name('model') }),
    values: documentValues, success: { status: 200, description: 'values.document: the document (values.status: the same, as SymetryML answers it)' }, timeoutMs: TRANSFER_TIMEOUT_MS,
    toRequest: ({ caller, params, query }) => ({ caller, pid: params.pid, modelId: String(query.modelid) }),
    present: presentDocument,
  }),
  defineRoute({
    method: 'post', path: '/:user/projects/:pid/model/import', operationId: 'importModel', tags: ['models'],
    summary: 'Add an exported model to a project (under modelid, else its own id; a model of that id is replaced, as a build replaces it)',
    contract: ops.modelImport,
    params: projectParams, query: z.object({ modelid: name('model').optional() }),
    body: importBody, rawBody: true, largeBody: true,
    success: { status: 200, description: 'Model [<model>] imported into project [<pid>]' },
    timeoutMs: TRANSFER_TIMEOUT_MS,
    toRequest: ({ caller, params, query, body }) => ({ caller, pid: params.pid, modelId: (query.modelid as string | undefined) ?? '', document: body as Buffer }),
  }),
];

import { contracts } from '@sml/bus';
import { dataFrameToProto, decryptDsInfo, type RestDataFrame } from '@sml/core';
import { defineRoute } from '../route';
import { dataFrame, name, userParam, z } from '../schemas';

const ops = contracts.encoders;
const encoderParams = userParam.extend({ e: name('encoder') });
const frameValues = z.object({
  dataframe: z.object({ attributeNames: z.array(z.string()), attributeTypes: z.array(z.string()), data: z.array(z.array(z.string())) }),
});
const encoderInfo = z.object({ target: z.string(), minTrimSize: z.string(), encoderType: z.string() }).openapi('EncoderInfo');
const frameBody = (route: string, columns: string) => `${route}: body DataFrame with columns ${columns} (found by name, case-insensitive; other columns are ignored).`;

export const encoderRoutes = [
  defineRoute({
    method: 'post', path: '/:user/encoders/create', operationId: 'createEncoder', tags: ['encoders'],
    summary: 'Create an encoder',
    description: 'encoderType B (default, a 0/1 target: a value encodes to P(target=1 | value)) or C (continuous target: the mean target). Optional body {values:[{minTrimSize:"<n>"}]} (first entry only, default 1): a value seen fewer times encodes to the overall target mean. At most SML_MAX_ENCODERS_PER_CUSTOMER encoders per customer.',
    contract: ops.create,
    params: userParam,
    query: z.object({
      encodername: name('encoder'),
      targetName: z.string().optional().openapi({ description: 'the target attribute (encoderTarget accepted too)' }),
      encoderTarget: z.string().optional(),
      encoderType: z.string().optional().openapi({ description: 'B (default) or C (targetType accepted too)' }),
      targetType: z.string().optional(),
    }),
    body: z.object({ values: z.array(z.record(z.string(), z.union([z.string(), z.number()]).transform(String))).optional() }).optional(),
    success: { status: 201, description: 'Encoder[<e>] with Target[<target>] created for Customer[<user>]' },
    toRequest: ({ caller, query, body }) => ({
      caller,
      encoderName: String(query.encodername),
      targetName: (query.targetName ?? query.encoderTarget ?? '') as string,
      encoderType: (query.encoderType ?? query.targetType ?? '') as string,
      minTrimSize: (body as { values?: Record<string, string>[] } | undefined)?.values?.[0]?.minTrimSize ?? '',
    }),
  }),
  defineRoute({
    method: 'get', path: '/:user/encoders', operationId: 'listEncoders', tags: ['encoders'], summary: "List the caller's encoder names",
    contract: ops.list,
    params: userParam, values: z.object({ stringList: z.object({ values: z.array(z.string()) }) }),
    success: { status: 200, description: 'values.stringList.values' },
    toRequest: ({ caller }) => ({ caller }),
  }),
  defineRoute({
    method: 'post', path: '/:user/encoders/:e/learn', operationId: 'learnEncoder', tags: ['encoders'],
    summary: 'Learn a DataFrame into an encoder',
    description: 'The DataFrame must contain the target column; every other column is an input key. S columns: each cell is one value (missing cells are the value ""); L columns: `|`-separated values, each counted; other types are listed by stats with no values; X is ignored. A row with a missing target is skipped. A batch that would make the encoder hold more than SML_MAX_ENCODER_VALUES distinct values is refused whole.',
    contract: ops.learn,
    params: encoderParams, body: dataFrame,
    success: { status: 200, description: 'OK' },
    toRequest: ({ caller, params, body }) => ({ caller, encoderName: params.e, frame: dataFrameToProto(body as RestDataFrame) }),
  }),
  defineRoute({
    method: 'post', path: '/:user/encoders/:e/learnds', operationId: 'learnEncoderFromDataSource', tags: ['encoders'],
    summary: 'Learn an encoder from a data source (always a job)',
    description: 'Body: an encrypted DSInfo {type, name, info, extra} (docs/quickstart.md "Encrypted DSInfo bodies"). Non-Spark (localfile, s3, http: CSV with a header): types from `extra`, one per column; always 202, a missing file or target column fails the job (500 naming it). The rows are learned into a staging encoder merged at the end: a failed or cancelled job changes nothing. Spark (type spark or info.sparkdf, comma-separated column names): 400 before scheduling unless sparkdf names the target and at most SML_MAX_ATTRIBUTES columns; Spark itself is not available here, so the job then fails. A body decrypting to null: 500.',
    contract: ops.learnds,
    params: encoderParams, rawBody: true, body: z.string().openapi({ description: 'encrypted DSInfo' }),
    success: { status: 202, description: 'Job Created' }, createsJob: true,
    errors: ['INVALID_ENCRYPTED_PAYLOAD'],
    toRequest: ({ caller, params, body, secretKey }) => ({
      caller, encoderName: params.e,
      dsInfoJson: JSON.stringify(decryptDsInfo((body as Buffer).toString('utf8'), secretKey ?? '')) ?? 'null',
    }),
  }),
  defineRoute({
    method: 'get', path: '/:user/encoders/:e/stats', operationId: 'encoderStats', tags: ['encoders'],
    summary: 'Per key: the distinct values seen and the mean, standard deviation and variance of their counts',
    description: 'values.dataframe columns key, type, count (distinct values), mean, stddev, variance (sample, n−1, of the per-value counts), cells as Java doubles ("1.0", "3.4243127E7"); values.encoderInfo {target, minTrimSize, encoderType}.',
    contract: ops.stats,
    params: encoderParams, values: frameValues.extend({ encoderInfo }),
    success: { status: 200, description: 'values.dataframe, values.encoderInfo' },
    toRequest: ({ caller, params }) => ({ caller, encoderName: params.e }),
  }),
  defineRoute({
    method: 'get', path: '/:user/encoders/:e/keyvals/:key', operationId: 'encoderKeyValues', tags: ['encoders'],
    summary: 'The values of one key: DataFrame Value, Count, Sum (of the target)',
    description: 'Rows sorted by value, one page at a time [ours]: `offset` (default 0) and `limit` (default and at most SML_MAX_ENCODER_PAGE_ROWS, 100 000); values.valueCount is the number of values the key has.',
    contract: ops.keyvals,
    params: encoderParams.extend({ key: z.string() }), values: frameValues.extend({ valueCount: z.number() }),
    query: z.object({ offset: z.coerce.number().int().min(0).optional(), limit: z.coerce.number().int().min(1).optional() }),
    success: { status: 200, description: 'values.dataframe, values.valueCount' },
    toRequest: ({ caller, params, query }) => ({ caller, encoderName: params.e, key: params.key, offset: Number(query.offset ?? 0), limit: Number(query.limit ?? 0) }),
  }),
  defineRoute({
    method: 'post', path: '/:user/encoders/:e/keyvals/:key/setValues', operationId: 'encoderSetValues', tags: ['encoders'],
    summary: 'Replace the count and sum of values of one key',
    description: frameBody('setValues', 'Value, Count, Sum') + ' For a C target the sum of squares becomes Sum²/Count (no spread known); the overall mean is that of learned rows.',
    contract: ops.setValues,
    params: encoderParams.extend({ key: z.string() }), body: dataFrame,
    success: { status: 200, description: 'OK' },
    toRequest: ({ caller, params, body }) => ({ caller, encoderName: params.e, key: params.key, frame: dataFrameToProto(body as RestDataFrame) }),
  }),
  defineRoute({
    method: 'post', path: '/:user/encoders/:e/createKeyValues', operationId: 'encoderCreateKeyValues', tags: ['encoders'],
    summary: 'Add counts and sums to values of keys (created as needed)',
    description: frameBody('createKeyValues', 'Key, Value, Count, Sum'),
    contract: ops.createKeyValues,
    params: encoderParams, body: dataFrame,
    success: { status: 200, description: 'OK' },
    toRequest: ({ caller, params, body }) => ({ caller, encoderName: params.e, frame: dataFrameToProto(body as RestDataFrame) }),
  }),
  defineRoute({
    method: 'get', path: '/:user/projects/:pid/encoderAssign', operationId: 'encoderAssign', tags: ['encoders', 'projects'],
    summary: 'Assign an encoder to a project: its S/L columns are then learned, forgotten and predicted as encoded numeric (C) attributes',
    description: 'A value encodes to its mean target in the encoder at the time the batch is learned (the project logs the encoded rows); an L cell to the mean of its values\' encodings; a value seen fewer than minTrimSize times or never to the overall mean. Assigning another encoder releases the previous one; the encoder cannot be deleted while assigned (409); deleting the project releases it.',
    contract: contracts.projects.encoderAssign,
    params: userParam.extend({ pid: name('project') }), query: z.object({ encoderName: name('encoder') }),
    success: { status: 200, description: 'Encoder[<e>] assigned to project [<pid>]' },
    toRequest: ({ caller, params, query }) => ({ caller, pid: params.pid, encoderName: String(query.encoderName) }),
  }),
  defineRoute({
    method: 'delete', path: '/:user/encoders/:e', operationId: 'deleteEncoder', tags: ['encoders'],
    summary: 'Delete an encoder (409 while a project uses it)',
    contract: ops.delete,
    params: encoderParams,
    success: { status: 200, description: 'Encoder[<e>] deleted' },
    toRequest: ({ caller, params }) => ({ caller, encoderName: params.e }),
  }),
];

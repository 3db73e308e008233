import { subjects } from '@sml/bus';
import { sml } from '@sml/proto';
import { defineRoute, type RouteContext } from '../route';
import { boolParam, name, userParam, z } from '../schemas';
import { dsInfoRequest } from './dss';

const s = subjects.streams;
const projectParams = userParam.extend({ pid: name('project') });
const streamParams = projectParams.extend({ s: name('stream') });
const encryptedDsInfo = z.string().openapi({ description: 'Encrypted DSInfo (API.md §2.4) of type kafka or nats; plaintext {type, name, info{string:string}, extra[]}' });

const STREAM_DSINFO = [
  'Kafka: info `bootstrap.servers` (comma-separated host:port), `kafka.topic`, optional `kafka.partitions` (comma-separated); the stream has its own consumer group.',
  'NATS: info `nats_hosts` (comma-separated URLs), `nats.subject` (a JetStream stream must hold it; the stream has its own durable consumer), optional `nats_sec_user`/`nats_sec_passwd`, `nats_sec_token`, `nats_sec_nkey_seed`.',
  'Records: `info.format` (or `data.format`) `json` (default: an object keyed by attribute name) or `csv` (one line, `csv_entry_separator`, `csv_quote_character`); `info.attributeNames` (comma-separated) names the fields and `extra` their type codes (default C).',
  'Each batch (at most SML_STREAM_BATCH_RECORDS records, SML_STREAM_BATCH_BYTES bytes, SML_STREAM_BATCH_MS waiting) is learned like an inline lenient learn; a Kafka offset / JetStream ack is committed only after its batch is in the project\'s log, and the project records the positions it learned, so a redelivered batch is learned once.',
  'A record that cannot be read, or a row with a bad cell, is rejected (metrics recordsRejected, errorLog) and the stream goes on. Credentials are never answered nor logged.',
].join(' ');

const streamRequest = ({ caller, params }: RouteContext): sml.v1.IStreamRequest => ({ caller, pid: params.pid, stream: params.s });

/** Streams (API.md §9, §12): Kafka and NATS JetStream consumers learning into a project, served by services/streams. */
export const streamRoutes = [
  defineRoute({
    method: 'post', path: '/:user/projects/:pid/streams/create', operationId: 'createStream', tags: ['streams'],
    summary: 'Create a stream (body: encrypted DSInfo of type kafka or nats) and start learning its records into the project',
    description: `fromBeginning=true (Kafka and NATS): from the first record the source holds; otherwise only records produced after the create answered. ${STREAM_DSINFO} At most SML_MAX_STREAMS_PER_CUSTOMER streams per customer. 500 when the consumer cannot be built (broker unreachable, no JetStream stream holds the subject).`,
    service: 'streams', subject: s.create, request: sml.v1.StreamCreateRequest, reply: sml.v1.Empty,
    params: projectParams, query: z.object({ fromBeginning: boolParam.optional() }), body: encryptedDsInfo, rawBody: true,
    success: { status: 201, description: 'DS Stream created stream with name [<name>] for customer [<user>]' },
    errors: ['INVALID_ENCRYPTED_PAYLOAD', 'DS_INVALID', 'DS_NULL', 'STREAM_UNKNOWN_TYPE', 'STREAM_INVALID', 'STREAM_EXISTS', 'STREAM_LIMIT', 'PROJECT_NOT_FOUND', 'INVALID_NAME', 'GENERIC_EXCEPTION'],
    toRequest: (ctx) => {
      const { caller, dsInfo, isNull } = dsInfoRequest(ctx);
      return { caller, pid: ctx.params.pid, dsInfo, isNull, fromBeginning: ctx.query.fromBeginning === true };
    },
  }),
  defineRoute({
    method: 'get', path: '/:user/projects/:pid/streams/list', operationId: 'listStreams', tags: ['streams'], summary: 'The names of the project\'s streams',
    service: 'streams', subject: s.list, request: sml.v1.StreamRequest, reply: sml.v1.StreamListReply,
    params: projectParams, values: z.object({ stringList: z.object({ values: z.array(z.string()) }) }),
    success: { status: 200, description: 'values.stringList.values' },
    toRequest: ({ caller, params }) => ({ caller, pid: params.pid }),
  }),
  ...(['start', 'stop'] as const).map((op) => defineRoute({
    method: 'get', path: `/:user/projects/:pid/streams/:s/${op}`, operationId: `${op}Stream`, tags: ['streams'],
    summary: op === 'start' ? 'Resume a stopped stream from where it stopped' : 'Suspend a stream (it resumes from here on start)',
    description: op === 'stop' ? 'Answers once the replica running the stream has let it go: nothing is learned after the answer. A stopped stream stays stopped across restarts.' : 'Clears the last error of a stream that stopped by itself (its project was deleted).',
    service: 'streams', subject: s[op], request: sml.v1.StreamRequest, reply: sml.v1.Empty,
    params: streamParams, success: { status: 200, description: `Stream [<s>] of project [<pid>] ${op === 'start' ? 'started' : 'stopped'}` }, errors: ['STREAM_NOT_FOUND'],
    toRequest: streamRequest,
  })),
  defineRoute({
    method: 'delete', path: '/:user/projects/:pid/streams/:s', operationId: 'deleteStream', tags: ['streams'], summary: 'Stop and remove a stream (its consumer group / durable consumer too)',
    service: 'streams', subject: s.delete, request: sml.v1.StreamRequest, reply: sml.v1.Empty,
    params: streamParams, success: { status: 200, description: 'Stream [<s>] of project [<pid>] deleted' }, errors: ['STREAM_NOT_FOUND'],
    toRequest: streamRequest,
  }),
  defineRoute({
    method: 'get', path: '/:user/projects/:pid/streams/:s/metrics', operationId: 'streamMetrics', tags: ['streams'],
    summary: 'Records read, learned, rejected, skipped (redelivered, learned before), lag, last error, state',
    description: 'values.KSVSMap.values[0]: a string map — name, type, topic or subject, state (running|stopped), recordsRead, recordsLearned, recordsRejected, recordsSkipped, batchesLearned, lag (records after the last batch), lastError, lastErrorTime, lastBatchTime, positions (JSON: partition → last offset learned), creationDate. Counters are written by the replica running the stream at most every 200 ms.',
    service: 'streams', subject: s.metrics, request: sml.v1.StreamRequest, reply: sml.v1.StreamMetricsReply,
    params: streamParams, values: z.object({ KSVSMap: z.object({ values: z.array(z.record(z.string(), z.string())) }) }),
    success: { status: 200, description: 'values.KSVSMap' }, errors: ['STREAM_NOT_FOUND'],
    toRequest: streamRequest,
  }),
  defineRoute({
    method: 'get', path: '/:user/projects/:pid/streams/:s/errorLog', operationId: 'streamErrorLog', tags: ['streams'],
    summary: 'The stream\'s most recent errors (SML_STREAM_ERROR_LOG of them), oldest first',
    service: 'streams', subject: s.errorLog, request: sml.v1.StreamRequest, reply: sml.v1.StreamErrorLogReply,
    params: streamParams, values: z.object({ stringList: z.object({ values: z.array(z.string()) }) }),
    success: { status: 200, description: 'values.stringList.values' }, errors: ['STREAM_NOT_FOUND'],
    toRequest: streamRequest,
  }),
];

import { contracts } from '@sml/bus';
import { sml } from '@sml/proto';
import { defineRoute, type Presentation, type RouteContext } from '../route';
import { boolParam, name, userParam, z } from '../schemas';
import { dsInfoRequest } from './dss';

const ops = contracts.streams;
const projectParams = userParam.extend({ pid: name('project') });
const streamParams = projectParams.extend({ s: name('stream') });
const encryptedDsInfo = z.string().openapi({ description: 'Encrypted DSInfo (docs/quickstart.md "Encrypted DSInfo bodies") of type kafka or nats; plaintext {type, name, info{string:string}, extra[]}' });

const STREAM_DSINFO = [
  'Kafka: info `bootstrap.servers` (comma-separated host:port), `kafka.topic`, optional `kafka.partitions` (comma-separated); the stream has its own consumer group.',
  'NATS: info `nats_hosts` (comma-separated URLs), `nats.subject` (a JetStream stream must hold it; the stream has its own durable consumer), optional `nats_sec_user`/`nats_sec_passwd`, `nats_sec_token`, `nats_sec_nkey_seed`.',
  'Records: `info.format` (or `data.format`) `json` (default: an object keyed by attribute name) or `csv` (one line, `csv_entry_separator`, `csv_quote_character`); `info.attributeNames` (comma-separated) names the fields and `extra` their type codes (default C).',
  'Each batch (at most SML_STREAM_BATCH_RECORDS records, SML_STREAM_BATCH_BYTES bytes, SML_STREAM_BATCH_MS waiting) is learned like an inline lenient learn; a Kafka offset / JetStream ack is committed only after its batch is in the project\'s log, and the project records the positions it learned, so a redelivered batch is learned once.',
  'A record that cannot be read, or a row with a bad cell, is rejected (metrics recordsRejected, errorLog) and the stream goes on. Credentials are never answered nor logged.',
].join(' ');

const streamRequest = ({ caller, params }: RouteContext): sml.v1.IStreamRequest => ({ caller, pid: params.pid, stream: params.s });

const sampleFrame = z.object({
  attributeNames: z.array(z.string()), attributeTypes: z.array(z.string()), data: z.array(z.array(z.string())), errorHandling: z.number().int(),
});

const FRAME_OF_RECORDS = 'Records become rows as a stream reads them when info.attributeNames is given (`extra` types them, else types are guessed); without it, JSON records give their keys as columns (first seen first) and CSV records columns f1 … fn, types guessed (C numeric, S otherwise). Records that cannot be read are left out.';

const PRIVATE_BROKERS = 'Brokers and NATS servers on loopback, private or link-local addresses (and those a Kafka cluster advertises) are refused, 400 STREAM_INVALID naming the address, unless the server runs with SML_SOURCES_ALLOW_PRIVATE=true.';

const pollQuery = z.object({
  sid: z.string().optional().openapi({ description: 'a registered data source of type kafka (wins over the body)' }),
  fromBeginning: boolParam.optional().openapi({ description: 'first poll of a poller only: from the earliest offset (default: records produced from now on)' }),
});

/** The encrypted DSInfo of a browse or preview body. */
const sourceRequest = (ctx: RouteContext): sml.v1.IStreamSourceRequest => {
  const { caller, dsInfo, isNull } = dsInfoRequest(ctx);
  return { caller, dsInfo, isNull };
};

/** A DsDirectoryListing without its unset fields (API.md §9: "unset fields omitted"). */
function listingPresentation(reply: sml.v1.StreamBrowseReply): Presentation {
  const l = reply.dsdirectoryListing;
  const listing: Record<string, unknown> = { ok: l?.ok === true };
  if (l?.dirs?.length) listing.dirs = l.dirs;
  if (l?.files?.length) listing.files = l.files;
  if (l?.path) listing.path = l.path;
  return { status: reply.status ?? { code: 200, message: 'OK' }, values: { dsdirectoryListing: listing } };
}

/** Streams (API.md §9, §12): Kafka and NATS JetStream consumers learning into a project, served by services/streams. */
export const streamRoutes = [
  defineRoute({
    method: 'post', path: '/:user/projects/:pid/streams/create', operationId: 'createStream', tags: ['streams'],
    summary: 'Create a stream (body: encrypted DSInfo of type kafka or nats) and start learning its records into the project',
    description: `fromBeginning=true (Kafka and NATS): from the first record the source holds; otherwise only records produced after the create answered. ${STREAM_DSINFO} At most SML_MAX_STREAMS_PER_CUSTOMER streams per customer. 500 when the consumer cannot be built (broker unreachable, no JetStream stream holds the subject).`,
    contract: ops.create,
    params: projectParams, query: z.object({ fromBeginning: boolParam.optional() }), body: encryptedDsInfo, rawBody: true,
    success: { status: 201, description: 'DS Stream created stream with name [<name>] for customer [<user>]' },
    errors: ['INVALID_ENCRYPTED_PAYLOAD'],
    toRequest: (ctx) => {
      const { caller, dsInfo, isNull } = dsInfoRequest(ctx);
      return { caller, pid: ctx.params.pid, dsInfo, isNull, fromBeginning: ctx.query.fromBeginning === true };
    },
  }),
  defineRoute({
    method: 'get', path: '/:user/projects/:pid/streams/list', operationId: 'listStreams', tags: ['streams'], summary: 'The names of the project\'s streams',
    contract: ops.list,
    params: projectParams, values: z.object({ stringList: z.object({ values: z.array(z.string()) }) }),
    success: { status: 200, description: 'values.stringList.values' },
    toRequest: ({ caller, params }) => ({ caller, pid: params.pid }),
  }),
  ...(['start', 'stop'] as const).map((op) => defineRoute({
    method: 'get', path: `/:user/projects/:pid/streams/:s/${op}`, operationId: `${op}Stream`, tags: ['streams'],
    summary: op === 'start' ? 'Resume a stopped stream from where it stopped' : 'Suspend a stream (it resumes from here on start)',
    description: op === 'stop' ? 'Answers once the replica running the stream has let it go: nothing is learned after the answer. A stopped stream stays stopped across restarts.' : 'Clears the last error of a stream that stopped by itself (its project was deleted).',
    contract: ops[op],
    params: streamParams, success: { status: 200, description: `Stream [<s>] of project [<pid>] ${op === 'start' ? 'started' : 'stopped'}` },
    toRequest: streamRequest,
  })),
  defineRoute({
    method: 'delete', path: '/:user/projects/:pid/streams/:s', operationId: 'deleteStream', tags: ['streams'], summary: 'Stop and remove a stream (its consumer group / durable consumer too)',
    contract: ops.delete,
    params: streamParams, success: { status: 200, description: 'Stream [<s>] of project [<pid>] deleted' },
    toRequest: streamRequest,
  }),
  defineRoute({
    method: 'get', path: '/:user/projects/:pid/streams/:s/metrics', operationId: 'streamMetrics', tags: ['streams'],
    summary: 'Records read, learned, rejected, skipped (redelivered, learned before), lag, last error, state',
    description: 'values.KSVSMap.values[0]: a string map — name, type, topic or subject, state (running|stopped), recordsRead, recordsLearned, recordsRejected, recordsSkipped, batchesLearned, lag (records after the last batch), lastError, lastErrorTime, lastBatchTime, positions (JSON: partition → last offset learned), creationDate. Counters are written by the replica running the stream at most every 200 ms.',
    contract: ops.metrics,
    params: streamParams, values: z.object({ KSVSMap: z.object({ values: z.array(z.record(z.string(), z.string())) }) }),
    success: { status: 200, description: 'values.KSVSMap' },
    toRequest: streamRequest,
  }),
  defineRoute({
    method: 'get', path: '/:user/projects/:pid/streams/:s/errorLog', operationId: 'streamErrorLog', tags: ['streams'],
    summary: 'The stream\'s most recent errors (SML_STREAM_ERROR_LOG of them), oldest first',
    contract: ops.errorLog,
    params: streamParams, values: z.object({ stringList: z.object({ values: z.array(z.string()) }) }),
    success: { status: 200, description: 'values.stringList.values' },
    toRequest: streamRequest,
  }),
  defineRoute({
    method: 'post', path: '/:user/streams/poll', operationId: 'pollStream', tags: ['streams'],
    summary: 'The next records of a Kafka poller as values.dataframe',
    description: [
      'Kafka only. `sid`: the registered data source of that name (type kafka) is polled; the body is ignored. No sid: the body is an encrypted DSInfo of type kafka (200) or kafka-poll (answered 400 \'Preview invalid DS Stream type [kafka-poll]\' that still carries values.dataframe: the poll happened; nothing is registered); any other type 400.',
      'Pollers are kept per customer and DSInfo name (= sid) and continue where the previous poll left off; one not polled for 2 minutes is closed. A poll answers at most 500 records (4 MiB); with nothing read yet it waits up to 1 s (the first poll of a poller: its consumer group join and first fetch, up to 15 s).',
      'Bounds, per replica of the streams service: 8 pollers per customer (a 9th closes the customer\'s least recently polled one), 256 in all (then 503 STREAM_POLLERS_BUSY, retryable).',
      `${FRAME_OF_RECORDS} ${PRIVATE_BROKERS} 500 when the consumer cannot be built (broker unreachable, unknown topic).`,
    ].join(' '),
    contract: ops.poll,
    params: userParam, query: pollQuery, body: encryptedDsInfo.optional(), rawBody: true, valuesOnError: true,
    values: z.object({ dataframe: sampleFrame }), timeoutMs: 40_000,
    success: { status: 200, description: 'values.dataframe' },
    errors: ['INVALID_ENCRYPTED_PAYLOAD'],
    toRequest: (ctx): sml.v1.IStreamPollRequest => {
      const sid = typeof ctx.query.sid === 'string' ? ctx.query.sid : '';
      const fromBeginning = ctx.query.fromBeginning === true;
      if (sid) return { caller: ctx.caller, sid, fromBeginning };
      const { caller, dsInfo, isNull } = dsInfoRequest(ctx);
      return { caller, dsInfo, isNull, fromBeginning };
    },
  }),
  defineRoute({
    method: 'delete', path: '/:user/streams/poll', operationId: 'deletePoller', tags: ['streams'],
    summary: 'Close the poller named sid; a registered kafka data source of that name is deleted too',
    description: 'Streams made by create are never affected. An unknown sid answers 200 \'OK\'; no sid 500.',
    contract: ops.pollDelete,
    params: userParam, query: z.object({ sid: z.string().optional() }),
    success: { status: 200, description: 'OK' },
    toRequest: ({ caller, query }) => ({ caller, sid: typeof query.sid === 'string' ? query.sid : '' }),
  }),
  defineRoute({
    method: 'post', path: '/:user/streams/browse', operationId: 'browseStreams', tags: ['streams'],
    summary: 'List the topics of a Kafka cluster, or the JetStream streams and a stream\'s subjects of a NATS server (body: encrypted DSInfo)',
    description: `Kafka (info bootstrap.servers): values.dsdirectoryListing.files = "<topic>:<partitions>", topics starting with _ left out, path ignored. NATS (info nats_hosts, optional credentials as for a stream): no info.path → the stream names in dirs; info.path = a stream → its subjects in files and path echoed; an unknown stream → only ok:true. Unset fields are omitted. ${PRIVATE_BROKERS}`,
    contract: ops.browse,
    params: userParam, body: encryptedDsInfo, rawBody: true,
    values: z.object({ dsdirectoryListing: z.object({ ok: z.boolean(), dirs: z.array(z.string()).optional(), files: z.array(z.string()).optional(), path: z.string().optional() }) }),
    success: { status: 200, description: 'values.dsdirectoryListing' },
    errors: ['INVALID_ENCRYPTED_PAYLOAD'],
    toRequest: sourceRequest,
    present: listingPresentation,
  }),
  defineRoute({
    method: 'post', path: '/:user/streams/preview', operationId: 'previewStream', tags: ['streams'],
    summary: 'A sample DataFrame of a Kafka topic or NATS subject (body: encrypted DSInfo); registers nothing, touches no poller',
    description: `Up to 128 records from the start of the source (Kafka: a throw-away consumer group, deleted afterwards; NATS: an ordered ephemeral consumer), waiting up to 3 s for them. ${FRAME_OF_RECORDS} ${PRIVATE_BROKERS}`,
    contract: ops.preview,
    params: userParam, body: encryptedDsInfo, rawBody: true, values: z.object({ dataframe: sampleFrame }), timeoutMs: 40_000,
    success: { status: 200, description: 'values.dataframe' },
    errors: ['INVALID_ENCRYPTED_PAYLOAD'],
    toRequest: sourceRequest,
  }),
];

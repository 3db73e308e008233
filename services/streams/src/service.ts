import { randomUUID } from 'node:crypto';
import { contracts, errorStatus, kvBucket, Leases, okStatus, Presence, type BusService } from '@sml/bus';
import { checkName, nameToken, smlError } from '@sml/core';
import { sml } from '@sml/proto';
import { allowPrivateAddresses } from './guard';
import { Pollers, POLL_LIMITS } from './poller';
import { browse, preview } from './probe';
import { StreamStore } from './store';
import { Streams } from './streams';
import type { StreamsRuntime } from './main';

const ops = contracts.streams;
const pidOf = (pid: string | null | undefined) => checkName('project', pid);
const streamOf = (name: string | null | undefined) => checkName('stream', name);
/** Types of a registered data source a poller reads (`sid`), and that DELETE /streams/poll?sid= deletes. */
const KAFKA_TYPES = ['kafka', 'kafka-poll'];
const isKafka = (type: string | null | undefined) => KAFKA_TYPES.includes((type ?? '').toLowerCase());

/**
 * The streams service (API.md §9; bus identity `streams`). Wiring only: decode, call the
 * domain (streams.ts), encode. State: KV sml_streams (definitions), sml_stream_status
 * (counters, errorLog), sml_stream_leases (which replica runs each stream) and sml_stream_polls
 * (where each Kafka poller's next poll starts).
 */
export async function startStreams({ nc, service, client, config, log }: StreamsRuntime): Promise<{ onStop: () => Promise<void> }> {
  allowPrivateAddresses(config.SML_SOURCES_ALLOW_PRIVATE);
  const store = await StreamStore.open(nc);
  // The data-source registry of the projects service (datasources.ts: key <customer token>.<ds token>, value DsInfo).
  const dss = await kvBucket(nc, 'sml_dss');
  const dsKey = (user: string, ds: string) => `${nameToken(user)}.${nameToken(ds)}`;
  const registered = async (user: string, ds: string): Promise<sml.v1.DsInfo | undefined> => {
    const e = await dss.get(dsKey(user, ds));
    return e && e.operation === 'PUT' ? sml.v1.DsInfo.decode(e.value) : undefined;
  };
  // Where each poller's next poll starts, shared by the replicas; forgotten after the pollers' idle time.
  const pollPositions = await kvBucket(nc, 'sml_stream_polls', { ttl: POLL_LIMITS.idleMs });
  const pollers = new Pollers({ ...POLL_LIMITS, maxRecordBytes: config.SML_STREAM_MAX_RECORD_BYTES }, pollPositions, log);
  const owner = randomUUID();
  // Live replicas, to share the streams out: forgotten one lease time after their last round.
  const presence = new Presence(await kvBucket(nc, 'sml_stream_replicas', { ttl: config.SML_STREAM_LEASE_MS }), owner);
  const streams = new Streams(store, new Leases(store.leases, owner, config.SML_STREAM_LEASE_MS), presence, client, log, {
    maxPerCustomer: config.SML_MAX_STREAMS_PER_CUSTOMER,
    leaseMs: config.SML_STREAM_LEASE_MS,
    runner: {
      batch: { records: config.SML_STREAM_BATCH_RECORDS, bytes: config.SML_STREAM_BATCH_BYTES, waitMs: config.SML_STREAM_BATCH_MS },
      maxRecordBytes: config.SML_STREAM_MAX_RECORD_BYTES,
      errorLog: config.SML_STREAM_ERROR_LOG,
    },
  });

  registerStreams(service, streams);

  // POST /{user}/streams/poll (API.md §9): `sid` names a registered kafka data source and wins
  // over the body; a body of type kafka-poll is polled and answered 400 with its dataframe.
  service.handle(ops.poll, async (req, { caller }) => {
    const user = caller.user!;
    const fromBeginning = req.fromBeginning === true;
    if (req.sid) {
      const sid = checkName('data source', req.sid);
      const ds = await registered(user, sid);
      if (!ds) throw smlError('DS_NOT_FOUND', { ds: sid });
      if (!isKafka(ds.type)) throw smlError('STREAM_POLL_NOT_KAFKA', { ds: sid, type: ds.type });
      return { dataframe: await pollers.poll(user, { ...ds, name: sid }, fromBeginning) };
    }
    if (req.isNull || !req.dsInfo) throw smlError('DS_NULL');
    const ds = req.dsInfo;
    if (!isKafka(ds.type)) throw smlError('STREAM_PREVIEW_TYPE', { type: ds.type ?? '' });
    const dataframe = await pollers.poll(user, { ...ds, name: checkName('stream', ds.name) }, fromBeginning);
    if ((ds.type ?? '').toLowerCase() === 'kafka') return { dataframe };
    return { status: errorStatus(smlError('STREAM_PREVIEW_TYPE', { type: ds.type })), dataframe };
  });
  // DELETE /{user}/streams/poll?sid=: the poller goes, and the registered kafka data source of
  // that name; streams made by create are never touched. Unknown sid: 200 OK; none: 500.
  service.handle(ops.pollDelete, async (req, { caller }) => {
    const user = caller.user!;
    if (!req.sid) throw smlError('GENERIC_EXCEPTION', { detail: 'sid is null' });
    const sid = checkName('data source', req.sid);
    await pollers.evict(user, sid);
    const ds = await registered(user, sid);
    if (ds && isKafka(ds.type)) {
      await dss.delete(dsKey(user, sid));
      log.info({ user, ds: sid }, 'kafka data source deleted with its poller');
    }
    return { status: okStatus('OK') };
  });
  service.handle(ops.browse, async (req, { caller }) => {
    if (req.isNull || !req.dsInfo) throw smlError('DS_NULL');
    return { dsdirectoryListing: await browse(caller.user!, req.dsInfo, log) };
  });
  service.handle(ops.preview, async (req, { caller }) => {
    if (req.isNull || !req.dsInfo) throw smlError('DS_NULL');
    return { dataframe: await preview(caller.user!, req.dsInfo, config.SML_STREAM_MAX_RECORD_BYTES, log) };
  });

  await streams.begin();
  log.info('streams endpoints registered');
  return { onStop: async () => { await pollers.close(); await streams.end(); } };
}

/** The operations on a project's streams (create, start, stop, delete, list, metrics, errorLog). */
function registerStreams(service: BusService, streams: Streams): void {
  service.handle(ops.create, async (req, { caller }) => {
    if (req.isNull || !req.dsInfo) throw smlError('DS_NULL');
    return { status: await streams.create(caller.user!, pidOf(req.pid), req.dsInfo, req.fromBeginning === true) };
  });
  service.handle(ops.start, async (req, { caller }) => ({
    status: await streams.start(caller.user!, pidOf(req.pid), streamOf(req.stream)),
  }));
  service.handle(ops.stop, async (req, { caller }) => ({
    status: await streams.stop(caller.user!, pidOf(req.pid), streamOf(req.stream)),
  }));
  service.handle(ops.delete, async (req, { caller }) => ({
    status: await streams.delete(caller.user!, pidOf(req.pid), streamOf(req.stream)),
  }));
  service.handle(ops.list, async (req, { caller }) => ({
    stringList: { values: await streams.list(caller.user!, pidOf(req.pid)) },
  }));
  service.handle(ops.metrics, async (req, { caller }) => ({
    KSVSMap: { values: [{ entries: await streams.metrics(caller.user!, pidOf(req.pid), streamOf(req.stream)) }] },
  }));
  service.handle(ops.errorLog, async (req, { caller }) => ({
    stringList: { values: await streams.errorLog(caller.user!, pidOf(req.pid), streamOf(req.stream)) },
  }));
}

import { randomUUID } from 'node:crypto';
import { subjects, type ServiceRuntime } from '@sml/bus';
import { checkName, smlError } from '@sml/core';
import { sml } from '@sml/proto';
import { Leases } from './lease';
import { StreamStore } from './store';
import { Streams } from './streams';

const s = subjects.streams;
const pidOf = (pid: string | null | undefined) => checkName('project', pid);
const streamOf = (name: string | null | undefined) => checkName('stream', name);

/**
 * The streams service (API.md §9; bus identity `streams`). Wiring only: decode, call the
 * domain (streams.ts), encode. State: KV sml_streams (definitions), sml_stream_status
 * (counters, errorLog) and sml_stream_leases (which replica runs each stream).
 */
export async function startStreams({ nc, service, client, config, log }: ServiceRuntime): Promise<{ onStop: () => Promise<void> }> {
  const store = await StreamStore.open(nc);
  const streams = new Streams(store, new Leases(store.leases, randomUUID(), config.SML_STREAM_LEASE_MS), client, log, {
    maxPerCustomer: config.SML_MAX_STREAMS_PER_CUSTOMER,
    leaseMs: config.SML_STREAM_LEASE_MS,
    runner: {
      batch: { records: config.SML_STREAM_BATCH_RECORDS, bytes: config.SML_STREAM_BATCH_BYTES, waitMs: config.SML_STREAM_BATCH_MS },
      maxRecordBytes: config.SML_STREAM_MAX_RECORD_BYTES,
      errorLog: config.SML_STREAM_ERROR_LOG,
    },
  });

  service.endpoint(s.create, sml.v1.StreamCreateRequest, sml.v1.Empty, async (req, { caller }) => {
    if (req.isNull || !req.dsInfo) throw smlError('DS_NULL');
    return { status: await streams.create(caller.user!, pidOf(req.pid), req.dsInfo, req.fromBeginning === true) };
  });
  service.endpoint(s.start, sml.v1.StreamRequest, sml.v1.Empty, async (req, { caller }) => ({
    status: await streams.start(caller.user!, pidOf(req.pid), streamOf(req.stream)),
  }));
  service.endpoint(s.stop, sml.v1.StreamRequest, sml.v1.Empty, async (req, { caller }) => ({
    status: await streams.stop(caller.user!, pidOf(req.pid), streamOf(req.stream)),
  }));
  service.endpoint(s.delete, sml.v1.StreamRequest, sml.v1.Empty, async (req, { caller }) => ({
    status: await streams.delete(caller.user!, pidOf(req.pid), streamOf(req.stream)),
  }));
  service.endpoint(s.list, sml.v1.StreamRequest, sml.v1.StreamListReply, async (req, { caller }) => ({
    stringList: { values: await streams.list(caller.user!, pidOf(req.pid)) },
  }));
  service.endpoint(s.metrics, sml.v1.StreamRequest, sml.v1.StreamMetricsReply, async (req, { caller }) => ({
    KSVSMap: { values: [{ entries: await streams.metrics(caller.user!, pidOf(req.pid), streamOf(req.stream)) }] },
  }));
  service.endpoint(s.errorLog, sml.v1.StreamRequest, sml.v1.StreamErrorLogReply, async (req, { caller }) => ({
    stringList: { values: await streams.errorLog(caller.user!, pidOf(req.pid), streamOf(req.stream)) },
  }));

  await streams.begin();
  log.info('streams endpoints registered');
  return { onStop: () => streams.end() };
}

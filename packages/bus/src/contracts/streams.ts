import { sml } from '@sml/proto';
import { defineContracts } from './contract';

/** The streams service (API.md §9): any replica answers; one runs each stream. */
export const streams = defineContracts('streams', {
  create: { request: sml.v1.StreamCreateRequest, reply: sml.v1.Empty, errors: ['DS_INVALID', 'DS_NULL', 'STREAM_UNKNOWN_TYPE', 'STREAM_INVALID', 'STREAM_EXISTS', 'STREAM_LIMIT', 'PROJECT_NOT_FOUND', 'INVALID_NAME', 'GENERIC_EXCEPTION'] },
  list: { request: sml.v1.StreamRequest, reply: sml.v1.StreamListReply, errors: [] },
  start: { request: sml.v1.StreamRequest, reply: sml.v1.Empty, errors: ['STREAM_NOT_FOUND'] },
  stop: { request: sml.v1.StreamRequest, reply: sml.v1.Empty, errors: ['STREAM_NOT_FOUND'] },
  delete: { request: sml.v1.StreamRequest, reply: sml.v1.Empty, errors: ['STREAM_NOT_FOUND'] },
  metrics: { request: sml.v1.StreamRequest, reply: sml.v1.StreamMetricsReply, errors: ['STREAM_NOT_FOUND'] },
  errorLog: { request: sml.v1.StreamRequest, reply: sml.v1.StreamErrorLogReply, errors: ['STREAM_NOT_FOUND'] },
  poll: { request: sml.v1.StreamPollRequest, reply: sml.v1.StreamSampleReply, errors: ['DS_INVALID', 'DS_NULL', 'DS_NOT_FOUND', 'STREAM_PREVIEW_TYPE', 'STREAM_POLL_NOT_KAFKA', 'STREAM_INVALID', 'STREAM_POLLERS_BUSY', 'INVALID_NAME', 'GENERIC_EXCEPTION'] },
  pollDelete: { request: sml.v1.StreamPollRequest, reply: sml.v1.Empty, errors: ['INVALID_NAME', 'GENERIC_EXCEPTION'] },
  browse: { request: sml.v1.StreamSourceRequest, reply: sml.v1.StreamBrowseReply, errors: ['DS_INVALID', 'DS_NULL', 'STREAM_UNKNOWN_TYPE', 'STREAM_INVALID', 'GENERIC_EXCEPTION'] },
  preview: { request: sml.v1.StreamSourceRequest, reply: sml.v1.StreamSampleReply, errors: ['DS_INVALID', 'DS_NULL', 'STREAM_UNKNOWN_TYPE', 'STREAM_INVALID', 'GENERIC_EXCEPTION'] },
});

/** The operations of the streams service. */
export type StreamsOp = keyof typeof streams;

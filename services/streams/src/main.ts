#!/usr/bin/env node
import { serviceMain, type ServiceRuntime } from '@sml/bus';
import { type ConfigKey } from '@sml/core';
import { startStreams } from './service';

/** What the streams service reads of the configuration (beside runService's own): its slice, validated at start-up. */
const STREAMS_CONFIG = [
  'SML_MAX_STREAMS_PER_CUSTOMER',
  'SML_SOURCES_ALLOW_PRIVATE',
  'SML_STREAM_BATCH_BYTES',
  'SML_STREAM_BATCH_MS',
  'SML_STREAM_BATCH_RECORDS',
  'SML_STREAM_ERROR_LOG',
  'SML_STREAM_LEASE_MS',
  'SML_STREAM_MAX_RECORD_BYTES',
] as const satisfies readonly ConfigKey[];
export type StreamsRuntime = ServiceRuntime<(typeof STREAMS_CONFIG)[number]>;

serviceMain('streams', STREAMS_CONFIG, startStreams);

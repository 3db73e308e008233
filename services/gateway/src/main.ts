#!/usr/bin/env node
import { serviceMain, type ServiceRuntime } from '@sml/bus';
import { type ConfigKey, PARAMETER_LIMITS_CONFIG, STATS_KERNEL_CONFIG, statsKernels } from '@sml/core';
import { selectKernels } from '@sml/stats/frames';
import { startGateway } from './gateway';

/** What the gateway reads of the configuration (beside runService's own): its slice, validated at start-up. */
const GATEWAY_CONFIG = [
  'SML_AUTH_FUTURE_WINDOW_MS',
  'SML_AUTH_PAST_WINDOW_MS',
  'SML_BASE_PATH',
  'SML_DATA_DIR',
  'SML_GATEWAY_BATCH_SUMMARY_PROJECTS',
  'SML_GATEWAY_BODY_THREADS',
  'SML_GATEWAY_BODY_THREAD_MIN_BYTES',
  'SML_HOST',
  'SML_MAX_BODY_BYTES',
  'SML_MAX_HEADER_BYTES',
  'SML_MAX_IN_FLIGHT_BODY_BYTES',
  'SML_MAX_INFLATE_RATIO',
  'SML_MAX_JSON_BODY_BYTES',
  'SML_MAX_PREDICT_CELLS',
  'SML_MAX_QUERY_PARAMETERS',
  'SML_MAX_URL_BYTES',
  'SML_PORT',
  'SML_REQUIRED_SERVICES',
  'SML_ROOT_SECRET',
  'SML_ROOT_USER',
  'SML_TRUST_PROXY',
  'SML_WS_MAX_CONNECTIONS_PER_CUSTOMER',
  'SML_WS_MAX_IN_FLIGHT',
  'SML_WS_PATH',
  'SML_WS_UNAUTHENTICATED_BYTES_IN_FLIGHT',
  'SML_WS_UNAUTHENTICATED_MAX_BYTES',
  ...PARAMETER_LIMITS_CONFIG,
  ...STATS_KERNEL_CONFIG,
] as const satisfies readonly ConfigKey[];
export type GatewayRuntime = ServiceRuntime<(typeof GATEWAY_CONFIG)[number]>;
export type GatewayConfig = GatewayRuntime['config'];

serviceMain('users', GATEWAY_CONFIG, (rt) => {
  // This thread's statistics kernels; each worker thread selects its own (its *-worker.ts).
  selectKernels(statsKernels(rt.config));
  return startGateway(rt);
});

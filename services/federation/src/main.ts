#!/usr/bin/env node
import { serviceMain, type ServiceRuntime } from '@sml/bus';
import { type ConfigKey } from '@sml/core';
import { startFederation } from './federation';

/** What the federation service reads of the configuration (beside runService's own): its slice, validated at start-up. */
const FEDERATION_CONFIG = [
  'SML_FED_MIN_INTERVAL_MS',
  'SML_FED_CLOCK_SKEW_S',
  'SML_FED_TOKEN_HOUR_MS',
  'SML_SOURCES_ALLOW_PRIVATE',
] as const satisfies readonly ConfigKey[];
export type FederationRuntime = ServiceRuntime<(typeof FEDERATION_CONFIG)[number]>;

serviceMain('federation', FEDERATION_CONFIG, startFederation);

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { SmlError } from '@sml/core';

/**
 * The answers that refuse an authentication (API.md §2's checks, in their order): a missing
 * header or date, a date out of format or window, a digest or signature that does not match,
 * and every 401 (unknown user, customer mismatch, replay, root only).
 */
export function isAuthFailure(err: SmlError): boolean {
  return err.status === 401 || err.code === 'AUTH_HEADER_NULL' || err.code === 'MD5_MISMATCH' || err.code.includes('DATE') || err.code === 'CLOCK_SKEW';
}

/** Prometheus metrics of one gateway process, served on /metrics. */
export class GatewayMetrics {
  readonly registry = new Registry();
  readonly requestDuration = new Histogram({
    name: 'sml_http_request_duration_seconds',
    help: 'REST request latency by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
    registers: [this.registry],
  });
  readonly authFailures = new Counter({
    name: 'sml_auth_failures_total',
    help: 'Rejected authentications by error code',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });

  readonly bodyBytesInFlight = new Gauge({
    name: 'sml_request_body_bytes_in_flight',
    help: 'Bytes of request bodies the gateway holds now (bounded by SML_MAX_BODY_BYTES_IN_FLIGHT)',
    registers: [this.registry],
  });
  readonly bodyBudgetRefusals = new Counter({
    name: 'sml_request_body_budget_refusals_total',
    help: 'Requests answered 503 because their body did not fit SML_MAX_BODY_BYTES_IN_FLIGHT',
    registers: [this.registry],
  });

  readonly bodyThreadTasks = new Counter({
    name: 'sml_gateway_body_thread_tasks_total',
    help: 'Large request bodies hashed (digest), hashed then read as learn frames in the same trip (digest_frame), or read as frames (frame) on the gateway\'s body threads',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }
}

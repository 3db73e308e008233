import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

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

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }
}

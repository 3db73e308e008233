import type { NatsConnection } from 'nats';
import { smlError, type Logger } from '@sml/core';
import type { sml } from '@sml/proto';
import { BusHealth, JOB_EVENTS_STREAM, errorStatus } from '@sml/bus';
import type { JobStore } from './store';

/** The failure of a job whose lease expired, naming the service whose process ran it. */
export function leaseExpired(record: sml.v1.IJobRecord, leaseMs: number): sml.v1.IStatus {
  // Records written before leases existed name the service only in their cancel subject.
  const service = record.runner || record.cancelSubject?.split('.').pop() || 'owning';
  return errorStatus(smlError('JOB_LEASE_EXPIRED', { service, seconds: leaseMs / 1000 }));
}

export interface LeaseOptions {
  leaseMs: number;
  /** The durable consumer folding SML_JOB_EVENTS: no job expires while it has events to deliver. */
  foldConsumer: string;
  log: Logger;
}

/**
 * Fails the jobs whose runner went silent (README "Leases"). A job's lease is renewed each
 * time one of its events is folded; it expires SML_JOB_LEASE_MS after the latest renewal, but
 * never sooner than SML_JOB_LEASE_MS after this replica started or its NATS connection came
 * back: while the jobs service (or NATS) was away, runners may have been alive and unheard.
 * Nor while the fold has events not yet delivered: a heartbeat may be among them.
 */
export class LeaseKeeper {
  private timer?: NodeJS.Timeout;
  private sweeping = false;
  /** Leases are counted from here at the earliest (start, reconnection). */
  private since = Date.now();
  private offEnsured?: () => void;

  constructor(private readonly nc: NatsConnection, private readonly store: JobStore, private readonly opts: LeaseOptions) {}

  start(): void {
    this.since = Date.now();
    this.offEnsured = BusHealth.of(this.nc).onEnsured(() => { this.since = Date.now(); });
    const every = Math.max(50, Math.min(1000, Math.floor(this.opts.leaseMs / 5)));
    this.timer = setInterval(() => void this.sweep(), every);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.offEnsured?.();
  }

  /** One pass over the unfinished jobs; a pass still running is not overlapped. */
  async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      const now = Date.now();
      const { leaseMs, log } = this.opts;
      if (!BusHealth.of(this.nc).connected) this.since = now;
      if (now - this.since < leaseMs) return;
      const cutoff = now - leaseMs;
      const silent = this.store.silentSince(cutoff);
      if (silent.length === 0 || (await this.foldBehind())) return;
      for (const key of silent) {
        const expired = await this.store.expire(key, cutoff, (r) => leaseExpired(r, leaseMs));
        if (!expired) continue;
        log.warn({ jobId: Number(expired.info?.jobId), user: expired.user, runner: expired.runner, runnerInstance: expired.runnerInstance }, 'job lease expired: job failed');
        // A runner that was only stalled drops the job rather than apply it.
        if (expired.cancelSubject) this.nc.publish(expired.cancelSubject, new TextEncoder().encode(String(expired.info?.jobId)));
      }
    } catch (err) {
      this.opts.log.warn({ err }, 'job lease sweep failed; next pass retries');
    } finally {
      this.sweeping = false;
    }
  }

  private async foldBehind(): Promise<boolean> {
    const info = await (await this.nc.jetstreamManager()).consumers.info(JOB_EVENTS_STREAM, this.opts.foldConsumer);
    return info.num_pending > 0;
  }
}

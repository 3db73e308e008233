import type { BusService, Leases } from '@sml/bus';
import type { Logger } from '@sml/core';
import type { ProjectRegistry } from './registry';

/** The KV key of the lease on the projects (one shard today: the subjects' shard token 0). */
export const PROJECTS_LEASE_KEY = 'shard.0';

/**
 * Which projects replica serves the projects: the one holding the lease PROJECTS_LEASE_KEY in
 * KV `sml_project_leases`. The others stand by with their endpoints unsubscribed (BusService
 * suspended), so every request reaches the holder, and take the lease over once it expires
 * (the holder died) — loading each project from its snapshot and log as it is asked for.
 *
 * A replica that fails to renew stops answering at once and drops what it had in memory. Its
 * writes in flight are fenced: a log append names the log's end it knows (ProjectStore.append),
 * and a snapshot is written only while the lease is held (`holds`).
 */
export class ProjectsOwnership {
  private revision?: number;
  private timer?: NodeJS.Timeout;
  private round: Promise<void> = Promise.resolve();

  constructor(
    private readonly leases: Leases,
    private readonly service: BusService,
    private readonly registry: ProjectRegistry,
    private readonly log: Logger,
    private readonly leaseMs: number,
  ) {}

  /** Whether this replica holds the lease (as of its last renewal). */
  get holds(): boolean {
    return this.revision !== undefined;
  }

  /** Suspends the service, then tries to take the lease now and every third of a lease. */
  async start(): Promise<void> {
    await this.service.suspend();
    await this.tick();
    this.timer = setInterval(() => void this.tick(), Math.max(100, Math.floor(this.leaseMs / 3)));
    this.timer.unref();
  }

  /** One round: renew the lease held, or try to take it. Rounds never overlap. */
  tick(): Promise<void> {
    this.round = this.round.then(() => this.once()).catch((err: unknown) => this.log.error({ err }, 'projects lease round failed'));
    return this.round;
  }

  private async once(): Promise<void> {
    if (this.revision !== undefined) {
      const renewed = await this.leases.renew(PROJECTS_LEASE_KEY, this.revision);
      if (renewed !== undefined) {
        this.revision = renewed;
        return;
      }
      this.revision = undefined;
      await this.service.suspend();
      this.registry.dropAll();
      this.log.warn({ owner: this.leases.owner }, 'projects lease lost: standing by');
      return;
    }
    const taken = await this.leases.acquire(PROJECTS_LEASE_KEY);
    if (taken === undefined) return;
    // Nothing a previous holding left in memory is trusted: projects load from what is durable.
    this.registry.dropAll();
    this.revision = taken;
    await this.service.resume();
    this.log.info({ owner: this.leases.owner }, 'projects lease taken: serving');
  }

  /** A clean stop gives the lease up, so a standby need not wait for it to expire. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.round;
    const revision = this.revision;
    this.revision = undefined;
    await this.service.suspend();
    if (revision !== undefined) await this.leases.release(PROJECTS_LEASE_KEY, revision);
  }
}

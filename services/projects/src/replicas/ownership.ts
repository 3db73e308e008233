import type { Logger } from '@sml/core';
import type { ReplicaPresence, ShardEndpoints, ShardLeases } from '../ports';
import type { ProjectRegistry } from '../lifecycle/registry';

/** The KV key of the lease on shard `shard` of the projects (KV `sml_project_leases`). */
export const shardLeaseKey = (shard: number): string => `shard.${shard}`;

/** Rounds a shard given up is not taken back by the same replica, so another one gets it. */
const COOLDOWN_ROUNDS = 2;

export interface OwnershipDeps {
  leases: ShardLeases;
  presence: ReplicaPresence;
  /** One per shard (index = shard), each suspended until its lease is held. */
  services: ShardEndpoints[];
  registry: ProjectRegistry;
  log: Logger;
  leaseMs: number;
}

/**
 * Which projects replica serves which shard of the projects (README "Replicas"): the one
 * holding the shard's lease in KV `sml_project_leases`. A replica keeps the endpoints of every
 * other shard unsubscribed (its BusService for that shard suspended), so a request reaches
 * only the holder. Every third of a lease each replica renews what it holds, says it is alive
 * (KV `sml_project_replicas`), and evens the shares out: with L live replicas and P shards it
 * takes free or expired shards while it holds fewer than ⌈P/L⌉, and gives one up per round
 * while it holds more than ⌊P/L⌋ and another holds fewer — a joining replica gets its share,
 * a dead one's shards are taken over once their leases expired.
 *
 * Taking or losing a shard drops its loaded projects: they load from snapshot + log when next
 * asked for. A replica whose lease was taken stops answering for the shard at once; one whose
 * renewals go unanswered (NATS in an election) keeps answering until the lease may have
 * expired, and writes nothing for it (log appends, snapshots) once its lease has less than a
 * third left (`holds`).
 * The first append after a load is fenced besides (ProjectState.fenced).
 */
export class ProjectsOwnership {
  /** Shard → revision of its lease, for the shards this replica holds. */
  private readonly held = new Map<number, number>();
  /** Shard → when the last renewal (or take) was sent: the lease runs at least a lease from then. */
  private readonly renewedAt = new Map<number, number>();
  /** Shard → rounds left before this replica may take it back (given up to even shares out). */
  private readonly cooldown = new Map<number, number>();
  /** Shard → the timer that gives it up a lease after its last renewal, unless renewed meanwhile. */
  private readonly expiries = new Map<number, NodeJS.Timeout>();
  /** Live projects replicas at the last answered presence round (this one included). */
  private live = 1;
  /** Shards kept past their lease because no other replica could take them (see renewed()). */
  private readonly overdue = new Set<number>();
  private timer?: NodeJS.Timeout;
  /** A round when the next lease held by another replica runs out (see once(), step 4). */
  private wake?: NodeJS.Timeout;
  private round: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly deps: OwnershipDeps) {}

  /**
   * Whether this replica holds the lease of `shard` and it has more than a third of a lease
   * left: past that (renewals failing, or this process stalled) it writes nothing more for
   * the shard, so its writes end before another replica can take the lease — with the
   * replicas' clocks within a third of a lease of each other.
   */
  holds(shard: number): boolean {
    const at = this.renewedAt.get(shard);
    return this.held.has(shard) && at !== undefined && Date.now() < at + (2 * this.deps.leaseMs) / 3;
  }

  /** The shards held, ascending. */
  get shards(): number[] {
    return [...this.held.keys()].sort((a, b) => a - b);
  }

  /** Tries for its share now, then every third of a lease. */
  async start(): Promise<void> {
    await this.tick();
    this.timer = setInterval(() => void this.tick(), Math.max(100, Math.floor(this.deps.leaseMs / 3)));
    this.timer.unref();
  }

  /** One round. Rounds never overlap. */
  tick(): Promise<void> {
    this.round = this.round.then(() => (this.stopped ? undefined : this.once())).catch((err: unknown) => this.deps.log.error({ err }, 'projects lease round failed'));
    return this.round;
  }

  private async once(): Promise<void> {
    const { leases, presence, services } = this.deps;
    const shards = services.length;
    // 1. Renew, every shard at once (one slow answer must not hold the others past their
    // leases). A lease lost meanwhile stops its shard at once. One NATS did not answer (an
    // election of the KV's stream, a restart) is still this replica's until a lease after
    // its last answered renewal: the shard keeps serving and its projects stay loaded, with
    // no write past two thirds of that (holds()), until its expiry timer (renewed()).
    await Promise.all([...this.held].map(async ([shard, revision]) => {
      const sentAt = Date.now();
      const renewed = await leases.renewal(shardLeaseKey(shard), revision);
      // Given up meanwhile (its lease ran out while NATS did not answer): a late renewal is
      // this replica's lease again, which the next round takes back like any of its own.
      if (!this.held.has(shard)) return;
      if (typeof renewed === 'number') {
        this.held.set(shard, renewed);
        this.renewed(shard, sentAt);
      } else if (renewed === 'lost') {
        await this.lose(shard, 'lease lost');
      } else {
        this.deps.log.warn({ owner: leases.owner, shard }, 'projects lease renewal not answered; still serving, writes stop at two thirds of the lease');
      }
    }));
    for (const [shard, n] of this.cooldown) if (n <= 1) this.cooldown.delete(shard); else this.cooldown.set(shard, n - 1);
    // 2. Shares: who holds what now.
    const live = await presence.beat();
    this.live = live;
    // Kept past their lease while alone (renewed()), still unrenewed, and now another replica
    // is alive that may take them: given up, as they would have been.
    if (live > 1) for (const shard of [...this.overdue]) await this.lose(shard, 'lease not renewed for a lease (NATS did not answer); another replica is alive now');
    const now = Date.now();
    const holders = await leases.holders(Array.from({ length: shards }, (_, s) => shardLeaseKey(s)));
    const counts = new Map<string, number>();
    const free: number[] = [];
    for (let s = 0; s < shards; s++) {
      const h = holders.get(shardLeaseKey(s));
      // Held under this replica's name but not by this process: its previous run (a restart
      // under the same SML_REPLICA_ID) — taken back at once, not after the lease expires.
      const mine = h?.owner === leases.owner && !this.held.has(s);
      if (h && h.until > now && !mine) counts.set(h.owner, (counts.get(h.owner) ?? 0) + 1);
      else if (!this.held.has(s)) free.push(s);
    }
    counts.set(leases.owner, this.held.size);
    const floor = Math.floor(shards / live);
    const ceil = Math.ceil(shards / live);
    // 3. Over ⌈P/L⌉ (e.g. the first replica up took every shard): give the excess up at once;
    // over ⌊P/L⌋ while another replica is under it: one per round.
    const someoneUnder = counts.size < live ? floor >= 1 : [...counts.values()].some((c) => c < floor);
    const excess = this.held.size > ceil ? this.held.size - ceil : this.held.size > floor && someoneUnder && free.length === 0 ? 1 : 0;
    if (excess > 0) {
      for (const shard of [...this.held.keys()].sort((a, b) => b - a).slice(0, excess)) {
        const revision = this.held.get(shard)!;
        await this.lose(shard, 'given up to even the shares out');
        this.cooldown.set(shard, COOLDOWN_ROUNDS);
        await leases.release(shardLeaseKey(shard), revision);
      }
      return;
    }
    // 4. Under a fair share: take free shards (never held, or expired: their holder died) —
    // and come back the moment the next of the others' leases runs out, rather than up to a
    // third of a lease later: a dead holder's shard is served again as soon as it may be.
    if (this.held.size < ceil) {
      const next = Math.min(...[...holders.values()].filter((h) => h.owner !== leases.owner && h.until > now).map((h) => h.until));
      if (Number.isFinite(next)) {
        clearTimeout(this.wake);
        this.wake = setTimeout(() => void this.tick(), next - now + 50);
        this.wake.unref();
      }
    }
    for (const shard of free) {
      if (this.held.size >= ceil) break;
      if (this.cooldown.has(shard)) continue;
      const sentAt = Date.now();
      const taken = await leases.acquire(shardLeaseKey(shard));
      if (taken !== undefined) {
        this.renewed(shard, sentAt);
        await this.take(shard, taken);
      }
    }
  }

  /**
   * A renewal (or take) of `shard` sent at `sentAt` was answered: the lease runs until a lease
   * from then. Should no later renewal be answered by then, the shard is given up at that
   * moment, not at the end of a round that may be waiting for NATS: past it another replica
   * may serve the shard, and this one must not answer for it any more, reads included.
   *
   * Unless no other replica can take it: when the last presence round saw this replica alone,
   * giving the shard up would only turn a slow NATS (a loaded machine, a leader election) into
   * "no responders" for every request of the shard until this replica takes it back. It keeps
   * answering instead — reads from what it has loaded, no write (holds() is false until a
   * renewal is answered) — and the next answered renewal tells: still its own (the lease's
   * revision unchanged, so nobody took it meanwhile) and it serves on, or taken and it stops.
   */
  private renewed(shard: number, sentAt: number): void {
    this.renewedAt.set(shard, sentAt);
    if (this.overdue.delete(shard)) this.deps.log.info({ owner: this.deps.leases.owner, shard }, 'projects lease renewed again: writing again');
    clearTimeout(this.expiries.get(shard));
    const timer = setTimeout(() => {
      if (this.renewedAt.get(shard) !== sentAt) return;
      if (this.live <= 1) {
        this.overdue.add(shard);
        this.deps.log.warn({ owner: this.deps.leases.owner, shard }, 'projects lease not renewed for a lease (NATS did not answer); no other live replica can take the shard: still serving it, no writes until a renewal is answered');
        return;
      }
      void this.lose(shard, 'lease not renewed for a lease (NATS did not answer)');
    }, Math.max(0, sentAt + this.deps.leaseMs - Date.now()));
    timer.unref();
    this.expiries.set(shard, timer);
  }

  private async take(shard: number, revision: number): Promise<void> {
    // Nothing a previous holding left in memory is trusted: projects load from what is durable.
    this.deps.registry.dropShard(shard);
    this.held.set(shard, revision);
    await this.deps.services[shard].resume();
    this.deps.log.info({ owner: this.deps.leases.owner, shard }, 'projects shard taken: serving');
  }

  private async lose(shard: number, why: string): Promise<void> {
    if (!this.held.has(shard)) return; // lost already (its expiry timer and a round may both come)
    this.held.delete(shard);
    this.renewedAt.delete(shard);
    this.overdue.delete(shard);
    clearTimeout(this.expiries.get(shard));
    this.expiries.delete(shard);
    await this.deps.services[shard].suspend();
    this.deps.registry.dropShard(shard);
    this.deps.log.warn({ owner: this.deps.leases.owner, shard, why }, 'projects shard no longer served here');
  }

  /** A clean stop gives every lease up, so other replicas need not wait for them to expire. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.wake);
    await this.round;
    for (const timer of this.expiries.values()) clearTimeout(timer);
    this.expiries.clear();
    for (const [shard, revision] of [...this.held]) {
      this.held.delete(shard);
      await this.deps.services[shard].suspend();
      await this.deps.leases.release(shardLeaseKey(shard), revision);
    }
    await this.deps.presence.leave();
  }
}

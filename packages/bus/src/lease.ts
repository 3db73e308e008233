import type { KV } from 'nats';
import { sml } from '@sml/proto';
import { JS_ERR, jsErrorCode } from './js-errors';

const isWrongLastSequence = (err: unknown) => jsErrorCode(err) === JS_ERR.WRONG_LAST_SEQUENCE;

/**
 * Which replica holds something (a stream's run, a projects shard): a record `{owner, until}`
 * in a KV bucket, written only by revision-checked create/update, so two replicas can never
 * both believe they took it. The holder renews it (every lease/3); another replica takes it
 * over once `until` has passed — after a crash, within the lease time — and the same owner
 * (a replica restarted under its SML_REPLICA_ID) at once. Clocks of the replicas are assumed
 * within a fraction of the lease of each other; what a holder writes is fenced besides (the
 * streams' marks, the project log's expected last sequence), so an overlap cannot double data.
 */
export class Leases {
  constructor(private readonly kv: KV, readonly owner: string, private readonly leaseMs: number) {}

  /** Takes or renews the lease of `key`; returns its revision, or undefined when another replica holds it. */
  async acquire(key: string, now = Date.now()): Promise<number | undefined> {
    const value = sml.v1.StreamLease.encode({ owner: this.owner, until: now + this.leaseMs }).finish();
    const e = await this.kv.get(key);
    try {
      if (!e || e.operation !== 'PUT') return e ? await this.kv.update(key, value, e.revision) : await this.kv.create(key, value);
      const held = sml.v1.StreamLease.decode(e.value);
      if (held.owner !== this.owner && Number(held.until) > now) return undefined;
      return await this.kv.update(key, value, e.revision);
    } catch {
      return undefined; // another replica wrote first
    }
  }

  /**
   * Renews a lease held at `revision`: its new revision; `lost` when another replica holds
   * it now (or nobody does); `unknown` when NATS did not answer (an election, a restart), so
   * the lease may or may not have been renewed — it runs at least until its last renewal's
   * `until` either way. A renewal whose answer was lost moved the revision: the next one
   * meets this replica's own record at a later revision and renews that.
   */
  async renewal(key: string, revision: number, now = Date.now()): Promise<number | 'lost' | 'unknown'> {
    const value = sml.v1.StreamLease.encode({ owner: this.owner, until: now + this.leaseMs }).finish();
    try {
      return await this.kv.update(key, value, revision);
    } catch (err) {
      if (!isWrongLastSequence(err)) return 'unknown';
    }
    try {
      const e = await this.kv.get(key);
      if (!e || e.operation !== 'PUT' || sml.v1.StreamLease.decode(e.value).owner !== this.owner) return 'lost';
      return await this.kv.update(key, value, e.revision);
    } catch (err) {
      return isWrongLastSequence(err) ? 'lost' : 'unknown';
    }
  }

  /** The current holder and expiry of each key that has a lease record (held or expired). */
  async holders(keys: string[]): Promise<Map<string, { owner: string; until: number }>> {
    const out = new Map<string, { owner: string; until: number }>();
    for (const key of keys) {
      const e = await this.kv.get(key);
      if (!e || e.operation !== 'PUT') continue;
      const lease = sml.v1.StreamLease.decode(e.value);
      out.set(key, { owner: lease.owner, until: Number(lease.until) });
    }
    return out;
  }

  /** Gives a lease up (a stop, a delete, a clean shutdown), so another replica need not wait for it to expire. */
  async release(key: string, revision: number): Promise<void> {
    await this.kv.delete(key, { previousSeq: revision }).catch(() => undefined);
  }
}

/**
 * The leases one replica holds (a streams replica's streams), renewed together each round.
 * A renewal NATS did not answer (an election of the KV's stream, a restart) does not lose the
 * lease: it runs at least a lease from the last answered renewal's sending, and the holder
 * keeps it until two thirds of that — the third left is the margin for the replicas' clocks
 * and for the holder's last work to end, as ProjectsOwnership.holds has it. Then a timer gives
 * it up (`onExpired`), whether or not a renewal is still waiting for NATS — unless `alone`
 * says no other replica is alive to take it: then it is kept (`onOverdue`), renewed by the
 * next answered renewal, or lost when another replica took it after all.
 */
export class HeldLeases {
  /** Key → revision of the lease, and the timer that gives it up unless renewed meanwhile. */
  private readonly held = new Map<string, { revision: number; expiry: NodeJS.Timeout }>();

  constructor(
    readonly leases: Leases,
    private readonly leaseMs: number,
    private readonly onExpired: (key: string) => void,
    private readonly alone: () => boolean = () => false,
    private readonly onOverdue: (key: string) => void = () => undefined,
  ) {}

  get owner(): string {
    return this.leases.owner;
  }

  /** Takes the lease of `key`; false when another replica holds it. */
  async take(key: string): Promise<boolean> {
    const sentAt = Date.now();
    const revision = await this.leases.acquire(key, sentAt);
    if (revision === undefined) return false;
    this.renewed(key, revision, sentAt);
    return true;
  }

  /** Gives the lease of `key` up (nothing when not held). */
  async release(key: string): Promise<void> {
    const h = this.held.get(key);
    if (!h) return;
    this.forget(key);
    await this.leases.release(key, h.revision);
  }

  /**
   * Renews every lease held, all at once (one slow answer must not hold the others past their
   * leases). `lost`: the leases another replica holds now (or nobody does), no longer held;
   * `unanswered`: renewals NATS did not answer (their leases kept until their timers).
   */
  async renewAll(): Promise<{ lost: string[]; unanswered: string[] }> {
    const lost: string[] = [];
    const unanswered: string[] = [];
    await Promise.all([...this.held].map(async ([key, h]) => {
      const sentAt = Date.now();
      const renewed = await this.leases.renewal(key, h.revision, sentAt);
      if (this.held.get(key) !== h) return; // released or expired meanwhile
      if (typeof renewed === 'number') {
        this.renewed(key, renewed, sentAt);
      } else if (renewed === 'unknown') {
        unanswered.push(key);
      } else {
        this.forget(key);
        lost.push(key);
      }
    }));
    return { lost, unanswered };
  }

  private renewed(key: string, revision: number, sentAt: number): void {
    clearTimeout(this.held.get(key)?.expiry);
    const expiry = setTimeout(() => {
      if (this.held.get(key)?.expiry !== expiry) return;
      if (this.alone()) {
        this.onOverdue(key);
        return;
      }
      this.forget(key);
      this.onExpired(key);
    }, Math.max(0, sentAt + (2 * this.leaseMs) / 3 - Date.now()));
    expiry.unref();
    this.held.set(key, { revision, expiry });
  }

  private forget(key: string): void {
    clearTimeout(this.held.get(key)?.expiry);
    this.held.delete(key);
  }
}

/**
 * Which replicas are alive: each puts its key in a KV bucket every lease round; the bucket's
 * TTL (the lease time) forgets a replica that stopped putting it. Used only to share work out
 * (Streams.tick), never for who runs what, which is the leases' alone.
 */
export class Presence {
  /** The replica's key: its name in hex, since KV keys allow fewer characters than names (`projects#2`). */
  private readonly key: string;

  constructor(private readonly kv: KV, owner: string) {
    this.key = Buffer.from(owner).toString('hex');
  }

  /** Says this replica is alive; returns how many replicas are (at least 1: this one). */
  async beat(): Promise<number> {
    await this.kv.put(this.key, new Uint8Array(0));
    let n = 0;
    for await (const _k of await this.kv.keys()) n++;
    return Math.max(1, n);
  }

  async leave(): Promise<void> {
    await this.kv.purge(this.key).catch(() => undefined);
  }
}

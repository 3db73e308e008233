/**
 * Leases on the projects' shards (`@sml/bus` `Leases` over KV `sml_project_leases`, which
 * has this shape): a record `{owner, until}` per key, written only by revision-checked
 * writes, so two replicas never both take one.
 */
export interface ShardLeases {
  readonly owner: string;
  /** Takes or renews the lease of `key`; its revision, or undefined when another owner holds it unexpired. */
  acquire(key: string, now?: number): Promise<number | undefined>;
  /** Renews a lease held at `revision`: its new revision; `lost` when another owner holds it (or nobody does); `unknown` when storage did not answer. */
  renewal(key: string, revision: number, now?: number): Promise<number | 'lost' | 'unknown'>;
  /** The holder and expiry of each key that has a lease record (held or expired). */
  holders(keys: string[]): Promise<Map<string, { owner: string; until: number }>>;
  /** Gives the lease up when it is still at `revision`. */
  release(key: string, revision: number): Promise<void>;
}

/** Which replicas are alive (`@sml/bus` `Presence` over KV `sml_project_replicas`). */
export interface ReplicaPresence {
  /** Says this replica is alive; how many are (at least 1: this one). */
  beat(): Promise<number>;
  leave(): Promise<void>;
}

/** A shard's endpoints (`@sml/bus` `BusService`): subscribed only while its lease is held. */
export interface ShardEndpoints {
  suspend(): Promise<void>;
  resume(): Promise<void>;
}

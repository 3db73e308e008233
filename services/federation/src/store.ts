import type { KV } from 'nats';
import { newTokenRecord, redeemToken, tokenDigest, type ContractAction, type NodeKeyPair, type RedeemDecision, type SignedRoster, type TokenRecord } from '@sml/federation';
import type { BackboneSpec } from './keymap';

/** One federated project on this node: what KV `sml_fed` keeps of it. */
export interface FedRecord {
  readonly user: string;
  readonly pid: string;
  readonly persist: boolean;
  readonly fedName: string;
  /** The subject token T (`fed_id`). */
  readonly fedId: string;
  /** `fed_secret_key` (base64 of 16 bytes): K_enc and T derive from it. */
  readonly secretKey: string;
  readonly syncSched: string;
  readonly backbone: BackboneSpec;
  readonly reqTimeoutMs: number;
  readonly streamMaxBytes: number;
  readonly isAdmin: boolean;
  readonly nodeUuid: string;
  readonly nodeKey: NodeKeyPair;
  readonly adminPublicKey: string;
  readonly roster: SignedRoster;
  /** Node uuid → its project id, as far as this node knows (joins it answered, the join reply). */
  readonly peerPids: Readonly<Record<string, string>>;
  readonly contract: string;
  readonly contractVersion: number;
  readonly sndAction: ContractAction;
  readonly rcvAction: ContractAction;
  readonly allowPeersExplore: boolean;
  readonly isPulsing: boolean;
}

/** KV keys are `[-/_=.a-zA-Z0-9]+`: (user, pid) as base64url of its JSON, so no two pairs share a key. */
function recordKey(user: string, pid: string): string {
  return `p.${Buffer.from(JSON.stringify([user, pid]), 'utf8').toString('base64url')}`;
}

function tokenKey(fedId: string, token: string): string {
  return `t.${fedId}.${tokenDigest(token)}`;
}

const decode = <T>(bytes: Uint8Array): T => JSON.parse(new TextDecoder().decode(bytes)) as T;
const encode = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

/**
 * Federation records and invitation tokens. A `persist=false` federation lives in memory
 * only (gone after a restart, as its project is); tokens are always in KV, stored as
 * SHA-256 → {expiresAt, usedBy}, so a copy of the bucket redeems nothing, and spent with one
 * compare-and-set, so two joins racing for one token admit one.
 */
export class FedStore {
  private readonly memory = new Map<string, FedRecord>();

  constructor(private readonly kv: KV) {}

  async get(user: string, pid: string): Promise<FedRecord | undefined> {
    const key = recordKey(user, pid);
    const held = this.memory.get(key);
    if (held !== undefined) return held;
    const e = await this.kv.get(key);
    return e === null || e.operation !== 'PUT' ? undefined : decode<FedRecord>(e.value);
  }

  async put(record: FedRecord): Promise<void> {
    const key = recordKey(record.user, record.pid);
    if (record.persist) await this.kv.put(key, encode(record));
    else this.memory.set(key, record);
  }

  /** Every persisted record (start-up: the admin nodes answer joins again). */
  async all(): Promise<FedRecord[]> {
    const out: FedRecord[] = [...this.memory.values()];
    for await (const key of await this.kv.keys('p.>')) {
      const e = await this.kv.get(key);
      if (e !== null && e.operation === 'PUT') out.push(decode<FedRecord>(e.value));
    }
    return out;
  }

  /** Stores a new token's record (never overwrites: a token is minted once). */
  async addToken(fedId: string, token: string, now: number, lifetimeMs: number): Promise<TokenRecord> {
    const record = newTokenRecord(now, lifetimeMs);
    await this.kv.create(tokenKey(fedId, token), encode(record));
    return record;
  }

  /** Spends the token for `peer` if it may be (redeemToken), with one compare-and-set on its KV revision. */
  async redeem(fedId: string, token: string, now: number, peer: string): Promise<RedeemDecision> {
    const key = tokenKey(fedId, token);
    const e = await this.kv.get(key);
    const held = e === null || e.operation !== 'PUT' ? undefined : decode<TokenRecord>(e.value);
    const decision = redeemToken(held, now, peer);
    if (!decision.ok) return decision;
    try {
      await this.kv.update(key, encode(decision.record), e!.revision);
    } catch {
      // Another join spent it between the read and the write.
      return redeemToken({ ...decision.record }, now, peer);
    }
    return decision;
  }
}

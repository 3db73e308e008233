import { timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KvWatchInclude, type KV, type NatsConnection } from 'nats';
import { SmlError, generateSecret, isValidName, checkName, nameToken, smlError, type Logger } from '@sml/core';
import { contracts, followKv, isKeyExists, kvBucket, okStatus, projectShards, subjects, unwrap, type BusClient, type BusService } from '@sml/bus';
import { sml } from '@sml/proto';
import type { GatewayConfig } from './main';

const ops = contracts.users;

/**
 * The customer registry (KV bucket sml_users, owned by the gateway). Lookups are served from
 * a cache that a KV watch invalidates, so a rotation or deletion on any replica applies here.
 */
export class UserDirectory {
  private readonly cache = new Map<string, sml.v1.UserRecord>();

  private constructor(private readonly kv: KV) {}

  static async open(nc: NatsConnection): Promise<UserDirectory> {
    const dir = new UserDirectory(await kvBucket(nc, 'sml_users'));
    // After a NATS restart the watch starts again and the cache is dropped (changes made
    // meanwhile were not seen).
    await followKv(nc, dir.kv, { key: '>', include: KvWatchInclude.UpdatesOnly, headers_only: true }, (e) => dir.cache.delete(e.key), { onReset: () => dir.cache.clear() });
    return dir;
  }

  async get(user: string): Promise<sml.v1.UserRecord | undefined> {
    if (!isValidName(user)) return undefined;
    const key = nameToken(user);
    const hit = this.cache.get(key);
    if (hit) return hit;
    const record = await this.record(key);
    // A deleted customer's tombstone authenticates nobody.
    if (!record || record.deleted) return undefined;
    this.cache.set(key, record);
    return record;
  }

  private async record(key: string): Promise<sml.v1.UserRecord | undefined> {
    const e = await this.kv.get(key);
    return e && e.operation === 'PUT' ? sml.v1.UserRecord.decode(e.value) : undefined;
  }

  /**
   * Creates a customer with a fresh secret; 409 when the id exists, or existed: a deleted
   * customer's id stays a tombstone and is never given to anyone else, so nothing the old
   * customer owned (and that a purge may have missed) can ever reach a new one.
   */
  async add(user: string, root: boolean, secretKey = generateSecret()): Promise<string> {
    checkName('customer', user);
    const record = sml.v1.UserRecord.encode({ cid: user, secretKey, root, created: Date.now() }).finish();
    try {
      await this.kv.create(nameToken(user), record);
    } catch (err) {
      if (!isKeyExists(err)) throw err;
      if ((await this.record(nameToken(user)))?.deleted) throw smlError('USER_ID_RETIRED', { user });
      throw smlError('USER_EXISTS', { user });
    }
    return secretKey;
  }

  async rotate(user: string, secretKey = generateSecret()): Promise<string> {
    const record = await this.require(user);
    await this.kv.put(nameToken(user), sml.v1.UserRecord.encode({ ...record, secretKey }).finish());
    this.cache.delete(nameToken(user));
    return secretKey;
  }

  /** Replaces the customer by a tombstone (no secret): it authenticates nobody and its id is never reused. */
  async delete(user: string): Promise<void> {
    const record = await this.require(user);
    if (record.root) throw smlError('USER_IS_ROOT', { user });
    await this.kv.put(nameToken(user), sml.v1.UserRecord.encode({ cid: user, root: false, created: record.created, deleted: true, deletedAt: Date.now() }).finish());
    this.cache.delete(nameToken(user));
  }

  async list(): Promise<sml.v1.IUserInfo[]> {
    // Collect the keys first: awaiting a get inside the keys iteration ends it early.
    const keys: string[] = [];
    for await (const k of await this.kv.keys()) keys.push(k);
    const out: sml.v1.IUserInfo[] = [];
    for (const k of keys) {
      const record = await this.record(k);
      if (!record || record.deleted) continue;
      const { cid, root, created } = record;
      out.push({ cid, root, created });
    }
    return out.sort((a, b) => String(a.cid).localeCompare(String(b.cid)));
  }

  private async require(user: string): Promise<sml.v1.UserRecord> {
    const record = await this.get(user);
    if (!record) throw smlError('USER_NOT_FOUND', { user });
    return record;
  }

  /**
   * Makes sure the root user exists: with SML_ROOT_SECRET when set, else a generated secret
   * that is returned (to be shown once) and written to $SML_DATA_DIR/credentials, mode 0600.
   */
  async bootstrapRoot(config: GatewayConfig, log: Logger): Promise<{ user: string; secretKey?: string }> {
    const user = config.SML_ROOT_USER;
    const existing = await this.get(user);
    if (config.SML_ROOT_SECRET) {
      if (!existing) await this.add(user, true, config.SML_ROOT_SECRET);
      else if (existing.secretKey !== config.SML_ROOT_SECRET || !existing.root) {
        await this.kv.put(nameToken(user), sml.v1.UserRecord.encode({ ...existing, root: true, secretKey: config.SML_ROOT_SECRET }).finish());
        this.cache.delete(nameToken(user));
      }
      return { user };
    }
    if (existing) return { user };
    let secretKey: string;
    try {
      secretKey = await this.add(user, true);
    } catch (err) {
      if (err instanceof SmlError && err.code === 'USER_EXISTS') return { user }; // another replica created it first
      throw err;
    }
    mkdirSync(config.SML_DATA_DIR, { recursive: true });
    const file = join(config.SML_DATA_DIR, 'credentials');
    writeFileSync(file, `SML_USER=${user}\nSML_SECRET=${secretKey}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
    log.info({ file }, 'root user created; credentials written');
    return { user, secretKey };
  }
}

/** sml.users.* — root-only administration, used by REST `/{root}/users` and `sml admin user`. */
export function registerUserEndpoints(service: BusService, users: UserDirectory, client: BusClient, log: Logger): void {
  const requireRoot = (caller: sml.v1.ICaller, action: string) => {
    if (!caller.root) throw smlError('ROOT_ONLY', { action });
  };
  service.handle(ops.add, async (req, { caller }) => {
    requireRoot(caller, 'create users');
    const secretKey = await users.add(req.cid ?? '', req.root ?? false);
    return { status: okStatus('USER_CREATED', { user: req.cid }), secretKey };
  });
  service.handle(ops.rotate, async (req, { caller }) => {
    requireRoot(caller, 'rotate secret keys');
    const secretKey = await users.rotate(req.cid ?? '');
    return { status: okStatus('USER_ROTATED', { user: req.cid }), secretKey };
  });
  service.handle(ops.delete, async (req, { caller }) => {
    requireRoot(caller, 'delete users');
    const user = req.cid ?? '';
    await users.delete(user);
    // The tombstone already makes everything carol owned unreachable; the purge frees it.
    // A purge that fails is logged and can be run again (sml admin user purge).
    await purgeCustomer(client, caller, user).catch((err) => log.error({ err, user }, 'customer purge failed; its data stays unreachable'));
    return { status: okStatus('USER_DELETED', { user }) };
  });
  service.handle(ops.list, async (_req, { caller }) => {
    requireRoot(caller, 'list users');
    return { users: await users.list() };
  });
  // A `local` fusion cell of another customer is read only with that customer's secret.
  service.handle(ops.checkSecret, async (req) => {
    const record = await users.get(req.cid ?? '');
    const given = Buffer.from(req.secret ?? '', 'utf8');
    const expected = Buffer.from(record?.secretKey ?? '', 'utf8');
    if (!record || given.length !== expected.length || !timingSafeEqual(given, expected)) throw smlError('SECRET_MISMATCH', { cid: req.cid });
    return {};
  });
}

/** Asks each service that keeps per-customer state to delete what `user` owned (each tried, whatever the other answers). */
async function purgeCustomer(client: BusClient, caller: sml.v1.ICaller, user: string): Promise<void> {
  const purges = await Promise.allSettled([
    // Every shard of the projects: each holder deletes the projects it serves.
    ...Array.from({ length: projectShards() }, (_, shard) =>
      client.request('projects', subjects.projects('purgeCustomer', shard), sml.v1.UserRequest, { caller, cid: user }, sml.v1.Empty, { timeoutMs: 120_000 }).then(unwrap)),
    client.request('encoders', subjects.encoders.purgeCustomer, sml.v1.UserRequest, { caller, cid: user }, sml.v1.Empty, { timeoutMs: 120_000 }).then(unwrap),
  ]);
  const failed = purges.find((p): p is PromiseRejectedResult => p.status === 'rejected');
  if (failed) throw failed.reason;
}

import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KvWatchInclude, type KV, type NatsConnection } from 'nats';
import { SmlError, generateSecret, isValidName, checkName, nameToken, smlError, type Config, type Logger } from '@sml/core';
import { followKv, isKeyExists, kvBucket, okStatus, subjects, unwrap, type BusClient, type BusService } from '@sml/bus';
import { sml } from '@sml/proto';

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
    await followKv(nc, dir.kv, { key: '>', include: KvWatchInclude.UpdatesOnly }, (e) => dir.cache.delete(e.key), { onReset: () => dir.cache.clear() });
    return dir;
  }

  async get(cid: string): Promise<sml.v1.UserRecord | undefined> {
    if (!isValidName(cid)) return undefined;
    const key = nameToken(cid);
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
  async add(cid: string, root: boolean, secretKey = generateSecret()): Promise<string> {
    checkName('customer', cid);
    const record = sml.v1.UserRecord.encode({ cid, secretKey, root, created: Date.now() }).finish();
    try {
      await this.kv.create(nameToken(cid), record);
    } catch (err) {
      if (!isKeyExists(err)) throw err;
      if ((await this.record(nameToken(cid)))?.deleted) throw smlError('USER_ID_RETIRED', { cid });
      throw smlError('USER_EXISTS', { cid });
    }
    return secretKey;
  }

  async rotate(cid: string, secretKey = generateSecret()): Promise<string> {
    const user = await this.require(cid);
    await this.kv.put(nameToken(cid), sml.v1.UserRecord.encode({ ...user, secretKey }).finish());
    this.cache.delete(nameToken(cid));
    return secretKey;
  }

  /** Replaces the customer by a tombstone (no secret): it authenticates nobody and its id is never reused. */
  async delete(cid: string): Promise<void> {
    const user = await this.require(cid);
    if (user.root) throw smlError('USER_IS_ROOT', { cid });
    await this.kv.put(nameToken(cid), sml.v1.UserRecord.encode({ cid, root: false, created: user.created, deleted: true, deletedAt: Date.now() }).finish());
    this.cache.delete(nameToken(cid));
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

  private async require(cid: string): Promise<sml.v1.UserRecord> {
    const user = await this.get(cid);
    if (!user) throw smlError('USER_NOT_FOUND', { cid });
    return user;
  }

  /**
   * Makes sure the root user exists: with SML_ROOT_SECRET when set, else a generated secret
   * that is returned (to be shown once) and written to $SML_DATA_DIR/credentials, mode 0600.
   */
  async bootstrapRoot(config: Config, log: Logger): Promise<{ user: string; secretKey?: string }> {
    const cid = config.SML_ROOT_USER;
    const existing = await this.get(cid);
    if (config.SML_ROOT_SECRET) {
      if (!existing) await this.add(cid, true, config.SML_ROOT_SECRET);
      else if (existing.secretKey !== config.SML_ROOT_SECRET || !existing.root) {
        await this.kv.put(nameToken(cid), sml.v1.UserRecord.encode({ ...existing, root: true, secretKey: config.SML_ROOT_SECRET }).finish());
        this.cache.delete(nameToken(cid));
      }
      return { user: cid };
    }
    if (existing) return { user: cid };
    let secretKey: string;
    try {
      secretKey = await this.add(cid, true);
    } catch (err) {
      if (err instanceof SmlError && err.code === 'USER_EXISTS') return { user: cid }; // another replica created it first
      throw err;
    }
    mkdirSync(config.SML_DATA_DIR, { recursive: true });
    const file = join(config.SML_DATA_DIR, 'credentials');
    writeFileSync(file, `SML_USER=${cid}\nSML_SECRET=${secretKey}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
    log.info({ file }, 'root user created; credentials written');
    return { user: cid, secretKey };
  }
}

/** sml.users.* — root-only administration, used by REST `/{root}/users` and `sml admin user`. */
export function registerUserEndpoints(service: BusService, users: UserDirectory, client: BusClient, log: Logger): void {
  const requireRoot = (caller: sml.v1.ICaller, action: string) => {
    if (!caller.root) throw smlError('ROOT_ONLY', { action });
  };
  service.endpoint(subjects.users.add, sml.v1.UserAddRequest, sml.v1.UserSecretReply, async (req, { caller }) => {
    requireRoot(caller, 'create users');
    const secretKey = await users.add(req.cid ?? '', req.root ?? false);
    return { status: okStatus('USER_CREATED', { cid: req.cid }), secretKey };
  });
  service.endpoint(subjects.users.rotate, sml.v1.UserRequest, sml.v1.UserSecretReply, async (req, { caller }) => {
    requireRoot(caller, 'rotate secret keys');
    const secretKey = await users.rotate(req.cid ?? '');
    return { status: okStatus('USER_ROTATED', { cid: req.cid }), secretKey };
  });
  service.endpoint(subjects.users.delete, sml.v1.UserRequest, sml.v1.Empty, async (req, { caller }) => {
    requireRoot(caller, 'delete users');
    const cid = req.cid ?? '';
    await users.delete(cid);
    // The tombstone already makes everything carol owned unreachable; the purge frees it.
    // A purge that fails is logged and can be run again (sml admin user purge).
    await purgeCustomer(client, caller, cid).catch((err) => log.error({ err, cid }, 'customer purge failed; its data stays unreachable'));
    return { status: okStatus('USER_DELETED', { cid }) };
  });
  service.endpoint(subjects.users.list, sml.v1.UserListRequest, sml.v1.UserListReply, async (_req, { caller }) => {
    requireRoot(caller, 'list users');
    return { users: await users.list() };
  });
}

/** Asks each service that keeps per-customer state to delete what `cid` owned. */
async function purgeCustomer(client: BusClient, caller: sml.v1.ICaller, cid: string): Promise<void> {
  unwrap(await client.request('projects', subjects.projects('purgeCustomer'), sml.v1.UserRequest, { caller, cid }, sml.v1.Empty, { timeoutMs: 120_000 }));
}

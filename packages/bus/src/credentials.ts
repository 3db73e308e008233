import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { BUS_IDENTITIES, natsAuthorizationConf, type BusIdentity } from './permissions';

/** A bus identity's NATS user and password, as `SML_NATS_USER` / `SML_NATS_PASSWORD` carry them. */
export interface BusCredentials {
  user: string;
  password: string;
}

/** Where `npm run up` keeps the bus credentials (one `<identity>.env` each): `$SML_DATA_DIR/nats-auth`. */
export function localBusCredentialsDir(dataDir: string): string {
  return join(dataDir, 'nats-auth');
}

/** Reads a `KEY=value` file (one per line), as written by `ensureBusCredentials`. */
export function readEnvFile(path: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m) out[m[1]] = m[2];
  }
  return out;
}

/** The credentials stored in `<dir>/<identity>.env`, if that file exists. */
export function readBusCredentials(dir: string, identity: BusIdentity): BusCredentials | undefined {
  const file = join(dir, `${identity}.env`);
  if (!existsSync(file)) return undefined;
  const env = readEnvFile(file);
  return env.SML_NATS_USER && env.SML_NATS_PASSWORD ? { user: env.SML_NATS_USER, password: env.SML_NATS_PASSWORD } : undefined;
}

/**
 * Makes sure `<dir>/<identity>.env` holds `SML_NATS_USER` / `SML_NATS_PASSWORD` for every
 * identity: a random password is generated once and kept (the directory is mode 0700, the
 * files 0600). `rotate` lists identities whose password is replaced. Returns them all.
 */
export function ensureBusCredentials(dir: string, opts: { rotate?: BusIdentity[] } = {}): Record<BusIdentity, BusCredentials> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const out = {} as Record<BusIdentity, BusCredentials>;
  for (const id of BUS_IDENTITIES) {
    let creds = opts.rotate?.includes(id) ? undefined : readBusCredentials(dir, id);
    if (!creds) {
      // 32 bytes, base64url: no character that a shell, an env file or nats.conf treats specially.
      creds = { user: id, password: randomBytes(32).toString('base64url') };
      writeFileSync(join(dir, `${id}.env`), `SML_NATS_USER=${creds.user}\nSML_NATS_PASSWORD=${creds.password}\n`, { mode: 0o600 });
    }
    out[id] = creds;
  }
  return out;
}

/**
 * The `authorization` block of a nats.conf for these credentials, with bcrypt hashes of the
 * passwords (the config then holds no password). `cost` 11 matches `nats server passwd`;
 * tests use a lower one, which only makes each connect cheaper to verify.
 */
export function busAuthorizationConf(creds: Partial<Record<BusIdentity, BusCredentials>>, opts: { cost?: number } = {}): string {
  const hashes: Partial<Record<BusIdentity, string>> = {};
  for (const id of BUS_IDENTITIES) {
    const c = creds[id];
    if (!c) continue;
    if (c.user !== id) throw new Error(`bus identity ${id} must connect as NATS user ${id}, not ${c.user}`);
    hashes[id] = bcrypt.hashSync(c.password, opts.cost ?? 11);
  }
  return natsAuthorizationConf(hashes);
}

import { checkName, smlError } from '@sml/core';
import { ScheduleError, contractActionOf, parseSchedule, type ContractAction } from '@sml/federation';

/**
 * The key maps of create and createJoin read into what the service keeps: every key
 * checked here, before anything is connected or created, so a refused map leaves no trace.
 */

/** The backbone: `nats_hosts` and its credentials (carried by the invitation to every peer). */
export interface BackboneSpec {
  readonly servers: readonly string[];
  readonly user?: string;
  readonly pass?: string;
  readonly token?: string;
  readonly nkeySeed?: string;
}

export interface CreateOptions {
  readonly fedName: string;
  readonly syncSched: string;
  readonly backbone: BackboneSpec;
  readonly localType: string;
  readonly partitionSplit?: string;
  readonly reqTimeoutMs: number;
  readonly streamMaxBytes: number;
  readonly sndAction: ContractAction;
  readonly rcvAction: ContractAction;
}

/** Backbone credential keys: in the invitation, never in info or logs. */
export const CREDENTIAL_KEYS = ['nats_sec_user', 'nats_sec_passwd', 'nats_sec_token', 'nats_sec_nkey_seed'] as const;
const LOCAL_TYPES = ['cpu', 'gpu', 'partition'];
const DEFAULT_REQ_TIMEOUT_S = 30;
const DEFAULT_STREAM_MAX_BYTES = 1024 ** 3;

type KeyMap = Readonly<Record<string, string>>;

function required(keys: KeyMap, key: string): string {
  const v = keys[key];
  if (v === undefined || v.trim() === '') throw smlError('FED_MISSING_KEY', { key });
  return v;
}

function invalid(key: string, value: string, reason: string): Error {
  return smlError('FED_INVALID_KEY', { key, value: value.length > 200 ? `${value.slice(0, 200)}…` : value, reason });
}

/**
 * The refusals that do not depend on anything else in the map: AWS keys (a
 * map naming them asks for an AWS backend, which SML does not have; ignoring them beside
 * `nats_hosts` would hide the mistake), SMPC and HIPAA modes.
 */
export function refuseUnsupported(keys: KeyMap): void {
  if (Object.keys(keys).some((k) => k.startsWith('aws_') || k === 's3_bucket')) throw smlError('FED_AWS');
  if (keys.fed_use_smpc?.trim().toLowerCase() === 'true') throw smlError('FED_SMPC');
  if (keys.fed_enforce_hipaa_compliance?.trim().toLowerCase() === 'true') throw smlError('FED_HIPAA');
}

/** `nats_hosts` and the `nats_sec_*` credentials. */
export function backboneOf(keys: KeyMap): BackboneSpec {
  const servers = required(keys, 'nats_hosts').split(',').map((s) => s.trim()).filter(Boolean);
  for (const s of servers) if (!/^(nats|tls):\/\//i.test(s)) throw invalid('nats_hosts', s, 'expected nats:// URLs, comma separated');
  const opt = (k: string) => (keys[k] === undefined || keys[k] === '' ? {} : { [k]: keys[k] });
  const c = { ...opt('nats_sec_user'), ...opt('nats_sec_passwd'), ...opt('nats_sec_token'), ...opt('nats_sec_nkey_seed') };
  return {
    servers,
    ...(c.nats_sec_user !== undefined ? { user: c.nats_sec_user } : {}),
    ...(c.nats_sec_passwd !== undefined ? { pass: c.nats_sec_passwd } : {}),
    ...(c.nats_sec_token !== undefined ? { token: c.nats_sec_token } : {}),
    ...(c.nats_sec_nkey_seed !== undefined ? { nkeySeed: c.nats_sec_nkey_seed } : {}),
  };
}

/** The backbone's keys as an invitation carries them (credentials only when set). */
export function backboneKeys(b: BackboneSpec): Record<string, string> {
  return {
    nats_hosts: b.servers.join(','),
    ...(b.user !== undefined ? { nats_sec_user: b.user } : {}),
    ...(b.pass !== undefined ? { nats_sec_passwd: b.pass } : {}),
    ...(b.token !== undefined ? { nats_sec_token: b.token } : {}),
    ...(b.nkeySeed !== undefined ? { nats_sec_nkey_seed: b.nkeySeed } : {}),
  };
}

function positive(keys: KeyMap, key: string, fallback: number, integer: boolean): number {
  const v = keys[key];
  if (v === undefined || v.trim() === '') return fallback;
  const n = Number(v);
  if (!(n > 0) || !Number.isFinite(n) || (integer && !Number.isSafeInteger(n))) throw invalid(key, v, integer ? 'expected a positive integer' : 'expected a positive number');
  return n;
}

function action(keys: KeyMap, side: 'snd' | 'rcv'): ContractAction {
  const key = `fed_psr_contract_${side}_fail_action`;
  const a = contractActionOf(side, keys[key]);
  if (a === null) throw invalid(key, keys[key] ?? '', `expected ${key}_block or ${key}_allow`);
  return a;
}

/** `fed_local_type` (+ `partitionSplit`): the local project's type. */
function localTypeOf(keys: KeyMap): { localType: string; partitionSplit?: string } {
  const localType = (keys.fed_local_type ?? 'cpu').trim() || 'cpu';
  if (!LOCAL_TYPES.includes(localType)) throw invalid('fed_local_type', localType, `expected ${LOCAL_TYPES.join(', ')}`);
  if (localType !== 'partition') return { localType };
  return { localType, partitionSplit: required(keys, 'partitionSplit') };
}

/** A schedule (`<unit><N>`) under this node's minimum interval. */
export function checkSchedule(text: string, minIntervalMs: number): string {
  try {
    parseSchedule(text, minIntervalMs);
  } catch (e) {
    if (e instanceof ScheduleError) throw smlError('FED_INVALID_SCHEDULE', { schedule: e.schedule });
    throw e;
  }
  return text;
}

/** The create map (the "create" column of the key table). */
export function createOptionsOf(keys: KeyMap, minIntervalMs: number): CreateOptions {
  refuseUnsupported(keys);
  const fedName = checkName('federation', required(keys, 'fed_name'));
  const syncSched = checkSchedule(required(keys, 'sync_sched'), minIntervalMs);
  return {
    fedName, syncSched, backbone: backboneOf(keys), ...localTypeOf(keys),
    reqTimeoutMs: positive(keys, 'nats_req_timeout', DEFAULT_REQ_TIMEOUT_S, false) * 1000,
    streamMaxBytes: positive(keys, 'nats_stream_max_memory', DEFAULT_STREAM_MAX_BYTES, true),
    sndAction: action(keys, 'snd'), rcvAction: action(keys, 'rcv'),
  };
}

/** The invitation keys a join needs (decrypted), as the joiner reads them. */
export interface JoinOptions {
  readonly fedName: string;
  readonly syncSched: string;
  readonly secretKey: string;
  readonly token: string;
  readonly fedId: string;
  readonly adminPublicKey: string;
  readonly backbone: BackboneSpec;
  readonly localType: string;
  readonly partitionSplit?: string;
  readonly sndAction: ContractAction;
  readonly rcvAction: ContractAction;
}

/**
 * The join map (the "join" column) once the invitation is open: the invitation's keys plus
 * this node's own (`fed_local_type`, the contract actions). A key the invitation must carry and
 * does not makes the invitation invalid, not a missing key of the caller's.
 */
export function joinOptionsOf(keys: KeyMap): JoinOptions {
  refuseUnsupported(keys);
  const inv = (k: string) => {
    const v = keys[k];
    if (v === undefined || v === '') throw smlError('FED_INVALID_INVITATION');
    return v;
  };
  return {
    fedName: inv('fed_name'), syncSched: inv('sync_sched'), secretKey: inv('fed_secret_key'), token: inv('fed_req_token'),
    fedId: inv('fed_id'), adminPublicKey: inv('fed_admin_pubkey'), backbone: backboneOf({ ...keys, nats_hosts: inv('nats_hosts') }),
    ...localTypeOf(keys), sndAction: action(keys, 'snd'), rcvAction: action(keys, 'rcv'),
  };
}

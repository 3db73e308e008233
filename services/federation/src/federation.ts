import { randomUUID } from 'node:crypto';
import { RetentionPolicy, StorageType, type NatsConnection, type Subscription } from 'nats';
import { contracts, kvBucket, okStatus, projectSubject, unwrap, type BusClient } from '@sml/bus';
import { SmlError, checkName, smlError, type Logger } from '@sml/core';
import {
  InvitationError, decryptInvitation, deriveFederationKeys, encryptInvitation, newInvitationToken, newNodeKey, newRoster, newSecretKey, openGroup,
  peerInfo, sealGroup, signRoster, tokenLifetimeMs, verifyRoster, withMember, type FederationKeys, type SignedRoster,
} from '@sml/federation';
import { sml } from '@sml/proto';
import { Backbones } from './backbone';
import { backboneKeys, checkSchedule, createOptionsOf, joinOptionsOf, type CreateOptions, type JoinOptions } from './keymap';
import { FedStore, type FedRecord } from './store';
import type { FederationRuntime } from './main';

const ops = contracts.federation;
/** One hour of `fed_token_timeout_hours` as the pure core counts it. */
const HOUR_MS = 3_600_000;

/** The backbone names of one federation: all under the subject token T. */
export const backboneNames = (t: string) => ({
  stream: `SMLFED_${t}`,
  objects: `SMLFED_${t}_SUM`,
  join: `smlfed.${t}.join`,
  roster: `smlfed.${t}.ctl.roster`,
});

/** What a join request carries (sealed under K_enc) and what the admin answers (sealed too). */
interface JoinRequest { token: string; peer: string; pid: string; publicKey: string }
type JoinReply =
  | { ok: true; roster: SignedRoster; syncSched: string; contract: string; contractVersion: number; peerPids: Record<string, string> }
  | { ok: false; message: string };

/**
 * The federation service: /fedml create, createJoin, getInvitation, info, awsinfo; the admin
 * side of joins over the backbone. Everything cryptographic is @sml/federation's; this is the
 * I/O around it.
 */
export async function startFederation({ nc, service, client, log, config }: FederationRuntime): Promise<{ onStop: () => Promise<void> }> {
  const store = new FedStore(await kvBucket(nc, 'sml_fed'));
  const backbones = new Backbones({ bus: nc, busUrl: config.NATS_URL, allowPrivate: config.SML_SOURCES_ALLOW_PRIVATE, log });
  const joins = new JoinResponders(store, backbones, log);
  const fed = new Federation({ store, backbones, joins, projects: new LocalProjects(client), log, config });

  service.handle(ops.create, (req, { caller }) => fed.create(caller, req));
  service.handle(ops.createJoin, (req, { caller }) => fed.join(caller, req));
  service.handle(ops.info, async (req, { caller }) => {
    const record = await federationOf(store, fed.projects, caller, req.pid ?? '');
    return { info: federationInfo(record), peersInfo: peersInfoOf(record) };
  });
  service.handle(ops.getInvitation, (req, { caller }) => fed.invitation(caller, req));
  service.handle(ops.awsinfo, () => {
    throw smlError('FED_AWS');
  });

  // Admin nodes answer joins again after a restart.
  for (const record of await store.all()) {
    if (!record.isAdmin) continue;
    try {
      await joins.answer(record);
    } catch (e) {
      log.warn({ user: record.user, pid: record.pid, err: (e as Error).message }, 'federation backbone unreachable at start: joins not answered');
    }
  }
  log.info('federation endpoints registered');
  return {
    onStop: async () => {
      joins.stop();
      await backbones.close();
    },
  };
}

interface FederationDeps {
  store: FedStore;
  backbones: Backbones;
  joins: JoinResponders;
  projects: LocalProjects;
  log: Logger;
  config: FederationRuntime['config'];
}

/** The endpoints that create or change a federation. */
class Federation {
  readonly projects: LocalProjects;

  constructor(private readonly deps: FederationDeps) {
    this.projects = deps.projects;
  }

  async create(caller: sml.v1.ICaller, req: sml.v1.IFedRequest): Promise<{ status: sml.v1.IStatus }> {
    const { backbones, projects, store, joins, log, config } = this.deps;
    const opts = createOptionsOf(req.keys ?? {}, config.SML_FED_MIN_INTERVAL_MS);
    const user = caller.user!;
    const pid = checkName('project', req.pid);
    const persist = req.persist ?? true;
    // The backbone first: unreachable → 503 and nothing created.
    const bb = await backbones.connection(opts.backbone, opts.reqTimeoutMs);
    await projects.create(caller, pid, persist, opts);
    try {
      const record = await newFederation(bb, user, pid, persist, opts);
      await store.put(record);
      await joins.answer(record);
    } catch (e) {
      await projects.remove(caller, pid, log);
      throw e instanceof SmlError ? e : smlError('FED_BACKBONE_UNREACHABLE', { reason: (e as Error).message });
    }
    log.info({ user, pid }, 'federation created');
    return { status: okStatus('PROJECT_CREATED', { pid }) };
  }

  async join(caller: sml.v1.ICaller, req: sml.v1.IFedRequest): Promise<{ status: sml.v1.IStatus }> {
    const { backbones, projects, log, config } = this.deps;
    const keys = await invitationKeys(req.keys ?? {});
    const opts = joinOptionsOf(keys);
    checkSchedule(opts.syncSched, config.SML_FED_MIN_INTERVAL_MS);
    let fed: ReturnType<typeof deriveFederationKeys>;
    try {
      fed = deriveFederationKeys(opts.secretKey);
    } catch {
      throw smlError('FED_INVALID_INVITATION');
    }
    if (fed.subjectToken !== opts.fedId) throw smlError('FED_INVALID_INVITATION');
    const pid = checkName('project', req.pid);
    const persist = req.persist ?? true;
    const reqTimeoutMs = Number(keys.nats_req_timeout ?? 30) * 1000 || 30_000;
    const bb = await backbones.connection(opts.backbone, reqTimeoutMs);
    // The project first (409 before the token is spent); removed again if the join fails.
    await projects.create(caller, pid, persist, opts);
    try {
      await this.redeem(bb, fed, { user: caller.user!, pid, persist, reqTimeoutMs, opts });
    } catch (e) {
      await projects.remove(caller, pid, log);
      throw e;
    }
    log.info({ user: caller.user, pid }, 'federation joined');
    return { status: okStatus('FED_JOINED') };
  }

  /** Asks the admin over the backbone to admit this node; stores the federation when it does. */
  private async redeem(bb: NatsConnection, fed: FederationKeys, j: { user: string; pid: string; persist: boolean; reqTimeoutMs: number; opts: JoinOptions }): Promise<void> {
    const { opts } = j;
    const nodeUuid = randomUUID();
    const nodeKey = newNodeKey();
    const request: JoinRequest = { token: opts.token, peer: nodeUuid, pid: j.pid, publicKey: nodeKey.publicKey };
    let sealed: string;
    try {
      const m = await bb.request(backboneNames(fed.subjectToken).join, new TextEncoder().encode(sealGroup(fed.enc, fed.subjectToken, 'join-request', request)), { timeout: j.reqTimeoutMs });
      sealed = new TextDecoder().decode(m.data);
    } catch {
      // No responder or no answer in nats_req_timeout: the admin never saw the token, or
      // could not answer; either way it is not spent by this attempt's reply.
      throw smlError('FED_ADMIN_NO_ANSWER');
    }
    const reply = openGroup(fed.enc, fed.subjectToken, 'join-reply', sealed) as JoinReply | undefined;
    if (reply === undefined) throw smlError('FED_INVALID_INVITATION');
    if (!reply.ok) throw smlError('FED_TOKEN_REFUSED');
    const roster = verifyRoster(reply.roster, opts.adminPublicKey, fed.subjectToken);
    if (roster.members[nodeUuid] !== nodeKey.publicKey) throw smlError('FED_INVALID_INVITATION');
    await this.deps.store.put({
      user: j.user, pid: j.pid, persist: j.persist, fedName: opts.fedName, fedId: fed.subjectToken, secretKey: opts.secretKey, syncSched: reply.syncSched,
      backbone: opts.backbone, reqTimeoutMs: j.reqTimeoutMs, streamMaxBytes: 0, isAdmin: false, nodeUuid, nodeKey, adminPublicKey: opts.adminPublicKey,
      roster: reply.roster, peerPids: { ...reply.peerPids, [nodeUuid]: j.pid }, contract: reply.contract, contractVersion: reply.contractVersion,
      sndAction: opts.sndAction, rcvAction: opts.rcvAction, allowPeersExplore: true, isPulsing: false,
    });
  }

  async invitation(caller: sml.v1.ICaller, req: sml.v1.IFedRequest): Promise<{ info: Record<string, string> }> {
    const { store, config } = this.deps;
    const record = await federationOf(store, this.projects, caller, req.pid ?? '');
    if (!record.isAdmin) throw smlError('FED_ADMIN_ONLY', { action: 'issue invitations' });
    const keys = req.keys ?? {};
    const passwd = keys.passwd;
    if (passwd === undefined || passwd === '') throw smlError('FED_MISSING_KEY', { key: 'passwd' });
    const hours = keys.fed_token_timeout_hours;
    const lifetime = tokenLifetimeMs(hours);
    if (lifetime === null) throw smlError('FED_INVALID_KEY', { key: 'fed_token_timeout_hours', value: hours ?? '', reason: 'expected a number of hours in (0, 168]' });
    const token = newInvitationToken();
    // SML_FED_TOKEN_HOUR_MS: the test seam that makes an hour last a second.
    const { expiresAt } = await store.addToken(record.fedId, token, Date.now(), Math.round(lifetime * config.SML_FED_TOKEN_HOUR_MS / HOUR_MS));
    const invitation = await encryptInvitation({
      sync_sched: record.syncSched, fed_name: record.fedName, fed_secret_key: record.secretKey, fed_req_token: token,
      fed_rest_url: keys.fed_rest_host ?? '', ...backboneKeys(record.backbone),
      fed_id: record.fedId, fed_admin_pubkey: record.adminPublicKey, fed_token_expires: new Date(expiresAt).toISOString(),
    }, passwd);
    return { info: { invitation } };
  }
}

/** The keys of a join: as given, or those of `fed_invitation` opened with `passwd` (merged over the others). */
async function invitationKeys(keys: Readonly<Record<string, string>>): Promise<Record<string, string>> {
  if (keys.fed_invitation === undefined) return { ...keys };
  try {
    return { ...keys, ...(await decryptInvitation(keys.fed_invitation, keys.passwd ?? '')) };
  } catch (e) {
    if (e instanceof InvitationError) throw smlError('FED_INVALID_INVITATION');
    throw e;
  }
}

/** The backbone side of a new federation: stream, object store, the admin's first roster. */
async function newFederation(bb: NatsConnection, user: string, pid: string, persist: boolean, opts: CreateOptions): Promise<FedRecord> {
  const secretKey = newSecretKey();
  const { subjectToken: t } = deriveFederationKeys(secretKey);
  const names = backboneNames(t);
  const jsm = await bb.jetstreamManager();
  await jsm.streams.add({
    name: names.stream, subjects: [`smlfed.${t}.sum.*`, `smlfed.${t}.ctl.*`], retention: RetentionPolicy.Limits,
    max_msgs_per_subject: 1, storage: StorageType.Memory, max_bytes: opts.streamMaxBytes,
  });
  await bb.jetstream().views.os(names.objects, { storage: StorageType.Memory, max_bytes: opts.streamMaxBytes });
  const nodeUuid = randomUUID();
  const nodeKey = newNodeKey();
  const roster = signRoster(newRoster(t, nodeUuid, nodeKey.publicKey), nodeKey.privateKey);
  await bb.jetstream().publish(names.roster, new TextEncoder().encode(JSON.stringify(roster)));
  return {
    user, pid, persist, fedName: opts.fedName, fedId: t, secretKey, syncSched: opts.syncSched, backbone: opts.backbone, reqTimeoutMs: opts.reqTimeoutMs,
    streamMaxBytes: opts.streamMaxBytes, isAdmin: true, nodeUuid, nodeKey, adminPublicKey: nodeKey.publicKey, roster, peerPids: { [nodeUuid]: pid },
    contract: '', contractVersion: 0, sndAction: opts.sndAction, rcvAction: opts.rcvAction, allowPeersExplore: true, isPulsing: false,
  };
}

/** The caller's federation of `pid`, or the 400s: unknown project, not federated, federation-less `fed` project. */
async function federationOf(store: FedStore, projects: LocalProjects, caller: sml.v1.ICaller, pid: string): Promise<FedRecord> {
  const record = await store.get(caller.user!, pid);
  if (record !== undefined) return record;
  const type = await projects.typeOf(caller, pid);
  throw smlError(type === 'fed' ? 'FED_NO_FEDERATION' : 'FED_NOT_FEDERATED', { pid });
}

/** FederationInfo as a flat map; peersInfo apart. No credentials, no node key. */
export function federationInfo(r: FedRecord): Record<string, string> {
  return {
    fed_local_id: r.pid, local_uuid: r.nodeUuid, fed_name: r.fedName, fed_secret_key: r.secretKey, sync_sched: r.syncSched, fed_type: 'nats',
    is_pulsing: String(r.isPulsing), contract: r.contract, rcv_error_action: `fed_psr_contract_rcv_fail_action_${r.rcvAction}`,
    snd_error_action: `fed_psr_contract_snd_fail_action_${r.sndAction}`, fed_use_smpc: 'false', allow_peers_explore: String(r.allowPeersExplore),
    fed_is_admin: String(r.isAdmin), fed_id: r.fedId, nats_hosts: r.backbone.servers.join(','),
  };
}

/** Every other member of the roster; nothing is synced in this slice, so each is `silent` with 0 rows. */
export function peersInfoOf(r: FedRecord): Record<string, string> {
  const out: Record<string, string> = {};
  for (const uuid of Object.keys(r.roster.roster.members)) {
    if (uuid !== r.nodeUuid) out[uuid] = peerInfo({ pid: r.peerPids[uuid] ?? '', status: 'silent', rows: 0 });
  }
  return out;
}

/** The local project of a federation, created and removed as the calling customer through the projects service. */
class LocalProjects {
  constructor(private readonly client: BusClient) {}

  async create(caller: sml.v1.ICaller, pid: string, persist: boolean, opts: { localType: string; partitionSplit?: string }): Promise<void> {
    const params: Record<string, string> = { fed_local_type: opts.localType, ...(opts.partitionSplit !== undefined ? { partitionSplit: opts.partitionSplit } : {}) };
    unwrap(await this.client.request('projects', projectSubject('create', caller.user!, pid), sml.v1.ProjectCreateRequest,
      { caller, pid, type: 'fed', persist, params }, sml.v1.ProjectCreateReply));
  }

  /** Undoes a create whose federation could not be set up; a failure here is logged, the first error is what the caller hears. */
  async remove(caller: sml.v1.ICaller, pid: string, log: Logger): Promise<void> {
    try {
      unwrap(await this.client.request('projects', projectSubject('delete', caller.user!, pid), sml.v1.ProjectRequest, { caller, pid }, sml.v1.Empty));
    } catch (e) {
      log.warn({ user: caller.user, pid, err: (e as Error).message }, 'could not remove the project of a failed federation create');
    }
  }

  /** The project's type; PROJECT_NOT_FOUND (the projects service's 400) when it does not exist. */
  async typeOf(caller: sml.v1.ICaller, pid: string): Promise<string> {
    const reply = unwrap(await this.client.request('projects', projectSubject('info', caller.user!, pid), sml.v1.ProjectRequest, { caller, pid }, sml.v1.ProjectInfoReply));
    return reply.smlInfo?.type ?? '';
  }
}

/**
 * The admin side of joins: a core subscription on `smlfed.<T>.join` per federation
 * this node administers. A request that does not open under K_enc is dropped unanswered
 * (it is not from anyone holding the invitation); a token is spent with one KV
 * compare-and-set, then the peer is added and the roster republished, signed.
 */
class JoinResponders {
  private readonly subs = new Map<string, Subscription>();
  /** Joins of one federation one at a time: each adds to the roster the previous one wrote. */
  private readonly queue = new Map<string, Promise<unknown>>();

  constructor(private readonly store: FedStore, private readonly backbones: Backbones, private readonly log: Logger) {}

  async answer(record: FedRecord): Promise<void> {
    if (this.subs.has(record.fedId)) return;
    const bb = await this.backbones.connection(record.backbone, record.reqTimeoutMs);
    const { enc } = deriveFederationKeys(record.secretKey);
    // A queue group: with several replicas of this service, one answers each join.
    const sub = bb.subscribe(backboneNames(record.fedId).join, {
      queue: 'sml-federation',
      callback: (err, m) => {
        if (err !== null) return;
        const request = openGroup(enc, record.fedId, 'join-request', new TextDecoder().decode(m.data)) as JoinRequest | undefined;
        if (request === undefined || typeof request.token !== 'string' || typeof request.peer !== 'string' || typeof request.publicKey !== 'string') return;
        const prev = this.queue.get(record.fedId) ?? Promise.resolve();
        const next = prev.then(async () => {
          const reply = await this.join(record.user, record.pid, request);
          m.respond(new TextEncoder().encode(sealGroup(enc, record.fedId, 'join-reply', reply)));
        }).catch((e: unknown) => this.log.warn({ pid: record.pid, err: (e as Error).message }, 'federation join not answered'));
        this.queue.set(record.fedId, next);
      },
    });
    this.subs.set(record.fedId, sub);
  }

  private async join(user: string, pid: string, request: JoinRequest): Promise<JoinReply> {
    const record = (await this.store.get(user, pid))!;
    const decision = await this.store.redeem(record.fedId, request.token, Date.now(), request.peer);
    if (!decision.ok) {
      this.log.info({ pid, reason: decision.reason }, 'federation join refused');
      return { ok: false, message: decision.message };
    }
    const roster = signRoster(withMember(record.roster.roster, request.peer, request.publicKey), record.nodeKey.privateKey);
    const peerPids = { ...record.peerPids, [request.peer]: String(request.pid) };
    await this.store.put({ ...record, roster, peerPids });
    const bb = await this.backbones.connection(record.backbone, record.reqTimeoutMs);
    await bb.jetstream().publish(backboneNames(record.fedId).roster, new TextEncoder().encode(JSON.stringify(roster)));
    this.log.info({ pid, peer: request.peer }, 'federation peer joined');
    return { ok: true, roster, syncSched: record.syncSched, contract: record.contract, contractVersion: record.contractVersion, peerPids };
  }

  stop(): void {
    for (const s of this.subs.values()) s.unsubscribe();
    this.subs.clear();
  }
}

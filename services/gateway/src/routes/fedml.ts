import { decryptDsInfo, smlError } from '@sml/core';
import { contracts } from '@sml/bus';
import { defineRoute, type RouteContext } from '../route';
import { boolParam, name, userParam, z } from '../schemas';
import { encryptedFor } from './fusion';

const ops = contracts.federation;
const fedParams = userParam.extend({ pid: name('project') });
const createQuery = z.object({
  pid: name('project'),
  persist: boolParam.optional().openapi({ description: 'default true; false = memory only: project and membership are gone after a restart' }),
});

const encryptedMap = (keys: string) => z.string().openapi({
  description: 'Encrypted map (as an encrypted DSInfo body: AES-128-CBC with the fixed IV, or `v2:` + AES-128-GCM; key = the caller\'s secret) '
    + `whose plaintext is a flat JSON object string → string. Keys: ${keys}. Decrypt or parse failure: 400 'Invalid encrypted payload'; a missing required key: 400 'Missing required key [<key>]'.`,
});

/** The encrypted map body: a flat JSON object string → string, else 'Invalid encrypted payload'. */
function keysOf(ctx: RouteContext): Record<string, string> {
  const text = Buffer.isBuffer(ctx.body) ? ctx.body.toString('utf8') : '';
  const plain = decryptDsInfo(text, ctx.secretKey ?? '');
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain) || !Object.values(plain).every((v) => typeof v === 'string')) {
    throw smlError('INVALID_ENCRYPTED_PAYLOAD');
  }
  return plain as Record<string, string>;
}

const persistOf = (ctx: RouteContext) => (ctx.query.persist === undefined ? {} : { persist: ctx.query.persist as boolean });

const AWS = '400 \'AWS-backed federation is not supported; use a NATS backbone (nats_hosts)\' for any aws_* or s3_bucket key; '
  + 'fed_use_smpc=true → 400 \'SMPC federation is not supported\'; fed_enforce_hipaa_compliance=true → 400 \'HIPAA compliance mode is not supported\'.';

const invitation = (operationId: string, path: string, alias: string) => defineRoute({
  method: 'post', path, operationId, tags: ['federation'],
  summary: `Issue an invitation to join the federation (admin only)${alias}`,
  description: 'Mints a new single-use token (FEDTOKEN + 32 hex, stored as its SHA-256) and answers the invitation map encrypted with `passwd` '
    + '(`v2p:` + base64(salt‖nonce‖ciphertext‖tag), PBKDF2-SHA256 600 000 → AES-256-GCM) as values.fedInfoEncrypted and, the same string, values.encryptedGroupInfo. '
    + 'Invitation keys: sync_sched, fed_name, fed_secret_key, fed_req_token, fed_rest_url, nats_hosts, nats_sec_*, fed_id, fed_admin_pubkey, fed_token_expires (ISO). '
    + 'A non-admin node: 400 \'Only the federation admin can issue invitations\'.',
  contract: ops.getInvitation,
  params: fedParams,
  body: encryptedMap('passwd (required), fed_rest_host (optional, echoed as fed_rest_url), fed_token_timeout_hours (default 2, at most 168)'), rawBody: true,
  values: z.object({ fedInfoEncrypted: z.string(), encryptedGroupInfo: z.string() }),
  success: { status: 200, description: 'values.fedInfoEncrypted = values.encryptedGroupInfo = the password-encrypted invitation' }, errors: ['INVALID_ENCRYPTED_PAYLOAD'],
  toRequest: (ctx) => ({ caller: ctx.caller, pid: ctx.params.pid, keys: keysOf(ctx) }),
  present: (reply) => {
    const text = reply.info?.invitation ?? '';
    return { status: reply.status ?? { code: 200, message: 'OK' }, values: { fedInfoEncrypted: text, encryptedGroupInfo: text } };
  },
});

/** Federation (/fedml): create, join, info, invitations; the AWS backend refused. */
export const fedmlRoutes = [
  defineRoute({
    method: 'post', path: '/:user/fedml/create', operationId: 'createFederation', tags: ['federation'],
    summary: 'Create a federated project and its federation; the caller\'s node becomes the admin',
    description: 'Creates the local project (smlInfo.type fed), the federation (random 16-byte fed_secret_key, node uuid and Ed25519 key) and, on the backbone, '
      + 'the stream SMLFED_<T> and object store SMLFED_<T>_SUM (T = the subject token derived from the key, so the backbone shows no federation name). Not pulsing. '
      + '`nats_hosts` are checked as data-source addresses (private and loopback refused unless SML_SOURCES_ALLOW_PRIVATE=true) and are never the instance\'s internal bus. '
      + `Backbone unreachable or without JetStream: 503 'Federation backbone unreachable: <reason>', nothing created. ${AWS}`,
    contract: ops.create,
    params: userParam, query: createQuery,
    body: encryptedMap('fed_name, sync_sched, nats_hosts (required); fed_local_type, nats_sec_user, nats_sec_passwd, nats_sec_token, nats_sec_nkey_seed, nats_req_timeout (s, 30), '
      + 'nats_stream_max_memory (bytes, 1 GiB), fed_encrypt (no effect), fed_psr_contract_snd_fail_action, fed_psr_contract_rcv_fail_action'), rawBody: true,
    success: { status: 201, description: 'Project Created with id:<pid>' }, errors: ['INVALID_ENCRYPTED_PAYLOAD'],
    toRequest: (ctx) => ({ caller: ctx.caller, pid: String(ctx.query.pid), keys: keysOf(ctx), ...persistOf(ctx) }),
  }),
  defineRoute({
    method: 'post', path: '/:user/fedml/createJoin', operationId: 'joinFederation', tags: ['federation'],
    summary: 'Join a federation with an invitation: creates the local federated project',
    description: 'Body: the invitation\'s keys unchanged (+ fed_local_type), or fed_invitation (the still-encrypted text) + passwd. The token is redeemed with the admin '
      + 'over the backbone (smlfed.<T>.join, sealed with the federation key); the roster signed by the admin comes back. 400 \'Invalid federation invitation\' '
      + '(wrong password, garbled); 400 \'Federation token expired or already used\'; 503 \'Federation admin did not answer\' (nothing created, token not spent). '
      + AWS,
    contract: ops.createJoin,
    params: userParam, query: createQuery,
    body: encryptedMap('the invitation\'s (sync_sched, fed_name, fed_secret_key, fed_req_token, fed_rest_url, nats_hosts, nats_sec_*, fed_id, fed_admin_pubkey) or fed_invitation + passwd; fed_local_type, nats_req_timeout'), rawBody: true,
    success: { status: 201, description: 'Fed Project created with join' }, errors: ['INVALID_ENCRYPTED_PAYLOAD'],
    toRequest: (ctx) => ({ caller: ctx.caller, pid: String(ctx.query.pid), keys: keysOf(ctx), ...persistOf(ctx) }),
  }),
  defineRoute({
    method: 'get', path: '/:user/fedml/:pid/info', operationId: 'federationInfo', tags: ['federation'],
    summary: 'The federation of a federated project, encrypted',
    description: 'values.fedInfoEncrypted = FederationInfo encrypted with the caller\'s secret (v2 when the request carried `sym-enc: v2`): fed_local_id, local_uuid, fed_name, '
      + 'fed_secret_key, sync_sched, fed_type (nats), is_pulsing, peersInfo (uuid → pid=<p>;status=<accepted|excluded|silent>;rows=<n>;lastSync=<ISO>), contract, '
      + 'rcv_error_action, snd_error_action, fed_use_smpc, allow_peers_explore, fed_is_admin, fed_id, nats_hosts (never the backbone credentials). '
      + 'Not federated: 400 \'Project [<p>] is not a federated project\'; a type=fed project made by POST /projects: 400 \'Project [<p>] has no federation\'.',
    contract: ops.info,
    params: fedParams,
    values: z.object({ fedInfoEncrypted: z.string() }),
    success: { status: 200, description: 'values.fedInfoEncrypted' }, resend: true,
    toRequest: ({ caller, params }) => ({ caller, pid: params.pid }),
    present: (reply, ctx) => {
      const entity = { ...reply.info, peersInfo: { ...reply.peersInfo } };
      return { status: reply.status ?? { code: 200, message: 'OK' }, values: { fedInfoEncrypted: encryptedFor(ctx, entity) } };
    },
  }),
  invitation('federationInvitation', '/:user/fedml/:pid/getInvitation', ''),
  invitation('federationInvitationAlias', '/:user/fedml/:pid/getEncrypted', ' (alias of getInvitation)'),
  defineRoute({
    method: 'post', path: '/:user/fedml/:pid/awsinfo', operationId: 'federationAwsInfo', tags: ['federation'],
    summary: 'AWS-backed federation: refused',
    description: 'Always 400 \'AWS-backed federation is not supported; use a NATS backbone (nats_hosts)\', for every project; the body is not decrypted.',
    contract: ops.awsinfo,
    params: fedParams, body: z.string().optional(), rawBody: true,
    success: { status: 200, description: 'never answered: every call is refused (400)' },
    toRequest: ({ caller, params }) => ({ caller, pid: params.pid }),
  }),
];

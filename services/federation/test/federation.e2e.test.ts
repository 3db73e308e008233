import { connect, type NatsConnection } from 'nats';
import { decryptDsInfo, encryptDsInfo } from '@sml/core';
import { decryptInvitation } from '@sml/federation';
import { SmlClient, type SmlResponse } from '@sml/sdk';
import { startFederationLab, type FederationLab, type RunningSystem } from '@sml/testkit';

// README "Federation": A creates a federation, issues invitations, B joins over the backbone.

type Values = Record<string, unknown>;

describe('federation: create, invitation, join across two instances', () => {
  let lab: FederationLab;
  let a: RunningSystem;
  let b: RunningSystem;
  let alice: SmlClient;
  let bob: SmlClient;
  let aliceSecret = '';
  let bobSecret = '';
  let sniffer: NatsConnection;
  /** Everything published on the backbone during the test, as text. */
  const seen: string[] = [];
  const PASSWD = 'Correct-Horse-7731';

  const customerOf = async (sys: RunningSystem, user: string): Promise<[SmlClient, string]> => {
    const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
    const r = await root.addUser(user);
    if (r.status !== 201) throw new Error(`${r.status} ${r.body.statusString}`);
    const secret = (r.body.values as { secretKey: string }).secretKey;
    return [new SmlClient({ url: sys.url, user, secret }), secret];
  };
  const post = (sdk: SmlClient, secret: string, path: string, map: Record<string, string>, query: Record<string, string> = {}) =>
    sdk.request<Values>('POST', path, { query, raw: encryptDsInfo(map, secret) });
  const status = (r: SmlResponse<Values>) => [r.status, r.body.statusString];
  const backbone = () => `nats://127.0.0.1:${lab.backbone.port}`;
  const info = async (sdk: SmlClient, secret: string, pid: string) => {
    const r = await sdk.request<{ fedInfoEncrypted: string }>('GET', `/fedml/${pid}/info`);
    expect(status(r as SmlResponse<Values>)).toEqual([200, 'OK']);
    return decryptDsInfo(r.body.values?.fedInfoEncrypted ?? '', secret) as Record<string, unknown> & { peersInfo: Record<string, string> };
  };
  const invite = async (hours = '100') => {
    const r = await post(alice, aliceSecret, '/fedml/fa/getInvitation', { passwd: PASSWD, fed_rest_host: a.url, fed_token_timeout_hours: hours });
    expect(status(r)).toEqual([200, 'OK']);
    const values = r.body.values ?? {};
    expect(values.encryptedGroupInfo).toBe(values.fedInfoEncrypted);
    return String(values.fedInfoEncrypted);
  };

  beforeAll(async () => {
    // One hour of fed_token_timeout_hours lasts one second here (SML_FED_TOKEN_HOUR_MS, the test seam).
    lab = await startFederationLab(2, { env: { SML_FED_TOKEN_HOUR_MS: '1000' } });
    [a, b] = lab.instances;
    [alice, aliceSecret] = await customerOf(a, 'alice');
    [bob, bobSecret] = await customerOf(b, 'bob');
    sniffer = await connect({ servers: backbone() });
    sniffer.subscribe('>', { callback: (_e, m) => void seen.push(`${m.subject} ${new TextDecoder().decode(m.data)}`) });
  }, 120_000);
  afterAll(async () => {
    await sniffer?.close();
    await lab?.stop();
  });

  it('A creates, B joins with an invitation; both infos name both nodes; a token admits once', async () => {
    const created = await post(alice, aliceSecret, '/fedml/create', { fed_name: 'heartfed', sync_sched: 'm5', nats_hosts: backbone() }, { pid: 'fa' });
    expect(status(created)).toEqual([201, 'Project Created with id:fa']);
    expect((await alice.request<{ smlInfo: Values }>('GET', '/projects/fa/info')).body.values?.smlInfo.type).toBe('fed');

    const text = await invite();
    const keys = await decryptInvitation(text, PASSWD);
    expect(keys.fed_req_token).toMatch(/^FEDTOKEN[0-9a-f]{32}$/);
    expect(keys.fed_rest_url).toBe(a.url);
    // The encrypted invitation + its password (GUI form).
    const joined = await post(bob, bobSecret, '/fedml/createJoin', { fed_invitation: text, passwd: PASSWD }, { pid: 'fb' });
    expect(status(joined)).toEqual([201, 'Fed Project created with join']);

    const ia = await info(alice, aliceSecret, 'fa');
    const ib = await info(bob, bobSecret, 'fb');
    expect([ia.fed_is_admin, ib.fed_is_admin]).toEqual(['true', 'false']);
    expect(ib.fed_id).toBe(ia.fed_id);
    expect(ib.fed_secret_key).toBe(ia.fed_secret_key);
    expect([ia.fed_name, ib.fed_name, ia.sync_sched, ib.sync_sched, ia.fed_type]).toEqual(['heartfed', 'heartfed', 'm5', 'm5', 'nats']);
    expect(Object.keys(ia.peersInfo)).toEqual([ib.local_uuid]);
    expect(Object.keys(ib.peersInfo)).toEqual([ia.local_uuid]);
    expect(ia.peersInfo[String(ib.local_uuid)]).toBe('pid=fb;status=silent;rows=0;lastSync=');
    expect(ib.peersInfo[String(ia.local_uuid)]).toBe('pid=fa;status=silent;rows=0;lastSync=');

    // The same token again (the decrypted keys this time, REST form): spent.
    const again = await post(bob, bobSecret, '/fedml/createJoin', keys, { pid: 'fb2' });
    expect(status(again)).toEqual([400, 'Federation token expired or already used']);
    expect((await bob.request('GET', '/projects/fb2/info')).status).toBe(400);
    // Only the admin issues invitations.
    expect(status(await post(bob, bobSecret, '/fedml/fb/getInvitation', { passwd: PASSWD }))).toEqual([400, 'Only the federation admin can issue invitations']);
  }, 60_000);

  it('refuses a wrong password and an expired token, creating nothing', async () => {
    const text = await invite();
    expect(status(await post(bob, bobSecret, '/fedml/createJoin', { fed_invitation: text, passwd: 'wrong' }, { pid: 'fw' }))).toEqual([400, 'Invalid federation invitation']);
    const short = await invite('1'); // one "hour" = 1 s here
    await new Promise((r) => setTimeout(r, 1500));
    expect(status(await post(bob, bobSecret, '/fedml/createJoin', { fed_invitation: short, passwd: PASSWD }, { pid: 'fe' }))).toEqual([400, 'Federation token expired or already used']);
    for (const pid of ['fw', 'fe']) expect((await bob.request('GET', `/projects/${pid}/info`)).status).toBe(400);
    // The first invitation is still good: a refused attempt spent nothing.
    expect(status(await post(bob, bobSecret, '/fedml/createJoin', { fed_invitation: text, passwd: PASSWD }, { pid: 'fb3' }))[0]).toBe(201);
  }, 60_000);

  it('refuses the internal bus as backbone, an unreachable backbone, AWS, SMPC and HIPAA, creating nothing', async () => {
    const base = { fed_name: 'x', sync_sched: 'm5' };
    const internal = await post(alice, aliceSecret, '/fedml/create', { ...base, nats_hosts: a.nats.url }, { pid: 'fi' });
    expect(status(internal)[0]).toBe(400);
    expect(String(status(internal)[1])).toContain('internal bus');
    const down = await post(alice, aliceSecret, '/fedml/create', { ...base, nats_hosts: 'nats://127.0.0.1:1', nats_req_timeout: '2' }, { pid: 'fd' });
    expect(status(down)[0]).toBe(503);
    expect(String(status(down)[1])).toMatch(/^Federation backbone unreachable: /);
    const aws = 'AWS-backed federation is not supported; use a NATS backbone (nats_hosts)';
    expect(status(await post(alice, aliceSecret, '/fedml/create', { ...base, aws_access_key: 'k', s3_bucket: 'b' }, { pid: 'fx' }))).toEqual([400, aws]);
    expect(status(await post(alice, aliceSecret, '/fedml/fa/awsinfo', {}))).toEqual([400, aws]);
    expect(status(await post(alice, aliceSecret, '/fedml/create', { ...base, nats_hosts: backbone(), fed_use_smpc: 'true' }, { pid: 'fx' }))).toEqual([400, 'SMPC federation is not supported']);
    expect(status(await post(alice, aliceSecret, '/fedml/create', { ...base, nats_hosts: backbone(), fed_enforce_hipaa_compliance: 'true' }, { pid: 'fx' }))).toEqual([400, 'HIPAA compliance mode is not supported']);
    expect(status(await post(alice, aliceSecret, '/fedml/create', { sync_sched: 'm5', nats_hosts: backbone() }, { pid: 'fx' }))).toEqual([400, 'Missing required key [fed_name]']);
    for (const pid of ['fi', 'fd', 'fx']) expect((await alice.request('GET', `/projects/${pid}/info`)).status).toBe(400);
    // Not federated / unknown.
    expect((await alice.createProject('plain')).status).toBe(201);
    expect(status(await alice.request<Values>('GET', '/fedml/plain/info'))).toEqual([400, 'Project [plain] is not a federated project']);
    expect((await alice.createProject('plainfed', { type: 'fed' })).status).toBe(201);
    expect(status(await alice.request<Values>('GET', '/fedml/plainfed/info'))).toEqual([400, 'Project [plainfed] has no federation']);
    expect(status(await alice.request<Values>('GET', '/fedml/nosuch/info'))).toEqual([400, 'Cannot Find Project id[nosuch] for Customer id [alice]']);
  }, 60_000);

  it('shows on the backbone no project or federation name, no secret, password or token in clear', async () => {
    const ia = await info(alice, aliceSecret, 'fa');
    const text = seen.join('\n');
    expect(seen.length).toBeGreaterThan(0);
    expect(text).toContain(String(ia.fed_id)); // the subject token is what the backbone sees
    // Short names would match inside base64 by chance: they must not appear as a JSON string or a subject token.
    for (const word of ['heartfed', 'fa', 'fb', 'alice', 'bob']) expect([`"${word}"`, `.${word}.`, `.${word} `].filter((w) => text.includes(w))).toEqual([]);
    for (const secret of [String(ia.fed_secret_key), aliceSecret, bobSecret, PASSWD, 'FEDTOKEN']) expect(text.includes(secret)).toBe(false);
  });
});

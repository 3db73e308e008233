import { connect, type NatsConnection, type NatsError } from 'nats';
import { sml } from '@sml/proto';
import { subjects } from '@sml/bus';
import { startNatsServer, startSystem, type RunningSystem } from '@sml/testkit';
import type { SmlClient } from '@sml/sdk';
import { customer } from '../../projects/test/helpers';

// Issue 9 item 5: the bus authenticates every connection, and each identity may publish and
// subscribe only what its role needs (README "Bus security"; packages/bus/src/permissions.ts).
// A small max_payload makes large requests and replies travel through the spill bucket, so the
// end-to-end part also covers the object-store permissions.
describe('bus authentication and permissions', () => {
  let sys: RunningSystem;
  let bob: SmlClient;
  const opened: NatsConnection[] = [];
  const as = async (identity: 'gateway' | 'explore' | 'jobs' | 'admin') => {
    const nc = await connect({ servers: sys.nats.url, ...sys.nats.connectOptions(identity) });
    opened.push(nc);
    return nc;
  };
  const caller = (user: string, root = false) => ({ user, root, requestId: 'bus-auth' });
  /** The error a request ends with (nats.js rejects a request whose publish is denied). */
  const refusal = (p: Promise<unknown>) => p.then(() => 'answered', (err: NatsError) => err.code);

  beforeAll(async () => {
    const nats = await startNatsServer({ auth: true, maxPayload: '512KB' });
    sys = await startSystem({ services: ['users', 'jobs', 'projects', 'explore'], nats });
    bob = await customer(sys, 'bob');
    expect((await bob.createProject('secret', { enableHistogram: true })).status).toBe(201);
    const x = Array.from({ length: 30 }, (_, i) => [String(i), String(i % 3)]);
    expect((await bob.learn('secret', { attributeNames: ['x', 'y'], attributeTypes: ['C', 'C'], data: x, errorHandling: 0 })).status).toBe(200);
  });
  afterAll(async () => {
    await Promise.all(opened.map((nc) => nc.close().catch(() => undefined)));
    await sys?.stop();
    await sys?.nats.stop();
  });

  it('a client without credentials, or with a wrong password, is refused at connect', async () => {
    await expect(connect({ servers: sys.nats.url })).rejects.toMatchObject({ code: 'AUTHORIZATION_VIOLATION' });
    await expect(connect({ servers: sys.nats.url, user: 'gateway', pass: 'guessed' })).rejects.toMatchObject({ code: 'AUTHORIZATION_VIOLATION' });
    await expect(connect({ servers: sys.nats.url, user: 'explore', pass: sys.nats.credentials!.gateway.password })).rejects.toMatchObject({ code: 'AUTHORIZATION_VIOLATION' });
  });

  it("explore's identity may not call the users service nor send other requests with a forged caller", async () => {
    const nc = await as('explore');
    const add = sml.v1.UserAddRequest.encode({ caller: caller('root', true), cid: 'mallory', root: true }).finish();
    expect(await refusal(nc.request(subjects.users.add, add, { timeout: 2000 }))).toBe('PERMISSIONS_VIOLATION');
    const list = sml.v1.UserListRequest.encode({ caller: caller('root', true) }).finish();
    expect(await refusal(nc.request(subjects.users.list, list, { timeout: 2000 }))).toBe('PERMISSIONS_VIOLATION');
    const project = sml.v1.ProjectRequest.encode({ caller: caller('bob'), pid: 'secret' }).finish();
    for (const op of ['delete', 'unload', 'learn', 'create'] as const) {
      expect(await refusal(nc.request(subjects.projects(op), project, { timeout: 2000 }))).toBe('PERMISSIONS_VIOLATION');
    }
    const jobs = sml.v1.JobListRequest.encode({ caller: caller('root', true), all: true }).finish();
    expect(await refusal(nc.request(subjects.jobs.list, jobs, { timeout: 2000 }))).toBe('PERMISSIONS_VIOLATION');

    // What explore needs stays allowed: a project's info and summary, for the caller it serves.
    const info = sml.v1.ProjectInfoReply.decode((await nc.request(subjects.projects('info'), project, { timeout: 5000 })).data);
    expect(info.status?.code ?? 200).toBe(200);

    // Nothing was changed: mallory does not exist, bob's project is still there.
    const admin = await as('admin');
    const users = sml.v1.UserListReply.decode((await admin.request(subjects.users.list, list, { timeout: 5000 })).data);
    expect(users.users.map((u) => u.cid)).toEqual(expect.arrayContaining(['root', 'bob']));
    expect(users.users.map((u) => u.cid)).not.toContain('mallory');
    expect((await bob.projectInfo('secret')).status).toBe(200);
  });

  it('no identity may subscribe to another service\'s subjects or to other identities\' replies', async () => {
    const subscribeRefused = async (nc: NatsConnection, subject: string, queue?: string) => {
      const sub = nc.subscribe(subject, queue ? { queue } : {});
      const got = await (async () => {
        for await (const _m of sub) return 'message';
        return 'closed';
      })().catch((err: NatsError) => err.code);
      return got;
    };
    const explore = await as('explore');
    expect(await subscribeRefused(explore, 'sml.projects.>', 'projects')).toBe('PERMISSIONS_VIOLATION');
    expect(await subscribeRefused(explore, 'sml.users.>')).toBe('PERMISSIONS_VIOLATION');
    expect(await subscribeRefused(explore, '_INBOX.>')).toBe('PERMISSIONS_VIOLATION');
    expect(await subscribeRefused(explore, '_INBOX.gateway.>')).toBe('PERMISSIONS_VIOLATION');
    expect(await subscribeRefused(explore, '$SRV.PING.projects')).toBe('PERMISSIONS_VIOLATION');
    const jobs = await as('jobs');
    expect(await subscribeRefused(jobs, 'sml.events.job.>')).toBe('PERMISSIONS_VIOLATION');
    const admin = await as('admin');
    expect(await subscribeRefused(admin, 'sml.users.add')).toBe('PERMISSIONS_VIOLATION');
    const gateway = await as('gateway');
    expect(await subscribeRefused(gateway, 'sml.projects.0.info', 'projects')).toBe('PERMISSIONS_VIOLATION');
  });

  it('JetStream: an identity reaches only its own streams, buckets and object stores', async () => {
    const explore = await as('explore');
    const jsm = await explore.jetstreamManager();
    await expect(jsm.streams.info('KV_sml_users')).rejects.toMatchObject({ code: 'PERMISSIONS_VIOLATION' });
    await expect(jsm.streams.getMessage('KV_sml_users', { last_by_subj: '$KV.sml_users.root' })).rejects.toMatchObject({ code: 'PERMISSIONS_VIOLATION' });
    await expect(jsm.streams.purge('SML_PROJECT_LOG')).rejects.toMatchObject({ code: 'PERMISSIONS_VIOLATION' });
    await expect(jsm.streams.delete('KV_sml_replay')).rejects.toMatchObject({ code: 'PERMISSIONS_VIOLATION' });
    expect(await refusal(explore.jetstream().publish('sml.plog.bob.secret', new Uint8Array(1)))).toBe('PERMISSIONS_VIOLATION');
    expect(await refusal(explore.jetstream().publish('$KV.sml_users.mallory', new Uint8Array(1)))).toBe('PERMISSIONS_VIOLATION');
    // Its own: the spill object store.
    await explore.jetstream().views.os('sml_bus_spill');
    expect((await jsm.streams.info('OBJ_sml_bus_spill')).config.name).toBe('OBJ_sml_bus_spill');

    const gateway = await as('gateway');
    const gjsm = await gateway.jetstreamManager();
    expect((await gjsm.streams.info('KV_sml_users')).config.name).toBe('KV_sml_users');
    await expect(gjsm.streams.info('SML_PROJECT_LOG')).rejects.toMatchObject({ code: 'PERMISSIONS_VIOLATION' });
    await expect(gjsm.streams.info('KV_sml_jobs')).rejects.toMatchObject({ code: 'PERMISSIONS_VIOLATION' });
  });

  it('the system still works end to end: learn (spilled), explore, a job, /readyz, and the server logged the violations', async () => {
    const carol = await customer(sys, 'carol');
    expect((await carol.createProject('big')).status).toBe(201);
    // ~1 MB of columns: above the 512 KB max_payload, so gateway → projects goes through the spill
    // bucket. Keyed, so that it travels as columns, not as its summary (README "Batch summaries").
    const rows = Array.from({ length: 40_000 }, (_, i) => [String(i * 0.5), String((i * 7) % 13), String(i % 2)]);
    const frame = { attributeNames: ['a', 'b', 'c'], attributeTypes: ['C', 'C', 'B'], data: rows, errorHandling: 0 };
    const learned = await carol.request('POST', '/projects/big/learn', { json: frame, headers: { 'Idempotency-Key': 'spilled' } });
    expect(learned.status).toBe(200);
    const gateway = await as('gateway');
    expect((await (await gateway.jetstreamManager()).streams.info('OBJ_sml_bus_spill')).state.last_seq).toBeGreaterThan(0);
    const uni = await carol.request('POST', '/projects/big/explore', { query: { metric: 'uni', returnProjectInfo: 'false' }, json: { values: [{ inputAttributeNames: ['a'], extraParameters: {} }] } });
    expect(uni.status).toBe(200);
    expect(Number((uni.body.values as { KSVDMap: { values: Array<{ count: number }> } }).KSVDMap.values[0].count)).toBe(40_000);
    const pca = await carol.waitForJob(await carol.request('POST', '/projects/big/explorepca', { json: { values: [{ inputAttributeNames: ['a', 'b'], extraParameters: {} }] } }));
    expect(pca.status).toBe(200);
    expect((await carol.listJobs()).status).toBe(200);
    expect((await fetch(`${sys.url}/readyz`)).status).toBe(200);

    const log = sys.nats.log();
    expect(log).toMatch(/Publish Violation.*User "explore".*sml\.users\.add/);
    expect(log).toMatch(/Subscription Violation.*User "explore".*sml\.projects\.>/);
    // …and none from the services themselves (connections named sml-<service>).
    expect(log.split('\n').filter((l) => /Violation/.test(l) && /sml-/.test(l))).toEqual([]);
  });
});

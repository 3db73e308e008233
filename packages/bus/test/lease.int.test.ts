import { connect, type KV, type NatsConnection } from 'nats';
import { sml } from '@sml/proto';
import { HeldLeases, Leases, kvBucket } from '@sml/bus';
import { startNatsServer, type NatsServer } from '@sml/testkit';
import { until } from './helpers';

// The leases a streams replica holds when NATS does not answer for a while (an election of
// the KV's stream, a restart): a renewal without an answer is not a lost lease, until two
// thirds of a lease have passed since the last answered one.
describe('held leases', () => {
  let nats: NatsServer;
  let nc: NatsConnection;
  /** The bucket through a JetStream context that gives up after 300 ms (the services' wait longer). */
  let kv: KV;

  beforeAll(async () => {
    nats = await startNatsServer();
    nc = await connect({ servers: nats.url, reconnectTimeWait: 100, maxReconnectAttempts: -1 });
    await kvBucket(nc, 'sml_test_leases');
    kv = await nc.jetstream({ timeout: 300 }).views.kv('sml_test_leases', { bindOnly: true });
  });

  afterAll(async () => {
    await nc?.close();
    await nats?.stop();
  });

  const holder = async (key: string) => {
    const e = await kv.get(key);
    return e && e.operation === 'PUT' ? { owner: sml.v1.StreamLease.decode(e.value).owner, revision: e.revision } : undefined;
  };

  /** A replica's held leases, and the keys its expiry timers gave up. */
  const replica = (name: string, leaseMs: number, keepMs = leaseMs) => {
    const expired: string[] = [];
    return { held: new HeldLeases(new Leases(kv, name, leaseMs), keepMs, (key) => expired.push(key)), expired };
  };

  it('a renewal is a new revision of the same holder; a lease another replica took is lost', async () => {
    // Leases of 300 ms that this replica believes it may keep for 5 s: what a clock behind the
    // other replicas' looks like, so that another replica takes it while this one still holds it.
    const { held: a, expired } = replica('replica-a', 300, 5_000);
    expect(await a.take('s1')).toBe(true);
    const first = (await holder('s1'))!;
    expect(first.owner).toBe('replica-a');
    expect(await a.renewAll()).toEqual({ lost: [], unanswered: [] });
    const second = (await holder('s1'))!;
    expect(second).toEqual({ owner: 'replica-a', revision: expect.any(Number) });
    expect(second.revision).toBeGreaterThan(first.revision);

    // Not renewed for longer than its lease: another replica takes it; the next round loses it.
    const { held: b } = replica('replica-b', 5_000);
    expect(await b.take('s1')).toBe(false);
    await new Promise((r) => setTimeout(r, 400));
    expect(await b.take('s1')).toBe(true);
    expect(await a.renewAll()).toEqual({ lost: ['s1'], unanswered: [] });
    expect(await a.renewAll()).toEqual({ lost: [], unanswered: [] }); // no longer held
    expect((await holder('s1'))!.owner).toBe('replica-b');
    expect(expired).toEqual([]);
    await b.release('s1');
    expect(await holder('s1')).toBeUndefined();
  });

  it('renewals NATS does not answer for a third of a lease keep the lease, renewed once NATS is back', async () => {
    const { held: a, expired } = replica('replica-c', 6_000);
    expect(await a.take('s2')).toBe(true);
    const before = (await holder('s2'))!.revision;
    const rounds: Awaited<ReturnType<HeldLeases['renewAll']>>[] = [];
    await nats.restart({
      whileDown: async () => {
        rounds.push(await a.renewAll());
        await new Promise((r) => setTimeout(r, 500));
        rounds.push(await a.renewAll());
      },
    });
    expect(rounds).toEqual([{ lost: [], unanswered: ['s2'] }, { lost: [], unanswered: ['s2'] }]);
    // Back: a round renews it (a later revision, still this replica's).
    await until('the lease renewed after the restart', async () => {
      const r = await a.renewAll();
      expect(r.lost).toEqual([]);
      const h = await holder('s2');
      return h && h.revision > before ? h : undefined;
    });
    expect((await holder('s2'))!.owner).toBe('replica-c');
    expect(expired).toEqual([]);
    await a.release('s2');
  }, 30_000);

  it('a lease whose renewals go unanswered for two thirds of a lease is given up by its timer, even while a renewal still waits', async () => {
    // Renewals that wait 4 s for an answer, a 2.4 s lease: the round is stuck in its renewal when
    // two thirds of the lease (1.6 s) have passed.
    const slow = await nc.jetstream({ timeout: 4_000 }).views.kv('sml_test_leases', { bindOnly: true });
    const expired: string[] = [];
    const a = new HeldLeases(new Leases(slow, 'replica-d', 2_400), 2_400, (key) => expired.push(key));
    const t0 = Date.now();
    expect(await a.take('s3')).toBe(true);
    await nats.restart({
      whileDown: async () => {
        const round = a.renewAll();
        await new Promise((r) => setTimeout(r, 1_000));
        expect(expired).toEqual([]);
        await until('the lease given up', () => (expired.length > 0 ? true : undefined), 3_000);
        expect(Date.now() - t0).toBeGreaterThanOrEqual(1_600);
        expect(expired).toEqual(['s3']);
        // The renewal that was waiting reports nothing about a lease no longer held.
        expect(await round).toEqual({ lost: [], unanswered: [] });
      },
    });
    expect(await a.renewAll()).toEqual({ lost: [], unanswered: [] });
  }, 30_000);

  // Issue 29, item 14 (streams): the only live streams replica stopped its streams once NATS
  // had not answered for two thirds of a lease, though nobody else could run them.
  it('the only live replica keeps a lease whose renewals go unanswered for longer than a lease, and renews it once NATS answers', async () => {
    await until('NATS answers again after the restart before', () => kv.get('s4').then(() => true, () => undefined));
    const slow = await nc.jetstream({ timeout: 4_000 }).views.kv('sml_test_leases', { bindOnly: true });
    const expired: string[] = [];
    const overdue: string[] = [];
    const a = new HeldLeases(new Leases(slow, 'replica-e', 1_200), 1_200, (key) => expired.push(key), () => true, (key) => overdue.push(key));
    expect(await a.take('s4')).toBe(true);
    const before = (await holder('s4'))!.revision;
    await nats.restart({
      whileDown: async () => {
        void a.renewAll();
        await until('the lease overdue', () => (overdue.length > 0 ? true : undefined), 3_000);
        await new Promise((r) => setTimeout(r, 800));
        expect({ expired, overdue }).toEqual({ expired: [], overdue: ['s4'] });
      },
    });
    await until('renewed', async () => ((await a.renewAll()).lost.length === 0 && ((await holder('s4'))?.revision ?? 0) > before ? true : undefined));
    expect(expired).toEqual([]);
    await a.release('s4');
  }, 30_000);
});

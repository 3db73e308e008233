import { connect, type NatsConnection } from 'nats';
import { sml } from '@sml/proto';
import { JOB_IDS_STREAM, ensureStream, kvBucket } from '@sml/bus';
import { JobStore, MAX_WAITING_GETS_PER_CUSTOMER } from '@sml/jobs';
import { startNatsServer, type NatsServer } from '@sml/testkit';
import { until } from '../../../packages/bus/test/helpers';

const Kind = sml.v1.JobEventKind;
const event = (jobId: number, kind: sml.v1.JobEventKind, more: Partial<sml.v1.IJobEvent> = {}) =>
  sml.v1.JobEvent.create({ jobId, user: 'alice', kind, time: Date.now(), ...more });
const result = sml.v1.JobResult.create({ typeName: 'sml.v1.StringList', payload: sml.v1.StringList.encode({ values: ['done'] }).finish() });

// JobStore as two replicas of the jobs service use it: each keeps the latest records in memory
// (README "State"), every write is a compare-and-set on the record's revision.
describe('JobStore', () => {
  let nats: NatsServer;
  const conns: NatsConnection[] = [];
  let a: JobStore;
  let b: JobStore;

  /** A replica; `watching` false: one whose KV watch has not told it anything yet (its kept copies go stale). */
  const replica = async (watching = true) => {
    const nc = await connect({ servers: nats.url });
    conns.push(nc);
    const store = new JobStore(nc, await kvBucket(nc, 'sml_jobs', { ttl: 3600_000 }), { ttlMs: 3600_000 });
    if (watching) await store.start();
    return store;
  };

  beforeAll(async () => {
    nats = await startNatsServer();
    const nc = await connect({ servers: nats.url });
    conns.push(nc);
    await ensureStream(nc, { name: JOB_IDS_STREAM, subjects: ['sml.jobids'] });
    a = await replica();
    b = await replica();
  });

  afterAll(async () => {
    a.stop();
    b.stop();
    for (const nc of conns) await nc.close();
    await nats.stop();
  });

  it('replicas folding one job in turn, each from its own kept copy, lose no update', async () => {
    const stale = await replica(false);
    const id = await stale.create('alice', { jobType: 'learn' });
    await b.fold(event(id, Kind.STARTED), 1);
    // Its copy is the record as created: the write conflicts, it reads again and applies.
    await stale.fold(event(id, Kind.PROGRESS, { current: 3, maximum: 10 }), 2);
    expect(await stale.get('alice', id)).toEqual(expect.objectContaining({ state: 'running', lastEventSeq: 2 }));
    await b.fold(event(id, Kind.FINISHED, { status: { code: 200 }, result }), 3);
    // Folding an event again changes nothing (idempotent), from a stale copy too.
    await stale.fold(event(id, Kind.PROGRESS, { current: 4, maximum: 10 }), 2);
    await a.fold(event(id, Kind.PROGRESS, { current: 4, maximum: 10 }), 2);
    stale.stop();
    for (const store of [a, b]) {
      const record = await until(`finished on a replica`, async () => {
        const r = await store.get('alice', id);
        return r?.state === 'finished' ? r : undefined;
      });
      expect(Number(record.lastEventSeq)).toBe(3);
      expect(record.info).toEqual(expect.objectContaining({ isStarted: true, isDone: true, current: 10, maximum: 10 }));
      expect(sml.v1.StringList.decode(record.result!.payload!).values).toEqual(['done']);
    }
  });

  it('a job finished without a STARTED event (a short job) reads started and finished', async () => {
    const id = await a.create('alice', { jobType: 'build' });
    await a.fold(event(id, Kind.FINISHED, { status: { code: 200 }, result }), 10);
    const record = await a.get('alice', id);
    expect(record?.state).toBe('finished');
    expect(record?.info).toEqual(expect.objectContaining({ isStarted: true, isDone: true }));
    // Another customer cannot read it, from memory or not.
    expect(await a.get('bob', id)).toBeUndefined();
    expect(await b.get('bob', id)).toBeUndefined();
    // A terminal record never changes again, kept copy or not.
    await b.fold(event(id, Kind.FAILED, { status: { code: 500 } }), 11);
    expect((await b.get('alice', id))?.state).toBe('finished');
  });

  it('job ids are unique across replicas and increase in the order one replica creates its jobs', async () => {
    const created = await Promise.all([a, b, a, b, a, b].map((store) => store.create('alice', { jobType: 'learn' }).then((id) => ({ store, id }))));
    const ids = created.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const store of [a, b]) {
      const mine = created.filter((c) => c.store === store).map((c) => c.id);
      expect(mine).toEqual([...mine].sort((x, y) => x - y));
    }
    // One more from each: above every id it handed out before.
    expect(await a.create('alice', {})).toBeGreaterThan(Math.max(...created.filter((c) => c.store === a).map((c) => c.id)));
    expect(await b.create('alice', {})).toBeGreaterThan(Math.max(...created.filter((c) => c.store === b).map((c) => c.id)));
  });
  // A poll of an unfinished job (jobs.get with SML_JOB_POLL_WAIT_MS) answers when the record
  // changes. Wait limits of seconds and events folded 200 ms after the get: a get that did not
  // wait would read the job running.
  it('a get that may wait answers with the change folded meanwhile, here or on another replica', async () => {
    for (const [folder, getter] of [[a, a], [a, b]] as const) {
      const id = await folder.create('alice', { jobType: 'build' });
      await until('the other replica sees the job', async () => (await getter.get('alice', id)) !== undefined);
      const polled = getter.get('alice', id, 5_000);
      await new Promise((r) => setTimeout(r, 200));
      await folder.fold(event(id, Kind.FINISHED, { status: { code: 200 }, result }), 100 + id);
      const record = await polled;
      expect(record?.state).toBe('finished');
      expect(sml.v1.StringList.decode(record!.result!.payload!).values).toEqual(['done']);
    }
  });

  it('a get of a finished job, of an unknown one or of another customer answers at once', async () => {
    const id = await a.create('alice', { jobType: 'build' });
    await a.fold(event(id, Kind.FINISHED, { status: { code: 200 }, result }), 200 + id);
    const answered: string[] = [];
    const gets = [
      a.get('alice', id, 60_000).then((r) => answered.push(`finished ${r?.state}`)),
      a.get('alice', id + 100_000, 60_000).then((r) => answered.push(`unknown ${r === undefined}`)),
      a.get('bob', id, 60_000).then((r) => answered.push(`other customer ${r === undefined}`)),
    ];
    await Promise.all(gets);
    expect(answered.sort()).toEqual(['finished finished', 'other customer true', 'unknown true']);
  });

  it(`at most ${MAX_WAITING_GETS_PER_CUSTOMER} gets of one customer wait; the others answer at once, and other customers still wait`, async () => {
    const id = await a.create('alice', { jobType: 'build' });
    const bobs = await a.create('bob', { jobType: 'build' });
    const order: string[] = [];
    const waiting = Array.from({ length: MAX_WAITING_GETS_PER_CUSTOMER }, () => a.get('alice', id, 10_000).then((r) => order.push(`alice ${r?.state}`)));
    await new Promise((r) => setTimeout(r, 100));
    // Over the limit: answered now, running.
    expect((await a.get('alice', id, 10_000))?.state).toBe('queued');
    const bob = a.get('bob', bobs, 10_000).then((r) => order.push(`bob ${r?.state}`));
    await new Promise((r) => setTimeout(r, 200));
    expect(order).toEqual([]);
    await a.fold(event(id, Kind.FINISHED, { status: { code: 200 }, result }), 300 + id);
    await a.fold(event(bobs, Kind.STARTED, { user: 'bob' }), 300 + bobs);
    await Promise.all([...waiting, bob]);
    expect(order.sort()).toEqual([...Array(MAX_WAITING_GETS_PER_CUSTOMER).fill('alice finished'), 'bob running']);
    // Released: alice may wait again.
    const again = a.get('alice', await a.create('alice', {}), 10_000);
    await new Promise((r) => setTimeout(r, 100));
    a.stop(); // wakes every waiting get
    expect((await again)?.state).toBe('queued');
    await a.start();
  });
});
